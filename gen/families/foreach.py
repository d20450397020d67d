"""The foreach family (runtime/sim/src/opapi/families/foreach.cpp): its row of gen.families."""

from gen.families.model import Family

FOREACH = Family(
    "foreach", "PlanForeach",
    # norm: member i's p-norm over all its elements (p: the `p` role, a scalar; inf: the largest |x|).
    # add_n, max_n, min_n: the members of x folded into one tensor out (sum, NaN-propagating
    # maximum and minimum), their broadcast shape.
    ops=("map", "norm", "add_n", "max_n", "min_n"),
    roles=("x", "out", "p"),
    required=("x",),
    source="x",
    kernel_ops=("map",),
    op_output_shapes=(("add_n", "*", "given"), ("max_n", "*", "given"), ("min_n", "*", "given")),
    op_dtype_sources=(("add_n", "x"), ("max_n", "x"), ("min_n", "x")),
    exact_ops=("max_n", "min_n"),
    doc="the semantics' elementwise kernel over each tensor of aclTensorLists: member i of every list "
        "(a scalar list's value i, a one-element tensor broadcast) gives out's member i, through the "
        "elementwise engine; each member's p-norm; and the members of one list summed, or their "
        "maximum or minimum, into one tensor")
