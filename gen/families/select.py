"""The select family (runtime/sim/src/opapi/families/select.cpp): its row of gen.families."""

from gen.families.model import Family, Op, Variation

SELECT = Family(
    "select", "PlanSelect",
    ops=(Op("where", shape="page",
            variations=(Variation("rank", ("condition", "self", "other")),
                        Variation("broadcast", ("condition", "self", "other")))),
         Op("masked_fill",
            variations=(Variation("rank", ("self", "condition")), Variation("broadcast", ("condition",))))),
    exact=True,
    roles=("condition", "self", "other", "out"),
    required=("condition", "self"),
    doc="where: out = condition ? self : other, broadcast; masked_fill: self = mask ? value : self")
