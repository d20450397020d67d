"""A softmax along the last dimension of scale * x with masked positions left out, and its backward
(runtime/sim/src/opapi/families/masked_softmax.cpp): aclnnScaledMaskedSoftmax, which aten's
_masked_softmax (mask_type 2) reaches through op-plugin."""

from gen.families.model import Family

MASKED_SOFTMAX = Family(
    "masked_softmax", "PlanMaskedSoftmax",
    ops=("scaled_masked_softmax", "scaled_masked_softmax_backward"),
    roles=("x", "mask", "grad_out", "scale", "fix_triu_mask", "out"),
    required=("x", "mask", "out"),
    source="x",
    doc="softmax(scale * x) over the positions a BOOL mask (broadcast) leaves, 0 at masked ones, and its "
        "backward scaled and masked; in float, sums in double")
