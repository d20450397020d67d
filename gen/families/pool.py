"""The pool family (runtime/sim/src/opapi/families/pool.cpp): its row of gen.families."""

from gen.families.model import Family, Op, OutputShape

POOL = Family(
    "pool", "PlanPool",
    # Over the trailing `spatial` dimensions (an option: 1, 2 or 3) of planes the leading
    # dimensions enumerate. max_pool's indices are flat in the input plane (PyTorch's);
    # a *_backward op's out is the gradient of self; max_unpool scatters self at indices.
    ops=(Op("max_pool", shape="pool", exact=True), Op("avg_pool", shape="pool"), Op("adaptive_avg", shape="adaptive"),
         Op("adaptive_max", shape="adaptive", exact=True), Op("reflection_pad", shape="pad", exact=True),
         Op("replication_pad", shape="pad", exact=True), "max_pool_backward", "avg_pool_backward",
         "adaptive_avg_backward", "adaptive_max_backward",
         # A padding's backward takes grad_output of the padded shape: its padding varies only with it.
         Op("reflection_pad_backward", shape_arguments=("padding",)),
         Op("replication_pad_backward", shape_arguments=("padding",)),
         Op("max_unpool", shape="adaptive", exact=True), Op("max_pool_mask", shape="given"),
         Op("circular_pad", shape="pad", exact=True), Op("circular_pad_backward", shape_arguments=("padding",)),
         Op("max_unpool_backward", exact=True)),
    roles=("self", "grad_output", "indices", "kernel", "stride", "padding", "dilation", "ceil_mode",
           "count_include_pad", "divisor_override", "output_size", "out", "out_indices"),
    required=("self", "out"),
    # onnx_window: the window arguments read as ONNX's (aclnnMaxPool's page): an empty strides is 1,
    # not the kernel, and pads give every spatial dimension's begin, then every end ({上,左,下,右}).
    options=("spatial", "onnx_window"),
    # max_unpool_backward's out has self's shape: the family's default "same".
    fixed_dtypes={"out_indices": "INT64"},
    doc="sliding-window max and average pools (kernel, stride, padding, dilation, ceil mode, "
        "count_include_pad, divisor_override), adaptive pools, reflection and replication padding, "
        "their backward, and max unpooling, over the trailing 1 to 3 dimensions")

# The output-shape rules this family brought (gen.families.OUTPUT_SHAPES).
POOL_RULE = OutputShape("pool", "the source's leading dimensions, then each spatial one pooled by the kernel, stride, "
                        "padding, dilation and ceil-mode arguments (aclnn_bindgen/pool_shape.h)", dims_role="kernel",
                        pooled=True, phrase="{source}'s last {spatial} dimensions pooled by {dims}'s windows",
                        header="pool_shape.h")
ADAPTIVE_RULE = OutputShape("adaptive", "the leading dimensions, then output_size", dims_role="output_size",
                            pooled=True, phrase="{source}'s with its last {spatial} dimensions {dims}",
                            header="pool_shape.h")
PAD_RULE = OutputShape("pad", "each spatial dimension widened by its padding pair", dims_role="padding", pooled=True,
                       phrase="{source}'s with its last {spatial} dimensions padded by {dims}", header="pool_shape.h")
