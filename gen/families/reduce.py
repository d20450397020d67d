"""The reduce family (runtime/sim/src/opapi/families/reduce.cpp): its row of gen.families."""

from gen.families.model import Family, Op, OutputShape, Variation

REDUCE = Family(
    "reduce", "PlanReduce",
    # global_mean, global_amax: mean and amax over every dimension after the first two, kept
    # as 1 (ONNX's GlobalAveragePool and GlobalMaxPool).
    ops=("sum", "mean", "prod", Op("amax", exact=True), Op("amin", exact=True), Op("max", exact=True),
         Op("min", exact=True), Op("argmax", dtypes={"out": "INT64"}, exact=True),
         Op("argmin", dtypes={"out": "INT64"}, exact=True), Op("any", dtypes={"out": "BOOL"}, exact=True),
         Op("all", dtypes={"out": "BOOL"}, exact=True), "var", "std", "var_mean", "std_mean", "norm", "logsumexp",
         "nansum", Op("aminmax", exact=True), "log_sum", Op("global_mean", shape="given"),
         Op("global_amax", shape="given", exact=True)),
    variations=(Variation("rank", ("self",)),),
    # noop_with_empty_dims: an empty dimension list reduces nothing (out = self) instead of
    # every dimension (the ONNX-style pages' noopWithEmptyAxes).
    roles=("self", "dim", "keepdim", "dtype", "correction", "unbiased", "p", "out", "indices", "mean",
           "max_out", "noop_with_empty_dims"),
    required=("self", "out"),
    options=("correction", "p"),
    output_shape="reduce",
    fixed_dtypes={"indices": "INT64"},
    doc="along `dim` (an int array or an int; absent or empty: every dimension, or none with "
        "noop_with_empty_dims), keepdim; max/min give values and indices, var_mean/std_mean the variance and "
        "the mean, aminmax min and max, log_sum the logarithm of the sum")

# The output-shape rules this family brought (gen.families.OUTPUT_SHAPES).
REDUCE_RULE = OutputShape("reduce", "the source with the `dim` dimensions removed, or kept as 1 with keepdim",
                          dims_role="dim", phrase="{source} reduced along {dims_or_every}{noop}",
                          header="reduce_shape.h")
