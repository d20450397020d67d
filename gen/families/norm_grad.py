"""The norm_grad family (runtime/sim/src/opapi/families/norm_grad.cpp): its row of gen.families."""

from gen.families.model import Family, Op, OutputShape

NORM_GRAD = Family(
    "norm_grad", "PlanNormGrad",
    # add_layer_norm_grad: layer_norm_backward at input + input2 (gamma's dimensions), grad_sum
    # added to grad_input; deep_norm_grad: at input * alpha + input2, grad_input2 the sum's gradient.
    # The gradients of a required gamma have its shape; layer_norm_backward's weight is optional
    # (its gradients' shape is normalized_shape's then, which no rule reads).
    ops=(Op("layer_norm_backward", shapes={"grad_weight": "given", "grad_bias": "given"}),
         Op("rms_norm_grad", shapes={"grad_weight": "second"}, dtypes={"grad_weight": "FLOAT"}),
         Op("rms_norm_grad_quant", shapes={"grad_weight": "second"}, dtypes={"grad_input": "INT8", "grad_weight": "FLOAT"}),
         Op("group_norm_backward", shapes={"grad_weight": "channels", "grad_bias": "channels"}),
         Op("batch_norm_backward", shapes={"grad_weight": "channels", "grad_bias": "channels"}),
         Op("add_layer_norm_grad", shapes={"grad_weight": "second", "grad_bias": "second"},
            dtypes={"grad_weight": "FLOAT", "grad_bias": "FLOAT"}),
         Op("deep_norm_grad", shapes={"grad_weight": "second", "grad_bias": "second"},
            dtypes={"grad_weight": "FLOAT", "grad_bias": "FLOAT"}),
         Op("group_norm_swish_backward", shapes={"grad_weight": "channels", "grad_bias": "channels"})),
    # group_norm_swish_backward: group_norm_backward of the gradient through the forward's swish
    # (bias: beta, swish_scale), grad_weight and grad_bias where weight_required and bias_required.
    # mean/rstd: the forward's saved statistics (batch norm's saveMean/saveInvstd); output_mask:
    # which of grad_input, grad_weight, grad_bias are computed (absent: all).
    roles=("grad_out", "input", "normalized_shape", "mean", "rstd", "weight", "running_mean", "running_var",
           "training", "eps", "group", "output_mask", "grad_input", "grad_weight", "grad_bias", "input2",
           "alpha", "grad_sum", "grad_input2", "bias", "swish_scale", "weight_required", "bias_required",
           "data_format",
           # rms_norm_grad_quant: grad_input quantised to INT8, round(dx * quant_scale + quant_offset)
           # (dx / quant_scale with div_mode); quant_mode "static", the one the page supports
           "quant_scale", "quant_offset", "div_mode", "quant_mode"),
    required=("grad_out", "input"),
    source="input",
    second="weight",
    doc="the normalisations' backward from the forward's saved mean and rstd (batch norm's running "
        "statistics in inference), computed in float (double for DOUBLE)")

# The output-shape rules this family brought (gen.families.OUTPUT_SHAPES).
SECOND_RULE = OutputShape("second", "the second role's own shape (a norm backward's gradient of gamma)",
                          phrase="that of {second}")
