"""The softmax family (runtime/sim/src/opapi/families/softmax.cpp): its row of gen.families."""

from gen.families.model import Family

SOFTMAX = Family(
    "softmax", "PlanSoftmax",
    ops=("softmax", "log_softmax"),
    roles=("self", "dim", "out"),
    required=("self", "dim", "out"),
    shape_variations=(("*", "rank", ("self",)),),
    doc="along one dimension, computed in float (double for DOUBLE)")
