"""The amp family (runtime/sim/src/opapi/families/amp.cpp): its row of gen.families."""

from gen.families.model import Family, Op

AMP = Family(
    "amp", "PlanAmp",
    ops=("unscale", Op("update_scale", dtypes={"tracker_out": "INT32"})),
    roles=("grads", "found_inf", "inv_scale", "scale", "tracker", "growth_factor", "backoff_factor",
           "growth_interval", "scale_out", "tracker_out"),
    required=("found_inf",),
    source="scale",
    doc="mixed precision's loss scaling: gradients multiplied by the inverse scale with a flag set where "
        "one is not finite, and the scale's update from that flag (torch's GradScaler)")
