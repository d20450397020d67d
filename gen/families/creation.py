"""Tensors made from numbers alone (torch.arange, range, linspace, logspace, eye): no input tensor,
the caller's out= holds the result (runtime/sim/src/opapi/families/creation.cpp)."""

from gen.families.model import Family, Op

CREATION = Family(
    "creation", "PlanCreation",
    ops=("arange", "range", "linspace", "logspace", Op("eye", exact=True)),
    output_shape="given",
    roles=("start", "end", "step", "steps", "n", "m", "out", "base"),
    required=("out",),
    source="out",
    doc="arange's [start, end) and range's [start, end] by step, linspace's steps values from start to "
        "end, logspace's base raised to them, eye's n x m identity; out= of the result's size, any dtype its page lists")
