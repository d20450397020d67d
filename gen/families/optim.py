"""The optim and amp families (runtime/sim/src/opapi/families/optim.cpp): their rows of gen.families."""

from gen.families.model import Family, Op

OPTIM = Family(
    "optim", "PlanOptim",
    ops=("adamw", "sgd"),
    # grad_scale: FusedSgd's optional divisor of the gradients; first_step: its momentum
    # buffers start as the gradients. found_inf: AdamW skips the step where it is 1; step: one
    # tensor for every member, or a list of one per member; step_offset (an option, default 1):
    # what AdamW adds to the step to get t.
    roles=("var", "m", "v", "max_v", "grad", "step", "lr", "beta1", "beta2", "weight_decay", "eps", "amsgrad",
           "maximize", "momentum", "dampening", "nesterov", "first_step", "grad_scale", "found_inf", "step_offset"),
    options=("step_offset",),
    required=("var", "grad"),
    source="var",
    doc="optimizer steps updating parameters and their state in place, computed in float: AdamW (amsgrad, "
        "maximize), SGD with momentum, dampening, Nesterov and weight decay over tensor lists")

AMP = Family(
    "amp", "PlanAmp",
    ops=("unscale", Op("update_scale", dtypes={"tracker_out": "INT32"})),
    roles=("grads", "found_inf", "inv_scale", "scale", "tracker", "growth_factor", "backoff_factor",
           "growth_interval", "scale_out", "tracker_out"),
    required=("found_inf",),
    source="scale",
    doc="mixed precision's loss scaling: gradients multiplied by the inverse scale with a flag set where "
        "one is not finite, and the scale's update from that flag (torch's GradScaler)")
