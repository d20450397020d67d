"""An embedding table's gradient (runtime/sim/src/opapi/families/embedding.cpp): grad's rows added
to out's rows its indices name, nn.Embedding's backward; and its max_norm renormalisation."""

from gen.families.model import Family

EMBEDDING = Family(
    "embedding", "PlanEmbedding",
    ops=("embedding_dense_backward", "embedding_renorm"),
    output_shape="given",
    # embedding_renorm: self's rows named by indices scaled in place to a norm of at most max_norm.
    roles=("grad", "indices", "num_weights", "padding_idx", "scale_grad_by_freq", "out", "self", "max_norm",
           "norm_type"),
    required=("indices",),
    source="grad",
    doc="embedding_dense_backward: out [num_weights, D] sums grad's rows by index (padding_idx's row left 0, "
        "each row scaled by its index's frequency with scale_grad_by_freq), in float (double for DOUBLE); "
        "embedding_renorm: the indexed rows of self renormalised in place (aten's embedding_renorm_)")
