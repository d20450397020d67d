"""vLLM's decode-step bookkeeping (runtime/sim/src/opapi/families/advance_step.cpp): aclnnAdvanceStep, which
torch_npu.npu_advance_step_flashattn reaches without spec_token and accepted_num (op-plugin's
AdvanceStepKernelNpuOpApi.cpp)."""

from gen.families.model import Family, Op

ADVANCE_STEP = Family(
    "advance_step", "PlanAdvanceStep",
    ops=(Op("advance_step", exact=True),),
    output_shape="given",
    # Every tensor is updated in place (tokens, positions, seq_lens, slots) or read (sampled, block_tables).
    roles=("tokens", "sampled", "positions", "seq_lens", "slots", "block_tables", "num_seqs", "num_queries",
           "block_size"),
    required=("tokens", "sampled", "positions", "seq_lens", "slots", "block_tables"),
    source="seq_lens",
    doc="for each query i < num_queries, with n = seq_lens[i]: tokens[i] = sampled[i, 0], positions[i] = n, seq_lens[i] = "
        "n + 1, slots[i] = block_tables[i, n // block_size] * block_size + n % block_size; the sequences past the queries "
        "kept (vLLM's advance_step_flashattn, which torch_npu documents the op as)")
