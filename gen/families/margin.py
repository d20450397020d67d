"""The multilabel margin loss (runtime/sim/src/opapi/families/margin.cpp): F.multilabel_margin_loss."""

from gen.families.model import Family

MARGIN = Family(
    "margin", "PlanMargin",
    ops=("multilabel_margin_loss",),
    output_shape="given",
    roles=("self", "target", "reduction", "out", "is_target"),
    required=("self", "target", "out", "is_target"),
    doc="multilabel_margin_loss: per sample, the hinge margins of its labels (target's entries before the first "
        "-1) over the other classes, divided by C, reduced by `reduction` (0 none, 1 mean, 2 sum); is_target its "
        "label mask; in float, sums in double")
