"""torch_npu.npu_top_k_top_p_sample on device="npu": op-plugin calls aclnnTopKTopPSampleV2 (the top_k_top_p family),
which libopapi has, so min_ps, ks_max and input_is_logits apply; checked against V2's page written here, in double.
Per row: topK in [1, min(V, 1024, ks_max rounded up to 8)] keeps the k largest (ties to the lower index) sorted
descending, another topK keeps the row; topP in (0, 1) drops the values whose probability mass before them exceeds
p, topP <= 0 keeps the largest alone; min_ps in (0, 1) drops the values whose probability is below min_ps times the
largest's, min_ps >= 1 keeps the largest alone; the index of the largest kept probability / (q + eps), q read in the
kept order, or of the largest kept probability without q; logits_top_kp_select the kept logits in place, -inf (0 for
probabilities, input_is_logits=False) elsewhere. post_sample="multiNomial": op-plugin draws with aclnnMultinomial
from V2's logitsSortMasked (the kept probabilities) and gathers logitsIdx: the draws land in the kept set alone, with
the kept probabilities' frequencies. Logits not finite, probabilities outside [0, 1], ks_max outside [1, 1024] and
top_k_guess < 1 are refused by name."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

# The page's steps for one row: the kept input indices in the order the kernel reads them, and their probabilities.
REFERENCE = """
    def kept_row(x, k, p, min_p, ks_max, input_is_logits):
        vocab = x.numel()
        by_k = 1 <= k <= min(vocab, 1024, (ks_max + 7) // 8 * 8)
        order = torch.sort(x, descending=True, stable=True).indices if by_k or p < 1 else torch.arange(vocab)
        if by_k:
            order = order[:k]
        probs = x[order].softmax(0) if input_is_logits else x[order]
        if p <= 0:
            order, probs = order[:1], probs[:1]
        elif p < 1:
            keep = (probs.cumsum(0) - probs) <= p
            order, probs = order[keep], probs[keep]
        if min_p >= 1:
            order, probs = order[probs.argmax()].reshape(1), probs[probs.argmax()].reshape(1)
        elif min_p > 0:
            keep = probs >= probs.max() * min_p
            order, probs = order[keep], probs[keep]
        return order, probs

    def reference(logits, top_k, top_p, q, eps, min_ps, ks_max, input_is_logits):
        rows, vocab = logits.shape
        x = logits.double()
        index = torch.empty(rows, dtype=torch.int64)
        kept = torch.full((rows, vocab), float("-inf") if input_is_logits else 0.0)
        for b in range(rows):
            min_p = 0.0 if min_ps is None else float(min_ps[b])
            order, probs = kept_row(x[b], int(top_k[b]), float(top_p[b]), min_p, ks_max, input_is_logits)
            score = probs if q is None else probs / (q[b, :len(order)].double() + eps)
            index[b] = order[score.argmax()]
            kept[b, order] = x[b, order].float()
        return index, kept
"""


def test_top_k_top_p_sample_v2_equals_the_page(run_npu):
    run_npu(REFUSED_BY_NAME + REFERENCE + """
    torch.manual_seed(0)
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        for rows, vocab in ((6, 50), (3, 1500)):
            logits = (torch.randn(rows, vocab) * 3).to(dtype)
            top_k = torch.tensor([1, 7, vocab, -2, 1100, 40][:rows], dtype=torch.int32)
            top_p = torch.tensor([0.5, 0.9, 0.3, 1.0, -0.1, 2.0][:rows]).to(dtype)
            min_ps = torch.tensor([0.0, 0.2, 0.05, 0.5, 1.5, -1.0][:rows]).to(dtype)
            q = torch.rand(rows, vocab) + 0.01
            for q_given, mp, ks_max, need_logits in ((None, None, 1024, True), (q, None, 1024, False),
                                                     (q, min_ps, 1024, True), (None, min_ps, 20, True),
                                                     (q, min_ps, 5, True)):
                want_index, want_kept = reference(logits, top_k, top_p, q_given, 1e-8, mp, ks_max, True)
                index, kept = torch_npu.npu_top_k_top_p_sample(
                    logits.npu(), top_k.npu(), top_p.npu(), q=None if q_given is None else q_given.npu(),
                    is_need_logits=need_logits, min_ps=None if mp is None else mp.npu(), ks_max=ks_max)
                assert torch.equal(index.cpu(), want_index), (dtype, vocab, ks_max, index.cpu(), want_index)
                if need_logits:
                    assert torch.equal(kept.cpu(), want_kept), (dtype, vocab, ks_max)

    # Probabilities as input: no softmax, top-p's mass their plain sum, 0 where dropped.
    probs = torch.rand(4, 64).softmax(-1) * torch.tensor([[1.0], [0.5], [1.0], [1.0]])
    top_k = torch.tensor([10, 0, 64, 3], dtype=torch.int32)
    top_p = torch.tensor([0.3, 0.2, 1.0, 0.9])
    min_ps = torch.tensor([0.6, 0.0, 0.9, 0.0])
    q = torch.rand(4, 64) + 0.01
    for q_given in (None, q):
        want_index, want_kept = reference(probs, top_k, top_p, q_given, 1e-8, min_ps, 1024, False)
        index, kept = torch_npu.npu_top_k_top_p_sample(
            probs.npu(), top_k.npu(), top_p.npu(), q=None if q_given is None else q_given.npu(), is_need_logits=True,
            min_ps=min_ps.npu(), input_is_logits=False)
        assert torch.equal(index.cpu(), want_index), (index.cpu(), want_index)
        assert torch.equal(kept.cpu(), want_kept)

    logits = torch.randn(2, 16).half().npu()
    k, p = torch.tensor([2, 3], dtype=torch.int32).npu(), torch.tensor([0.5, 0.5]).half().npu()
    refused_by_name([
        (lambda: torch_npu.npu_top_k_top_p_sample(logits, k, p, top_k_guess=0), "topKGuess"),
        (lambda: torch_npu.npu_top_k_top_p_sample(logits, k, p, ks_max=0), "ksMax"),
        (lambda: torch_npu.npu_top_k_top_p_sample(logits, k, p, ks_max=1025), "ksMax"),
        (lambda: torch_npu.npu_top_k_top_p_sample(logits.float(), k, p.float(), input_is_logits=False), "inputIsLogits"),
        (lambda: torch_npu.npu_top_k_top_p_sample(torch.tensor([[0.0, float("nan")], [1.0, 2.0]]).half().npu(),
                                                  torch.tensor([1, 1], dtype=torch.int32).npu(), p), "not finite"),
        (lambda: torch_npu.npu_top_k_top_p_sample(logits.float(), k, p.float(), q=torch.rand(2, 16).npu(),
                                                  post_sample="multiNomial"), "isNeedSampleResult"),
    ])
    """)


def test_top_k_top_p_sample_multinomial_draws_from_the_kept_probabilities(run_npu):
    run_npu(REFERENCE + """
    torch.manual_seed(1)
    vocab, repeats = 24, 3000
    # Three filters, each row repeated: every draw must land in its row's kept set, at the kept probabilities.
    base = torch.randn(3, vocab) * 2
    settings = [(5, 0.8, 0.0, True), (-1, 0.6, 0.1, True), (30, 1.0, 0.3, False)]
    for (k, p, min_p, input_is_logits), row in zip(settings, base):
        if not input_is_logits:
            row = row.softmax(0)
        logits = row.repeat(repeats, 1)
        top_k = torch.full((repeats,), k, dtype=torch.int32)
        top_p = torch.full((repeats,), p)
        min_ps = torch.full((repeats,), min_p)
        index, kept = torch_npu.npu_top_k_top_p_sample(
            logits.npu(), top_k.npu(), top_p.npu(), min_ps=min_ps.npu(), is_need_logits=True,
            input_is_logits=input_is_logits, post_sample="multiNomial")
        index = index.cpu()
        order, probs = kept_row(row.double(), k, p, min_p, 1024, input_is_logits)
        assert index.shape == (repeats,)
        assert bool(torch.isin(index, order).all()), (k, p, min_p, sorted(set(index.tolist())), order)
        want = torch.zeros(vocab, dtype=torch.float64)
        want[order] = probs / probs.sum()
        seen = torch.bincount(index, minlength=vocab).double() / repeats
        spread = (want * (1 - want) / repeats).sqrt()
        assert bool(((seen - want).abs() <= 5 * spread + 1e-9).all()), (k, p, min_p, seen, want)
        assert len(order) > 1  # a draw that could only go one way would check nothing
        want_kept = torch.full((repeats, vocab), float("-inf") if input_is_logits else 0.0)
        want_kept[:, order] = logits[:, order]
        assert torch.equal(kept.cpu(), want_kept)
    """)
