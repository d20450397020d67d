"""The coalescing of a sparse COO tensor's duplicate indices (runtime/sim/src/opapi/families/coalesce.cpp):
aclnnCoalesceSparse, which op-plugin's _coalesce_sparse calls with its own torch.unique of the flattened
indices. Its page is op_docs/derived/."""

from gen.families.model import Family

COALESCE = Family(
    "coalesce", "PlanCoalesce",
    # newIndices [M, ndim] and newValues [M, ...], M uniqueLen's length: a rule the bindings do not know.
    ops=("coalesce_sparse",),
    roles=("unique_len", "unique_indices", "indices", "values", "new_indices", "new_values"),
    required=("unique_len", "unique_indices", "indices", "values", "new_indices", "new_values"),
    output_shape="given",
    source="values",
    doc="coalesce_sparse: newIndices[uniqueIndices[i]] = indices[i], newValues[j] the sum of the values that "
        "uniqueIndices sends to j, in the values' dtype")
