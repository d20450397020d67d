"""The select family (runtime/sim/src/opapi/families/select.cpp): its row of gen.families."""

from gen.families.model import Family

SELECT = Family(
    "select", "PlanSelect",
    ops=("where", "masked_fill"),
    roles=("condition", "self", "other", "out"),
    required=("condition", "self"),
    op_output_shapes=(("where", "*", "page"),),
    exact_ops=("*",),
    shape_variations=(("where", "rank", ("condition", "self", "other")), ("masked_fill", "rank", ("self", "condition")),
                      ("where", "broadcast", ("condition", "self", "other")), ("masked_fill", "broadcast", ("condition",))),
    doc="where: out = condition ? self : other, broadcast; masked_fill: self = mask ? value : self")
