"""Caffe's Scale layer (runtime/sim/src/opapi/families/scale.cpp): aclnnScale."""

from gen.families.model import Family

SCALE = Family(
    "scale", "PlanScale",
    ops=("scale",),
    roles=("x", "scale", "bias", "axis", "num_axes", "scale_from_blob", "out"),
    required=("x", "scale", "out"),
    source="x",
    doc="scale: out = x * scale (+ bias), scale and bias covering x's dimensions from axis (num_axes of them "
        "with scale_from_blob, -1: to the last; else as many as scale has), in float (double for DOUBLE)")
