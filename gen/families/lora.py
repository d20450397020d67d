"""LoRA adapters applied per row (runtime/sim/src/opapi/families/lora.cpp): aclnnAddLora, which
torch_npu.npu_batch_gather_matmul (and its in-place form) reaches."""

from gen.families.model import Family

LORA = Family(
    "lora", "PlanLora",
    ops=("add_lora",),
    roles=("y", "x", "weight_b", "indices", "weight_a", "layer_idx", "scale", "y_offset", "y_slice_size", "out"),
    required=("y", "x", "weight_b", "indices", "out"),
    source="y",
    doc="add_lora: out = y with out[b, y_offset : y_offset + y_slice_size] += scale * (x[b] @ weight_a[i, layer]^T) "
        "@ weight_b[i, layer]^T, i = indices[b] (x[b] itself without weight_a), in float")
