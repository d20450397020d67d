"""Tensors cut into chunks along dim 0 and the chunks concatenated row by row
(runtime/sim/src/opapi/families/chunk_cat.cpp): aclnnChunkCat, which torch._chunk_cat reaches
through op-plugin."""

from gen.families.model import Family

CHUNK_CAT = Family(
    "chunk_cat", "PlanChunkCat",
    ops=("chunk_cat",),
    output_shape="given",
    exact=True,
    roles=("tensors", "dim", "num_chunks", "out"),
    required=("tensors", "out"),
    source="tensors",
    doc="chunk_cat: out [num_chunks, ...] whose row c holds chunk c (ceil(S / num_chunks) rows along dim 0, "
        "zero-padded) of each tensor, flattened, one after the other, in out's dtype")
