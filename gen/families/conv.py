"""The conv family (runtime/sim/src/opapi/families/conv.cpp): its row of gen.families."""

from gen.families.model import Family, Op, OutputShape

CONV = Family(
    "conv", "PlanConv",
    # convolution: 1d/2d/3d, transposed with output_padding; convolution_backward: the gradients
    # outputMask asks for; depthwise2d: groups = channels; tbc: a 1d convolution over [time,
    # batch, channel]; im2col: the unfolded patches of F.unfold; unfold_grad: Tensor.unfold's
    # gradient (a 1d col2im of the windows of size `size` every `step` along `dim`); col2im: F.fold,
    # im2col's transpose (the patches of grad_output added back into an image of input_sizes).
    # convolution's output: aclnn_bindgen/conv_shape.h's rule from input, weight and the arguments
    # of CONV_RULE_ROLES; the other ops' outputs are passed (out=).
    # transposed turns the weight's first two dimensions around: another value alone is no valid call.
    ops=(Op("convolution", shapes={"out": "convolution"}, shape_arguments=("transposed",)),
         Op("convolution_backward", shape_arguments=("transposed",)), "depthwise2d", "tbc", "tbc_backward",
         Op("im2col", exact=True), "unfold_grad", "col2im"),
    output_shape="given",
    roles=("input", "weight", "bias", "bias_sizes", "stride", "padding", "dilation", "transposed",
           "output_padding", "groups", "kernel_size", "pad", "grad_output", "output_mask", "cube_math_type",
           "out", "grad_input", "grad_weight", "grad_bias", "input_sizes", "dim", "size", "step"),
    required=(),
    source="input",
    second="weight",
    doc="im2col + GEMM on the BLAS (OpenBLAS sgemm; FLOAT16 and BFLOAT16 converted to float), its "
        "transpose (col2im) for the input's gradient and transposed convolutions")

# The output-shape rules this family brought (gen.families.OUTPUT_SHAPES).
CONVOLUTION_RULE = OutputShape("convolution", "source convolved by second (aclnn_bindgen/conv_shape.h)", product=True,
                               phrase="that of {source} convolved by {second}", header="conv_shape.h")
