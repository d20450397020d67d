"""The overlaps of axis-aligned boxes (runtime/sim/src/opapi/families/box_overlap.cpp): aclnnIou and
aclnnCIoU, which op-plugin calls on Ascend950 (below it torch_npu runs the aclop Iou and CIoU, whose
formulas the two paths share: runtime/sim/src/common/boxes.h). Their pages are op_docs/derived/."""

from gen.families.model import Family, Op

BOX_OVERLAP = Family(
    "box_overlap", "PlanBoxOverlap",
    # Iou's overlap is [N, M], CIoU's [M, N] or [1, N] by isCross: rules the bindings do not know.
    ops=(Op("iou"), Op("ciou")),
    roles=("bboxes", "gtboxes", "mode", "eps", "trans", "is_cross", "overlap", "atan_sub"),
    required=("bboxes", "gtboxes", "mode", "overlap"),
    output_shape="given",
    source="bboxes",
    doc="iou: every pair's IoU or IoF of bboxes [N, 4] and gtboxes [M, 4], eps the pixel offset, overlap [N, M]; "
        "ciou: Complete IoU of coordinate rows [4, N] and [4, M] (trans: centre and size; isCross: every pair) and "
        "atanSub; in float")
