"""The rotate_quant family (runtime/sim/src/opapi/families/rotate_quant.cpp): its row of gen.families."""

from gen.families.model import Family, Op

# A rotation, then per-row dynamic quantisation (runtime/sim/src/opapi/families/rotate_quant.cpp):
# aclnnRotateQuant, torch_npu.npu_rotate_quant, on Atlas A2/A3 (INT8 out); its MX outputs
# (Ascend950) and INT32-packed INT4 are declined by name.
ROTATE_QUANT = Family(
    "rotate_quant", "PlanRotateQuant",
    ops=(Op("rotate_quant", dtypes={"out": "INT8"}),),
    output_shape="given",
    # rotation: the [K, K] matrix each K consecutive elements of a row are multiplied by; alpha, the
    # clamp's factor (the A2/A3 page takes none); scale_alg, dst_max and trans: the MX forms' (0, 0.0
    # and false on A2/A3; trans false on every chip, the semantics' check).
    roles=("x", "rotation", "alpha", "axis", "round_mode", "scale_alg", "dst_max", "trans", "out", "scale_out"),
    required=("x", "rotation", "out", "scale_out"),
    source="x",
    fixed_dtypes={"scale_out": "FLOAT"},
    doc="Y = (x.reshape(-1, K) @ rotation).reshape(M, N) for x [M, N] and rotation [K, K], then per row "
        "scale_out = max|Y| / 127 and out = round(Y / scale_out) by round_mode (rint: half to even, floor), "
        "saturated to INT8; in float")
