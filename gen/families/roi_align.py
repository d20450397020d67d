"""RoIAlign and its gradient (runtime/sim/src/opapi/families/roi_align.cpp): aclnnROIAlign and
aclnnROIAlignBackward, which op-plugin calls wherever libopapi exports them (DO_COMPATIBILITY; else torch_npu
runs the aclop ROIAlign and ROIAlignGrad, whose geometry the two paths share:
runtime/sim/src/common/roi_align.h). Their pages are op_docs/derived/."""

from gen.families.model import Family, Op

ROI_ALIGN = Family(
    "roi_align", "PlanRoiAlign",
    # out: [R, C, pooledHeight, pooledWidth], or xdiffShape: rules the bindings do not know.
    ops=(Op("roi_align"), Op("roi_align_backward")),
    roles=("self", "grad_output", "rois", "xdiff_shape", "spatial_scale", "pooled_height", "pooled_width",
           "sample_num", "roi_end_mode", "out"),
    required=("rois", "spatial_scale", "pooled_height", "pooled_width", "sample_num", "roi_end_mode", "out"),
    output_shape="given",
    source="rois",
    doc="roi_align: self [N, C, H, W] pooled over rois [R, 5] (batch index, corners) into [R, C, pooledHeight, "
        "pooledWidth], torchvision's RoIAlign (roiEndMode 0: aligned=False, 3: aligned=True); roi_align_backward: "
        "its adjoint into xdiffShape; in float")
