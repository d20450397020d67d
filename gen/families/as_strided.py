"""A strided view of a tensor's elements copied out (runtime/sim/src/opapi/families/as_strided.cpp):
aclnnAsStrided."""

from gen.families.model import Family

AS_STRIDED = Family(
    "as_strided", "PlanAsStrided",
    ops=("as_strided",),
    output_shape="given",
    exact=True,
    roles=("self", "size", "stride", "storage_offset", "out"),
    required=("self", "size", "stride", "out"),
    doc="as_strided: out[i] = self's elements in row-major order at storage_offset + sum(i[d] * stride[d]), "
        "as torch.as_strided on a contiguous self")
