"""An Adam step keeping an exponential moving average of the parameter
(runtime/sim/src/opapi/families/ema_adam.cpp): aclnnApplyFusedEmaAdam."""

from gen.families.model import Family

EMA_ADAM = Family(
    "ema_adam", "PlanEmaAdam",
    ops=("apply_fused_ema_adam",),
    roles=("grad", "var", "m", "v", "s", "step", "lr", "ema_decay", "beta1", "beta2", "eps", "mode",
           "bias_correction", "weight_decay"),
    required=("grad", "var", "m", "v", "s", "step"),
    source="var",
    doc="apply_fused_ema_adam: var, m, v updated in place by an Adam step (mode 0: L2 decay in the gradient, 1: "
        "decoupled decay; bias_correction), s by the new var's moving average, in float")
