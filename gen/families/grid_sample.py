"""Sampling at a grid's coordinates (runtime/sim/src/opapi/families/grid_sample.cpp): the
aclnnGridSampler2D/3D APIs and their backward, which F.grid_sample reaches through op-plugin.
Their pages are op_docs/derived/ (no page of the corpus documents them)."""

from gen.families.model import Family, Op

GRID_SAMPLE = Family(
    "grid_sample", "PlanGridSample",
    # out: [N, C, *grid's middle dimensions], which no rule of the bindings gives; the gradients
    # have their inputs' shapes.
    ops=(Op("grid_sample", shapes={"out": "given"}), Op("grid_sample_backward", shapes={"grid_grad": "second"})),
    roles=("input", "grid", "grad_output", "interpolation_mode", "padding_mode", "align_corners", "output_mask", "out",
           "input_grad", "grid_grad"),
    required=("input", "grid"),
    source="input",
    second="grid",
    doc="grid_sample: input [N, C, (D,) H, W] sampled at grid [N, (Do,) Ho, Wo, 2 or 3] (bilinear/trilinear, "
        "nearest, bicubic in 2-D; zeros, border or reflection padding; align_corners) as aten's CPU grid "
        "sampler, and its backward (inputGrad, gridGrad); in float (double for DOUBLE)")
