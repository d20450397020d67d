"""Native Sparse Attention's key/value compression (runtime/sim/src/opapi/families/nsa_compress.cpp):
aclnnNsaCompress and aclnnNsaCompressGrad, which torch_npu.npu_nsa_compress and npu_nsa_compress_grad reach
(op_plugin_functions.yaml's gen_opapi, layout "TND", actSeqLenType 0), and the inference form that writes one
compressed row per batch into a cache, aclnnNsaCompressWithCache (npu_nsa_compress_infer.cache, actSeqLenType 1)."""

from gen.families.model import Family

NSA_COMPRESS = Family(
    "nsa_compress", "PlanNsaCompress",
    ops=("compress", "compress_grad", "compress_cache"),
    output_shape="given",
    roles=("input", "weight", "seq_lens", "layout", "block_size", "stride", "seq_len_type", "out", "grad",
           "input_grad", "weight_grad", "slots", "block_table", "page_block"),
    required=("input", "weight"),
    source="input",
    doc="per sequence of s tokens (seq_lens' cumulative ends) and head n, window i in [0, (s - l) / d] (none when "
        "s < l): out[i, n, :] = sum over j < l of weight[j, n] * input[i * d + j, n, :], l compressBlockSize and d "
        "compressStride, the sequences' windows one after another; its gradient: grad's row i weighed by weight[j, n] "
        "added to input row i * d + j, and weight_grad[j, n] the sum of grad[i, n, :] . input[i * d + j, n, :]; TND "
        "only, in float with double accumulation; compress_cache: each batch b whose s = seq_lens[b] tokens (per "
        "batch) have s >= l and (s - l) % d == 0 gets out[slots[b]] = its window (s - l) / d, its tokens read "
        "through block_table's blocks of page_block rows (or packed TND without one), the other rows of out kept")
