"""The optim family (runtime/sim/src/opapi/families/optim.cpp): its row of gen.families."""

from gen.families.model import Family

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
