"""The norm family (runtime/sim/src/opapi/families/norm.cpp): its row of gen.families."""

from gen.families.model import Family, Op, OutputShape, Variation

NORM = Family(
    "norm", "PlanNorm",
    # gemma_rms_norm: rms_norm scaled by (1 + weight); group_norm_silu: group_norm then SiLU;
    # add_layer_norm: layer_norm of input + input2 (+ input3, a bias) over gamma's dimensions, the
    # sum written to sum_out when additional_output; deep_norm: layer_norm of input * alpha + input2;
    # add_rms_norm_cast: rms_norm of input + input2 in float, out FLOAT and out2 in input's dtype.
    # group_norm_swish: group_norm then x * sigmoid(swish_scale * x) when activate_swish (data_format
    # NCHW only).
    ops=(Op("layer_norm", shapes={"mean": "trailing_ones", "rstd": "trailing_ones"},
            variations=(Variation("trailing", ("input", "weight", "bias")),)),
         Op("rms_norm", shapes={"rstd": "trailing_ones"}, dtypes={"rstd": "FLOAT"},
            variations=(Variation("trailing", ("input", "weight")),)),
         Op("add_rms_norm", shapes={"rstd": "trailing_ones"}, dtypes={"rstd": "FLOAT"},
            variations=(Variation("trailing", ("input", "input2", "weight")),)),
         Op("group_norm", shapes={"mean": "groups", "rstd": "groups"}),
         Op("batch_norm", shapes={"mean": "channels", "rstd": "channels"},
            variations=(Variation("channels", ("input", "weight", "bias", "running_mean", "running_var")),)),
         Op("gemma_rms_norm", shapes={"rstd": "trailing_ones"}, dtypes={"rstd": "FLOAT"},
            variations=(Variation("trailing", ("input", "weight")),)),
         Op("group_norm_silu", shapes={"mean": "groups", "rstd": "groups"}),
         Op("add_layer_norm", shapes={"mean": "trailing_ones", "rstd": "trailing_ones"},
            dtypes={"mean": "FLOAT", "rstd": "FLOAT"}),
         Op("deep_norm", shapes={"mean": "trailing_ones", "rstd": "trailing_ones"},
            dtypes={"mean": "FLOAT", "rstd": "FLOAT"}),
         Op("add_rms_norm_cast", shapes={"rstd": "trailing_ones"}, dtypes={"out": "FLOAT", "rstd": "FLOAT"}),
         Op("group_norm_swish", shapes={"mean": "groups", "rstd": "groups"}),
         Op("ada_layer_norm", shapes={"mean": "trailing_ones", "rstd": "trailing_ones"})),
    # ada_layer_norm: layer_norm over the last dimension, then * (1 + scale) + shift, scale and
    # shift one row per batch ([B..., H] or [B..., 1, H]: broadcast over x's dimension -2).
    roles=("input", "input2", "normalized_shape", "weight", "bias", "running_mean", "running_var",
           "eps", "training", "momentum", "group", "out", "mean", "rstd", "sum_out", "input3", "alpha",
           "additional_output", "out2", "activate_swish", "swish_scale", "data_format", "scale", "shift"),
    required=("input", "out"),
    options=("eps",),
    source="input",
    second="weight",
    doc="statistics over the trailing (layer/rms), group or batch dimensions, computed in float "
        "(double for DOUBLE); mean/rstd outputs")

# The output-shape rules this family brought (gen.families.OUTPUT_SHAPES).
TRAILING_ONES_RULE = OutputShape("trailing_ones",
                                 "the source's shape with its trailing normalised dimensions as 1 (as many as "
                                 "normalized_shape names, else as second's rank)", dims_role="normalized_shape",
                                 phrase="{source}'s with its last {dims_count} dimensions 1", header="norm_shape.h")
GROUPS_RULE = OutputShape("groups", "[N, group]", dims_role="group", phrase="[{source}.size(0), {dims}]",
                          header="norm_shape.h")
CHANNELS_RULE = OutputShape("channels", "[C]", phrase="[{source}.size(1)]", header="norm_shape.h")
