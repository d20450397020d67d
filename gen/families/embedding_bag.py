"""Bags of embedding rows summed or averaged (runtime/sim/src/opapi/families/embedding_bag.cpp):
aclnnEmbeddingBag, which F.embedding_bag and nn.EmbeddingBag reach through op-plugin."""

from gen.families.model import Family, Op

EMBEDDING_BAG = Family(
    "embedding_bag", "PlanEmbeddingBag",
    # includeLastOffset drops a bag: the outputs' shapes follow it.
    ops=(Op("embedding_bag", shape_arguments=("include_last_offset",)),),
    output_shape="given",
    roles=("weight", "indices", "offsets", "scale_grad_by_freq", "mode", "sparse", "per_sample_weights",
           "include_last_offset", "padding_idx", "output", "offset2bag", "bag_size", "max_indices"),
    required=("weight", "indices", "offsets", "output", "offset2bag", "bag_size", "max_indices"),
    source="weight",
    role_dtype_sources={r: ("indices", "offsets") for r in ("offset2bag", "bag_size", "max_indices")},
    doc="embedding_bag: per bag (indices between consecutive offsets), the sum (mode 0, rows weighted by "
        "per_sample_weights) or mean (mode 1) of weight's rows its indices name, padding_idx's left out; "
        "offset2bag, bag_size and max_indices as aten's CPU _embedding_bag gives them; in float")
