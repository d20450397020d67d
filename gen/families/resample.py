"""Interpolation over the trailing 1 to 3 dimensions (runtime/sim/src/opapi/families/resample.cpp):
the aclnnUpsample* APIs, which F.interpolate and nn.Upsample reach through op-plugin, and their
backward. Their pages are op_docs/derived/ (no page of the corpus documents them)."""

from gen.families.model import Family, Op, OutputShape

_RESAMPLE_BACKWARD = ("nearest_backward", "nearest_exact_backward", "linear_backward", "cubic_backward",
                      "linear_aa_backward", "cubic_aa_backward")
RESAMPLE = Family(
    "resample", "PlanResample",
    # The backward ops' out has input_size's shape and grad_output's dtype.
    ops=(Op("nearest", exact=True), Op("nearest_exact", exact=True), "linear", "cubic", "linear_aa", "cubic_aa",
         *(Op(op, shape="sizes", dtype_source="grad_output") for op in _RESAMPLE_BACKWARD)),
    roles=("self", "grad_output", "output_size", "input_size", "align_corners", "scales_d", "scales_h", "scales_w",
           "out"),
    required=("output_size", "out"),
    options=("spatial",),
    output_shape="adaptive",
    doc="nearest, nearest_exact, linear (bi-, tri-) and cubic (Keys, A = -0.75) interpolation of the trailing "
        "`spatial` dimensions to output_size, aten's coordinates (align_corners, the caller's scales), and the "
        "backward ops adding each gradient back with the forward's weights; linear_aa and cubic_aa (Keys, A = -0.5) "
        "antialiased as aten's separable kernel (PIL's): the filter widened by the step when downsampling, "
        "weights normalised per output; in float (double for DOUBLE)")

# The output-shape rules this family brought (gen.families.OUTPUT_SHAPES).
SIZES_RULE = OutputShape("sizes",
                         "the argument of the dims role as the whole shape (an upsample backward's input_size)",
                         dims_role="input_size", phrase="{dims}")
