"""Sinkhorn's optimal transport of a cost matrix (runtime/sim/src/opapi/families/sinkhorn.cpp):
aclnnSinkhorn."""

from gen.families.model import Family

SINKHORN = Family(
    "sinkhorn", "PlanSinkhorn",
    ops=("sinkhorn",),
    roles=("cost", "tol", "out"),
    required=("cost", "out"),
    source="cost",
    doc="sinkhorn: out = d0[:, None] * exp(cost) * d1[None, :], the row and column scalings iterated from ones "
        "until d1's mean change is at most tol (absent: 1e-4), in float")
