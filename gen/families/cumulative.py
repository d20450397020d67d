"""The cumulative family (runtime/sim/src/opapi/families/cumulative.cpp): its row of gen.families."""

from gen.families.model import Family, Op, Variation

CUMULATIVE = Family(
    "cumulative", "PlanCumulative",
    ops=("cumsum", "cumprod", Op("cummax", exact=True), Op("cummin", exact=True)),
    variations=(Variation("rank", ("self",)),),
    roles=("self", "dim", "dtype", "exclusive", "reverse", "out", "indices"),
    required=("self", "dim", "out"),
    fixed_dtypes={"indices": "INT64"},
    doc="running sums, products, maxima and minima along one dimension")
