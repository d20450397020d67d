"""torch_npu.npu_top_k_top_p_sample (op-plugin's aclnnTopKTopPSample where libopapi has no V2: the top_k_top_p
family) on device="npu" against aclnnTopKTopPSample's page written here, in double: per row the top k (k in [1,
min(V, 1024)], ties to the lower index; a larger k keeps the row) sorted descending, top-p dropping the values whose
softmax mass before them exceeds p (p < 1), then the index of the largest kept softmax / (q + eps), q read in that
sorted order, or of the largest kept logit without q; logits_top_kp_select the kept logits in place, -inf elsewhere.
topK or topP <= 0, which the page says cause unexpected errors, and logits that are not finite are refused by
name."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_top_k_top_p_sample_equals_the_page(run_npu):
    run_npu(REFUSED_BY_NAME + """
    def reference(logits, top_k, top_p, q, eps):
        rows, vocab = logits.shape
        x = logits.double()
        index = torch.empty(rows, dtype=torch.int64)
        kept = torch.full((rows, vocab), float("-inf"))
        for b in range(rows):
            k, p = int(top_k[b]), float(top_p[b])
            by_k = k <= min(vocab, 1024)
            order = torch.sort(x[b], descending=True, stable=True).indices if by_k or p < 1 else torch.arange(vocab)
            if by_k:
                order = order[:k]
            values = x[b, order]
            if p < 1:
                probs = values.softmax(0)
                order = order[(probs.cumsum(0) - probs) <= p]
                values = x[b, order]
            score = (values - values.max()).exp()
            if q is not None:
                score = score / (q[b, :len(order)].double() + eps)
            index[b] = order[score.argmax()]
            kept[b, order] = values.float()
        return index, kept

    torch.manual_seed(0)
    for dtype in (torch.float16, torch.bfloat16):
        for rows, vocab in ((6, 50), (3, 1500)):
            logits = (torch.randn(rows, vocab) * 3).to(dtype)
            top_k = torch.tensor([1, 7, vocab, vocab + 5, 1100, 40][:rows], dtype=torch.int32)
            top_p = torch.tensor([0.5, 0.9, 0.3, 1.0, 0.7, 2.0][:rows]).to(dtype)
            q = torch.rand(rows, vocab) + 0.01
            for q_given in (None, q):
                for need_logits in (True, False):
                    want_index, want_kept = reference(logits, top_k, top_p, q_given, 1e-8)
                    index, kept = torch_npu.npu_top_k_top_p_sample(
                        logits.npu(), top_k.npu(), top_p.npu(), q=None if q_given is None else q_given.npu(),
                        is_need_logits=need_logits)
                    assert torch.equal(index.cpu(), want_index), (dtype, vocab, q_given is None, index.cpu(), want_index)
                    if need_logits:
                        assert torch.equal(kept.cpu(), want_kept), (dtype, vocab)

    logits = torch.randn(2, 16).half().npu()
    refused_by_name([
        (lambda: torch_npu.npu_top_k_top_p_sample(logits, torch.tensor([0, 3], dtype=torch.int32).npu(),
                                                  torch.tensor([0.5, 0.5]).half().npu()), "topK"),
        (lambda: torch_npu.npu_top_k_top_p_sample(logits, torch.tensor([2, 3], dtype=torch.int32).npu(),
                                                  torch.tensor([0.5, 0.0]).half().npu()), "topP"),
        (lambda: torch_npu.npu_top_k_top_p_sample(logits, torch.tensor([2, 3], dtype=torch.int32).npu(),
                                                  torch.tensor([0.5, 0.5]).half().npu(), top_k_guess=0), "topKGuess"),
        (lambda: torch_npu.npu_top_k_top_p_sample(torch.tensor([[0.0, float("nan")], [1.0, 2.0]]).half().npu(),
                                                  torch.tensor([1, 1], dtype=torch.int32).npu(),
                                                  torch.tensor([0.5, 0.5]).half().npu()), "not finite"),
    ])
    """)
