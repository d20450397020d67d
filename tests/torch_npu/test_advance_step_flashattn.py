"""torch_npu.npu_advance_step_flashattn on device="npu" without speculative tokens (op-plugin's aclnnAdvanceStep: the
advance_step family) against vLLM's advance_step_flashattn, which torch_npu documents the op as, written here element
by element on the CPU: for each query i with n = seq_lens[i], input_tokens[i] the sampled token, input_positions[i] = n,
seq_lens[i] = n + 1, slot_mapping[i] = block_tables[i, n // block_size] * block_size + n % block_size, the sequences
past num_queries untouched; and the page's shape rules and the block table's bound refused by name."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_npu_advance_step_flashattn_is_vllms_decode_step(run_npu):
    run_npu("""
    g = torch.Generator().manual_seed(11)
    for num_seqs, num_queries, block_size in ((16, 8, 8), (5, 4, 16), (3, 1, 1)):
        seq_lens = torch.randint(0, 40, (num_seqs,), generator=g)
        block_tables = torch.randint(0, 1000, (num_seqs, int(seq_lens.max()) // block_size + 1), generator=g)
        tokens = torch.randint(0, 100, (num_seqs,), generator=g)
        sampled = torch.randint(0, 100, (num_queries, 1), generator=g)
        positions = torch.randint(0, 100, (num_seqs,), generator=g)
        slots = torch.randint(0, 100, (num_seqs,), generator=g)
        want = [t.clone() for t in (tokens, positions, seq_lens, slots)]
        for i in range(num_queries):
            n = int(seq_lens[i])
            want[0][i] = sampled[i, 0]
            want[1][i] = n
            want[2][i] = n + 1
            want[3][i] = block_tables[i, n // block_size] * block_size + n % block_size
        got = [t.npu() for t in (tokens, positions, seq_lens, slots)]
        torch_npu.npu_advance_step_flashattn(got[0], sampled.npu(), got[1], got[2], got[3], block_tables.npu(),
                                             num_seqs, num_queries, block_size)
        for name, g_, w in zip(("input_tokens", "input_positions", "seq_lens", "slot_mapping"), got, want):
            assert torch.equal(g_.cpu(), w), (name, num_seqs, g_.cpu(), w)
    """)


def test_npu_advance_step_flashattn_refuses_what_its_page_excludes_by_name(run_npu):
    run_npu(REFUSED_BY_NAME + """
    def call(num_seqs=4, num_queries=2, block_size=4, lens=(3, 5, 0, 1), sampled_rows=2, blocks=2):
        t = lambda n: torch.zeros(n, dtype=torch.int64).npu()
        return lambda: torch_npu.npu_advance_step_flashattn(
            t(4), torch.ones(sampled_rows, 1, dtype=torch.int64).npu(), t(4), torch.tensor(lens).npu(), t(4),
            torch.ones(4, blocks, dtype=torch.int64).npu(), num_seqs, num_queries, block_size)
    refused_by_name([
        (call(num_seqs=2, num_queries=2, lens=(3, 5), sampled_rows=2), "numSeqs"),   # numSeqs must exceed numQueries
        (call(num_seqs=5), "numSeqs"),                                               # tensors of 4, not numSeqs
        (call(sampled_rows=3), "sampledTokenIds"),                                   # not [numQueries, 1]
        (call(lens=(3, 8, 0, 1)), "blockTables"),                                    # block 8 // 4 past 2 blocks
        (call(lens=(-1, 5, 0, 1)), "seqLens"),
    ])
    """)
