"""The softmax family (runtime/sim/src/opapi/families/softmax.cpp): its row of gen.families."""

from gen.families.model import Family, Variation

SOFTMAX = Family(
    "softmax", "PlanSoftmax",
    ops=("softmax", "log_softmax"),
    variations=(Variation("rank", ("self",)),),
    roles=("self", "dim", "out"),
    required=("self", "dim", "out"),
    doc="along one dimension, computed in float (double for DOUBLE)")
