"""The chamfer distance's gradient (runtime/sim/src/opapi/families/chamfer.cpp):
aclnnChamferDistanceBackward."""

from gen.families.model import Family

CHAMFER = Family(
    "chamfer", "PlanChamfer",
    ops=("chamfer_distance_backward",),
    output_shape="given",
    roles=("xyz1", "xyz2", "idx1", "idx2", "grad_dist1", "grad_dist2", "grad_xyz1", "grad_xyz2"),
    required=("xyz1", "xyz2", "idx1", "idx2", "grad_dist1", "grad_dist2", "grad_xyz1", "grad_xyz2"),
    source="xyz1",
    doc="chamfer_distance_backward: each point's 2 * grad * (point - its nearest in the other set, by idx) added "
        "to its gradient and subtracted from the nearest's, both sets, in float")
