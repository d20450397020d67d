"""An AdamW step with one-element tensor hyperparameters (runtime/sim/src/opapi/families/adam.cpp):
aclnnApplyAdamW, which torch_npu.npu_apply_adam_w reaches where op-plugin runs aclnn alone."""

from gen.families.model import Family

ADAM = Family(
    "adam", "PlanAdam",
    ops=("apply_adamw", "apply_adam", "apply_ftrl"),
    # apply_adam: TF's Adam (beta powers beta^t, nesterov), into var_out/m_out/v_out where given, else
    # in place; apply_ftrl: TF's FTRL-proximal, var, accum and linear updated in place.
    roles=("var", "m", "v", "beta1_power", "beta2_power", "lr", "weight_decay", "beta1", "beta2", "eps", "grad",
           "max_grad_norm", "amsgrad", "maximize", "nesterov", "var_out", "m_out", "v_out", "accum", "linear",
           "l1", "l2", "lr_power"),
    required=("var", "grad"),
    source="var",
    doc="apply_adamw: var, m and v updated in place by an AdamW step (beta powers given as beta^(t-1), amsgrad "
        "keeping max(maxGradNorm, v) in v, maximize); apply_adam: TF's Adam step (beta powers beta^t, "
        "nesterov); apply_ftrl: TF's FTRL-proximal step; hyperparameters one-element tensors, in float")
