"""Rotary position embedding and its gradient (runtime/sim/src/opapi/families/rotary.cpp):
torch_npu.npu_rotary_mul's x * cos + rotate(x) * sin along the last dimension of a 4-d x, cos and
sin broadcast to it; mode 0 half, 1 interleave, 2 quarter, 3 interleave-half (interleave_rope:
aclnnInterleaveRope, that mode with its README's shapes)."""

from gen.families.model import Family, Op

ROTARY = Family(
    "rotary", "PlanRotary",
    # apply_rotary: query (the x role) and key rotated in place (aclnnApplyRotaryPosEmb and V2).
    ops=("rotary", Op("rotary_grad", shape="given"), "apply_rotary", "interleave_rope"),
    roles=("x", "cos", "sin", "mode", "dy", "out", "dx", "dcos", "dsin", "key", "layout", "rotary_mode"),
    required=("cos", "sin"),
    source="x",
    doc="rotary position embedding of a 4-d x by cos and sin tables that broadcast to it, in four rotation modes, "
        "and its gradient (dx, and dcos and dsin summed over the tables' broadcast dimensions), in float")
