"""The sampling grid of an affine transform (runtime/sim/src/opapi/families/affine_grid.cpp):
aclnnAffineGrid, which F.affine_grid reaches through op-plugin."""

from gen.families.model import Family

AFFINE_GRID = Family(
    "affine_grid", "PlanAffineGrid",
    ops=("affine_grid",),
    output_shape="given",
    roles=("theta", "size", "align_corners", "out"),
    required=("theta", "size", "out"),
    source="theta",
    doc="affine_grid: out [N, (D,) H, W, 2 or 3] = theta [N, 2, 3] or [N, 3, 4] applied to each point's "
        "(x, y, (z,) 1), coordinates from -1 to 1 (pixel centres unless align_corners), in double")
