"""The norm family (runtime/sim/src/opapi/families/norm.cpp): its row of gen.families."""

from gen.families.model import Family

NORM = Family(
    "norm", "PlanNorm",
    # gemma_rms_norm: rms_norm scaled by (1 + weight); group_norm_silu: group_norm then SiLU;
    # add_layer_norm: layer_norm of input + input2 (+ input3, a bias) over gamma's dimensions, the
    # sum written to sum_out when additional_output; deep_norm: layer_norm of input * alpha + input2;
    # add_rms_norm_cast: rms_norm of input + input2 in float, out FLOAT and out2 in input's dtype.
    # group_norm_swish: group_norm then x * sigmoid(swish_scale * x) when activate_swish (data_format
    # NCHW only).
    ops=("layer_norm", "rms_norm", "add_rms_norm", "group_norm", "batch_norm", "gemma_rms_norm", "group_norm_silu",
         "add_layer_norm", "deep_norm", "add_rms_norm_cast", "group_norm_swish", "ada_layer_norm"),
    # ada_layer_norm: layer_norm over the last dimension, then * (1 + scale) + shift, scale and
    # shift one row per batch ([B..., H] or [B..., 1, H]: broadcast over x's dimension -2).
    roles=("input", "input2", "normalized_shape", "weight", "bias", "running_mean", "running_var",
           "eps", "training", "momentum", "group", "out", "mean", "rstd", "sum_out", "input3", "alpha",
           "additional_output", "out2", "activate_swish", "swish_scale", "data_format", "scale", "shift"),
    required=("input", "out"),
    options=("eps",),
    source="input",
    second="weight",
    op_output_shapes=(("layer_norm", "mean", "trailing_ones"), ("layer_norm", "rstd", "trailing_ones"),
                      ("rms_norm", "rstd", "trailing_ones"), ("add_rms_norm", "rstd", "trailing_ones"),
                      ("gemma_rms_norm", "rstd", "trailing_ones"),
                      ("group_norm", "mean", "groups"), ("group_norm", "rstd", "groups"),
                      ("group_norm_silu", "mean", "groups"), ("group_norm_silu", "rstd", "groups"),
                      ("group_norm_swish", "mean", "groups"), ("group_norm_swish", "rstd", "groups"),
                      ("add_layer_norm", "mean", "trailing_ones"), ("add_layer_norm", "rstd", "trailing_ones"),
                      ("deep_norm", "mean", "trailing_ones"), ("deep_norm", "rstd", "trailing_ones"),
                      ("add_rms_norm_cast", "rstd", "trailing_ones"),
                      ("ada_layer_norm", "mean", "trailing_ones"), ("ada_layer_norm", "rstd", "trailing_ones"),
                      ("batch_norm", "mean", "channels"), ("batch_norm", "rstd", "channels")),
    op_fixed_dtypes=(("rms_norm", "rstd", "FLOAT"), ("add_rms_norm", "rstd", "FLOAT"),
                     ("gemma_rms_norm", "rstd", "FLOAT"), ("add_layer_norm", "mean", "FLOAT"),
                     ("add_layer_norm", "rstd", "FLOAT"), ("deep_norm", "mean", "FLOAT"), ("deep_norm", "rstd", "FLOAT"),
                     ("add_rms_norm_cast", "out", "FLOAT"), ("add_rms_norm_cast", "rstd", "FLOAT")),
    shape_variations=(("rms_norm", "trailing", ("input", "weight")), ("gemma_rms_norm", "trailing", ("input", "weight")),
                      ("add_rms_norm", "trailing", ("input", "input2", "weight")),
                      ("layer_norm", "trailing", ("input", "weight", "bias")),
                      ("batch_norm", "channels", ("input", "weight", "bias", "running_mean", "running_var"))),
    doc="statistics over the trailing (layer/rms), group or batch dimensions, computed in float "
        "(double for DOUBLE); mean/rstd outputs")
