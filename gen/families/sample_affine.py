"""Per-sample affine transforms of features (runtime/sim/src/opapi/families/sample_affine.cpp):
aclnnModulate (x * (1 + scale) + shift, one row of scale and shift per sample) and aclnnInstanceNorm
(each sample's channel planes normalised, then gamma and beta per channel)."""

from gen.families.model import Family, Op

SAMPLE_AFFINE = Family(
    "sample_affine", "PlanSampleAffine",
    # instance_norm's statistics: [N, C, 1, 1].
    ops=("modulate", Op("instance_norm", shapes={"mean": "given", "variance": "given"}),
         Op("ada_layer_norm_backward", shape="given")),
    # ada_layer_norm_backward: x the forward's input, out its gradient; rstd the forward's.
    roles=("x", "scale", "shift", "out", "mean", "variance", "data_format", "eps", "grad_out", "rstd", "weight", "bias",
           "normalized_shape", "grad_scale", "grad_shift", "grad_weight", "grad_bias"),
    required=("x", "out"),
    source="x",
    doc="modulate: self [B, L, D] * (1 + scale) + shift, scale and shift [B, 1, D] or [B, D] (absent: 0); "
        "instance_norm: x [N, C, H, W] (NCHW) normalised per (n, c) plane by its mean and biased variance, times "
        "gamma plus beta per channel, the statistics [N, C, 1, 1]; ada_layer_norm_backward: the gradients of "
        "layer_norm(x) * (1 + scale) + shift from the forward's mean and rstd; in float, sums in double")
