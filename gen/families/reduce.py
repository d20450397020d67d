"""The reduce family (runtime/sim/src/opapi/families/reduce.cpp): its row of gen.families."""

from gen.families.model import Family

REDUCE = Family(
    "reduce", "PlanReduce",
    ops=("sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "any", "all",
         "var", "std", "var_mean", "std_mean", "norm", "logsumexp", "nansum", "aminmax", "log_sum",
         "global_mean", "global_amax"),
    # noop_with_empty_dims: an empty dimension list reduces nothing (out = self) instead of
    # every dimension (the ONNX-style pages' noopWithEmptyAxes).
    roles=("self", "dim", "keepdim", "dtype", "correction", "unbiased", "p", "out", "indices", "mean",
           "max_out", "noop_with_empty_dims"),
    required=("self", "out"),
    options=("correction", "p"),
    output_shape="reduce",
    # global_mean, global_amax: mean and amax over every dimension after the first two, kept
    # as 1 (ONNX's GlobalAveragePool and GlobalMaxPool).
    op_output_shapes=(("global_mean", "*", "given"), ("global_amax", "*", "given")),
    fixed_dtypes=(("indices", "INT64"),),
    op_fixed_dtypes=(("argmax", "out", "INT64"), ("argmin", "out", "INT64"), ("any", "out", "BOOL"),
                     ("all", "out", "BOOL")),
    exact_ops=("amax", "amin", "max", "min", "argmax", "argmin", "any", "all", "aminmax", "global_amax"),
    shape_variations=(("*", "rank", ("self",)),),
    doc="along `dim` (an int array or an int; absent or empty: every dimension, or none with "
        "noop_with_empty_dims), keepdim; max/min give values and indices, var_mean/std_mean the variance and "
        "the mean, aminmax min and max, log_sum the logarithm of the sum")
