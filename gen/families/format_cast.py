"""A tensor moved between its plain layout and FRACTAL_NZ (runtime/sim/src/opapi/families/format_cast.cpp):
aclnnNpuFormatCast, which torch_npu's npu_format_cast reaches on Ascend950 (aclnn-only there);
aclnnNpuFormatCastCalculateSizeAndFormat, which shapes its destination, is the engine file's too."""

from gen.families.model import Family

FORMAT_CAST = Family(
    "format_cast", "PlanFormatCast",
    ops=("format_cast",),
    exact=True,
    roles=("src", "dst"),
    required=("src", "dst"),
    source="src",
    doc="format_cast: dst holds src's elements, a plain layout into FRACTAL_NZ (its padding zero), FRACTAL_NZ "
        "into a plain layout, or one plain layout into another")
