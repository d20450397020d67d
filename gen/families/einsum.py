"""Einstein summation of two tensors (runtime/sim/src/opapi/families/einsum.cpp): aclnnEinsum."""

from gen.families.model import Family

EINSUM = Family(
    "einsum", "PlanEinsum",
    ops=("einsum",),
    output_shape="given",
    roles=("tensors", "equation", "out"),
    required=("tensors", "equation", "out"),
    source="tensors",
    doc="einsum: out[rhs] = the sum over the letters rhs lacks of tensors[0][lhs1] * tensors[1][lhs2] for the "
        "page's registered equations, in float (double for DOUBLE) or int64")
