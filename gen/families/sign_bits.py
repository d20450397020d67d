"""1-bit Adam's sign packing (runtime/sim/src/opapi/families/sign_bits.cpp): aclnnSignBitsPack and
aclnnSignBitsUnpack (torch_npu.npu_sign_bits_pack / npu_sign_bits_unpack)."""

from gen.families.model import Family, Op

SIGN_BITS = Family(
    "sign_bits", "PlanSignBits",
    # unpack's out has the dtype its dtype argument names, not the packed bytes' UINT8: the golden's.
    # pack's out is the packed bytes whatever self's dtype.
    ops=(Op("pack", dtypes={"out": "UINT8"}), Op("unpack", result_dtype=True)),
    output_shape="given",
    exact=True,
    roles=("self", "size", "out_dtype", "out"),
    required=("self", "size", "out"),
    doc="pack: bit k of byte j of out [size, -1] (UINT8) is whether self[8 j + k] >= 0, the tail padded with 0 "
        "bits; unpack: out [size, -1] = +1 where the bit is set, -1 where not, bits from the lowest")
