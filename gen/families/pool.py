"""The pool family (runtime/sim/src/opapi/families/pool.cpp): its row of gen.families."""

from gen.families.model import Family

POOL = Family(
    "pool", "PlanPool",
    # Over the trailing `spatial` dimensions (an option: 1, 2 or 3) of planes the leading
    # dimensions enumerate. max_pool's indices are flat in the input plane (PyTorch's);
    # a *_backward op's out is the gradient of self; max_unpool scatters self at indices.
    ops=("max_pool", "avg_pool", "adaptive_avg", "adaptive_max", "reflection_pad", "replication_pad",
         "max_pool_backward", "avg_pool_backward", "adaptive_avg_backward", "adaptive_max_backward",
         "reflection_pad_backward", "replication_pad_backward", "max_unpool", "max_pool_mask", "circular_pad",
         "circular_pad_backward", "max_unpool_backward"),
    roles=("self", "grad_output", "indices", "kernel", "stride", "padding", "dilation", "ceil_mode",
           "count_include_pad", "divisor_override", "output_size", "out", "out_indices"),
    required=("self", "out"),
    options=("spatial",),
    op_output_shapes=(("max_pool", "*", "pool"), ("avg_pool", "*", "pool"), ("adaptive_avg", "*", "adaptive"),
                      ("adaptive_max", "*", "adaptive"), ("reflection_pad", "*", "pad"),
                      ("replication_pad", "*", "pad"), ("max_unpool", "*", "adaptive"),
                      ("max_pool_mask", "*", "given"), ("circular_pad", "*", "pad")),
    # max_unpool_backward's out has self's shape: the family's default "same".
    fixed_dtypes=(("out_indices", "INT64"),),
    exact_ops=("max_pool", "adaptive_max", "reflection_pad", "replication_pad", "max_unpool", "circular_pad",
               "max_unpool_backward"),
    doc="sliding-window max and average pools (kernel, stride, padding, dilation, ceil mode, "
        "count_include_pad, divisor_override), adaptive pools, reflection and replication padding, "
        "their backward, and max unpooling, over the trailing 1 to 3 dimensions")
