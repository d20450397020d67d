"""The advanced family (runtime/sim/src/opapi/families/advanced.cpp): its row of gen.families."""

from gen.families.model import Family, Op

ADVANCED = Family(
    "advanced", "PlanAdvanced",
    # index: self[indices] (a list of position tensors, masks, and [0]-shaped stand-ins for a
    # whole dimension); index_put: self[indices] = values (or += with accumulate);
    # masked_scatter: self's masked positions take source's elements in order; put: positions
    # of self read as one row (index) take values' elements.
    # index_fill: self's slices along dim at index's positions (a tensor: outside ones skipped,
    # as the page says; an int array: checked in phase 1) set to the scalar value.
    # scatter_nd_update: the rows of index's last dimension are positions in self's leading
    # dimensions, whose slices take values' (torch_npu.npu_scatter_nd_update).
    # scatter_update: batch i's updates go to self's batch i from position index[i] along dim
    # (torch_npu.npu_scatter_update, a KV cache's write).
    ops=(Op("index", shape="given", exact=True), "index_put", Op("masked_scatter", exact=True), "put",
         Op("index_fill", exact=True), Op("scatter_nd_update", exact=True),
         # updates' dimensions but the batch and dim's are self's: another dim alone is no valid call.
         Op("scatter_update", exact=True, shape_arguments=("dim",))),
    roles=("self", "indices", "index", "values", "accumulate", "dim", "value", "out"),
    required=("self",),
    doc="PyTorch's advanced indexing: gathers by a list of index tensors and masks, and writes "
        "(replacing or accumulating) through them; masked_scatter, put, index_fill, scatter_nd_update and scatter_update")
