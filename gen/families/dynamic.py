"""The dynamic family (runtime/sim/src/opapi/families/dynamic.cpp): its row of gen.families."""

from gen.families.model import Family, Op, OutputShape

DYNAMIC = Family(
    "dynamic", "PlanDynamic",
    # Outputs whose extent depends on the data: the caller allocates the largest ("bound_*"
    # rules; a caller's out= need only hold the result, as the pages' examples pass it), the
    # kernel sets the output aclTensor's view shape to what it wrote and the caller reads it
    # back (aclGetViewShape), as op-plugin does for these APIs. nonzero_t:
    # the positions as [rank, N] (aclnnNonzeroV2); unique_consecutive and unique_dim: with a
    # dim in range, slices along it; equal: whether two tensors have one shape and one value.
    # bound_flat: [N], N the elements of self (broadcast with mask); bound_nonzero: [N, rank];
    # bound_nonzero_t: [rank, N]; bound_dim: self's shape with a dim in range, else [N];
    # bound_dim_length: [self.size(dim)] with a dim in range, else [N]; dim_length: the same,
    # else self's shape (an inverse, not data-dependent); one: [1].
    ops=(Op("masked_select", shapes={"out": "bound_flat"}),
         Op("nonzero", shapes={"out": "bound_nonzero"}, dtypes={"out": "INT64"}),
         Op("nonzero_t", shapes={"out": "bound_nonzero_t"}, dtypes={"out": "INT64"}),
         Op("unique", shapes={"out": "bound_flat", "counts": "bound_flat"}),
         Op("unique_consecutive", shapes={"out": "bound_dim", "inverse": "dim_length", "counts": "bound_dim_length"}),
         Op("unique_dim", shapes={"out": "bound_dim", "inverse": "dim_length", "counts": "bound_dim_length"}),
         Op("equal", shapes={"out": "one"}, dtypes={"out": "BOOL"})),
    exact=True,
    roles=("self", "mask", "other", "sorted", "return_inverse", "return_counts", "dim", "out", "inverse",
           "counts"),
    required=("self", "out"),
    second="mask",
    fixed_dtypes={"inverse": "INT64", "counts": "INT64"},
    doc="outputs whose extent the data decides (masked_select, nonzero, unique and its variants: the "
        "output's view shape set by the kernel), and equal")

# The output-shape rules this family brought (gen.families.OUTPUT_SHAPES).
BOUND_FLAT_RULE = OutputShape("bound_flat", "at most [source.numel()]", data_dependent=True,
                              phrase="at most [{source}.numel()]", header="dynamic_shape.h")
BOUND_NONZERO_RULE = OutputShape("bound_nonzero", "at most [source.numel(), source.dim()]", data_dependent=True,
                                 phrase="at most [{source}.numel(), {source}.dim()]", header="dynamic_shape.h")
BOUND_NONZERO_T_RULE = OutputShape("bound_nonzero_t", "at most [source.dim(), source.numel()]", data_dependent=True,
                                   phrase="at most [{source}.dim(), {source}.numel()]", header="dynamic_shape.h")
BOUND_DIM_RULE = OutputShape("bound_dim", "at most the source's shape ([numel] without dim)", dims_role="dim",
                             data_dependent=True, phrase="at most that of {source} ([{source}.numel()] without {dims})",
                             header="dynamic_shape.h")
BOUND_DIM_LENGTH_RULE = OutputShape("bound_dim_length", "at most [source.size(dim)] ([numel] without dim)",
                                    dims_role="dim", data_dependent=True,
                                    phrase="at most [{source}.size({dims})] ([{source}.numel()] without it)",
                                    header="dynamic_shape.h")
DIM_LENGTH_RULE = OutputShape("dim_length", "[source.size(dim)] (the source's without dim)", dims_role="dim",
                              phrase="[{source}.size({dims})] (that of {source} without it)", header="dynamic_shape.h")
ONE_RULE = OutputShape("one", "[1]", phrase="[1]")
