"""Rotary position embedding from a cache of cos and sin gathered by position (runtime/sim/src/opapi/families/
rope_cache.cpp): aclnnRopeWithSinCosCache, which torch_npu.npu_mrope reaches (op-plugin's
RopeWithSinCosCacheKernelNpuOpApi.cpp, where the library has no V2), in rope and multimodal (mrope) modes."""

from gen.families.model import Family, Op

ROPE_CACHE = Family(
    "rope_cache", "PlanRopeCache",
    ops=(Op("rope_with_cache"),),
    output_shape="given",
    # cache: [maxSeqLen, rotaryDim], each row cos then sin; sections: the mrope sections of rotaryDim / 2 (all 0:
    # rope mode); neox: rotate_half (true) or rotate_interleaved (false).
    roles=("positions", "query", "key", "cache", "sections", "head_size", "neox", "query_out", "key_out"),
    required=("positions", "query", "key", "cache", "query_out", "key_out"),
    source="query",
    role_dtype_sources={"key_out": ("key",)},
    doc="per token t and head, the first rotaryDim elements of query and key rotated by cos, sin = cache[positions[t]] "
        "halved (mrope: section s of the halves from positions[s, t]): rotate_half o1 = x1 cos - x2 sin, o2 = x2 cos + "
        "x1 sin over the halves x1, x2, or the same over the even and odd elements, interleaved back; the rest of each "
        "head copied; in float")
