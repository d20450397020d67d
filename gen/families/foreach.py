"""The foreach family (runtime/sim/src/opapi/families/foreach.cpp): its row of gen.families."""

from gen.families.model import Family, Op

FOREACH = Family(
    "foreach", "PlanForeach",
    # norm: member i's p-norm over all its elements (p: the `p` role, a scalar; inf: the largest |x|).
    # add_n, max_n, min_n: the members of x folded into one tensor out (sum, NaN-propagating
    # maximum and minimum), their broadcast shape.
    ops=(Op("map", kernel=True), "norm", Op("add_n", shape="given", dtype_source="x"),
         Op("max_n", shape="given", dtype_source="x", exact=True),
         Op("min_n", shape="given", dtype_source="x", exact=True)),
    roles=("x", "out", "p"),
    required=("x",),
    source="x",
    doc="the semantics' elementwise kernel over each tensor of aclTensorLists: member i of every list "
        "(a scalar list's value i, a one-element tensor broadcast) gives out's member i, through the "
        "elementwise engine; each member's p-norm; and the members of one list summed, or their "
        "maximum or minimum, into one tensor")
