"""Native Sparse Attention's key/value compression (runtime/sim/src/opapi/families/nsa_compress.cpp):
aclnnNsaCompress and aclnnNsaCompressGrad, which torch_npu.npu_nsa_compress and npu_nsa_compress_grad reach
(op_plugin_functions.yaml's gen_opapi, layout "TND", actSeqLenType 0)."""

from gen.families.model import Family

NSA_COMPRESS = Family(
    "nsa_compress", "PlanNsaCompress",
    ops=("compress", "compress_grad"),
    output_shape="given",
    roles=("input", "weight", "seq_lens", "layout", "block_size", "stride", "seq_len_type", "out", "grad",
           "input_grad", "weight_grad"),
    required=("input", "weight"),
    source="input",
    doc="per sequence of s tokens (seq_lens' cumulative ends) and head n, window i in [0, (s - l) / d] (none when "
        "s < l): out[i, n, :] = sum over j < l of weight[j, n] * input[i * d + j, n, :], l compressBlockSize and d "
        "compressStride, the sequences' windows one after another; its gradient: grad's row i weighed by weight[j, n] "
        "added to input row i * d + j, and weight_grad[j, n] the sum of grad[i, n, :] . input[i * d + j, n, :]; TND "
        "only, in float with double accumulation")
