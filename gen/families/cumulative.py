"""The cumulative family (runtime/sim/src/opapi/families/cumulative.cpp): its row of gen.families."""

from gen.families.model import Family

CUMULATIVE = Family(
    "cumulative", "PlanCumulative",
    ops=("cumsum", "cumprod", "cummax", "cummin"),
    roles=("self", "dim", "dtype", "exclusive", "reverse", "out", "indices"),
    required=("self", "dim", "out"),
    fixed_dtypes=(("indices", "INT64"),),
    exact_ops=("cummax", "cummin"),
    shape_variations=(("*", "rank", ("self",)),),
    doc="running sums, products, maxima and minima along one dimension")
