"""torch_npu.npu_ffn on device="npu" (op-plugin's aclnnFFNV2: the ffn family, a derived page from the FFN
README) against the README's non-quantised formula written here in PyTorch on the CPU, y = activation(x @ W1
+ b1) @ W2 + b2 in float32, for one expert and for x's rows split among experts by counts (expert_tokens)
or by cumulative ends (expert_tokens_index); and what the sources leave open refused by name: the gated
activations, the (anti)quantised scenarios, BFLOAT16 with innerPrecise 1, experts that do not cover x's rows."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

FFN_REFERENCE = """
    import torch.nn.functional as F

    ACTIVATIONS = {"gelu": lambda h: F.gelu(h, approximate="tanh"), "fastgelu": lambda h: h / (1 + torch.exp(-1.702 * h)),
                   "relu": torch.relu, "silu": F.silu}

    def ffn_reference(x, w1, w2, activation, ends, b1, b2):
        rows = x.float().reshape(-1, x.shape[-1])
        out = torch.zeros(rows.shape[0], w2.shape[-1])
        for e, (start, end) in enumerate(zip([0] + ends[:-1], ends)):
            h = ACTIVATIONS[activation](rows[start:end] @ w1[e].float() + b1[e].float())
            out[start:end] = h @ w2[e].float() + b2[e].float()
        return out.reshape(*x.shape[:-1], w2.shape[-1])
"""


def test_ffn_equals_its_readme_formula(run_npu):
    run_npu(FFN_REFERENCE + """
    torch.manual_seed(0)
    k1, n1 = 32, 24
    for dtype, tolerance in ((torch.float16, 1e-2), (torch.bfloat16, 3e-2)):
        for activation in ACTIVATIONS:
            # one expert over a 3-d x (its rows flattened), biases FLOAT
            x = torch.randn(2, 3, k1).to(dtype)
            w1, w2 = (torch.randn(k1, n1) / 4).to(dtype), (torch.randn(n1, k1) / 4).to(dtype)
            b1, b2 = torch.randn(n1), torch.randn(k1)
            got = torch_npu.npu_ffn(x.npu(), w1.npu(), w2.npu(), activation, bias1=b1.npu(), bias2=b2.npu()).cpu()
            want = ffn_reference(x, w1[None], w2[None], activation, [6], b1[None], b2[None])
            assert got.dtype == dtype and got.shape == x.shape, (got.dtype, got.shape)
            assert torch.allclose(got.float(), want, rtol=tolerance, atol=tolerance), (dtype, activation)
            # four experts, one of them empty, by counts and by cumulative ends; FLOAT16 biases
            ends = [3, 3, 7, 10]
            counts = [b - a for a, b in zip([0] + ends[:-1], ends)]
            x = torch.randn(10, k1).to(dtype)
            w1, w2 = (torch.randn(4, k1, n1) / 4).to(dtype), (torch.randn(4, n1, k1) / 4).to(dtype)
            b1, b2 = torch.randn(4, n1).half(), torch.randn(4, k1).half()
            want = ffn_reference(x, w1, w2, activation, ends, b1, b2)
            for tokens in ({"expert_tokens": counts}, {"expert_tokens_index": ends}):
                got = torch_npu.npu_ffn(x.npu(), w1.npu(), w2.npu(), activation, bias1=b1.npu(), bias2=b2.npu(),
                                        **tokens).cpu()
                assert torch.allclose(got.float(), want, rtol=tolerance, atol=tolerance), (dtype, activation, tokens)
    # innerPrecise 1 (FLOAT16's high-performance mode, torch_npu's example) computes without biases
    x, w1, w2 = torch.randn(4, k1).half(), (torch.randn(k1, n1) / 4).half(), (torch.randn(n1, k1) / 4).half()
    got = torch_npu.npu_ffn(x.npu(), w1.npu(), w2.npu(), "fastgelu", inner_precise=1).cpu()
    want = ffn_reference(x, w1[None], w2[None], "fastgelu", [4], torch.zeros(1, n1), torch.zeros(1, k1))
    assert torch.allclose(got.float(), want, rtol=1e-2, atol=1e-2)
    """)


def test_ffn_refuses_what_its_sources_leave_open_by_name(run_npu):
    run_npu(REFUSED_BY_NAME + """
    k1, n1 = 16, 8
    x, w1, w2 = torch.randn(6, k1).half().npu(), torch.randn(k1, n1).half().npu(), torch.randn(n1, k1).half().npu()
    gated_w1 = torch.randn(k1, 2 * n1).half().npu()
    experts_w1, experts_w2 = torch.randn(2, k1, n1).half().npu(), torch.randn(2, n1, k1).half().npu()
    deq = torch.ones(n1, dtype=torch.int64).npu()
    calls = [
        (lambda: torch_npu.npu_ffn(x, gated_w1, w2, "swiglu"), ("aclnnFFNV2", "swiglu")),
        (lambda: torch_npu.npu_ffn(x, gated_w1, w2, "geglu"), ("aclnnFFNV2", "geglu")),
        (lambda: torch_npu.npu_ffn(x, w1, w2, "tanh"), ("aclnnFFNV2", "activation")),
        (lambda: torch_npu.npu_ffn(x, w1, w2, "relu", deq_scale1=deq, deq_scale2=deq), ("aclnnFFNV2", "deqScale1")),
        (lambda: torch_npu.npu_ffn(x.bfloat16(), w1.bfloat16(), w2.bfloat16(), "relu", inner_precise=1),
         ("aclnnFFNV2", "innerPrecise")),
        (lambda: torch_npu.npu_ffn(x, experts_w1, experts_w2, "relu", expert_tokens=[2, 3]), ("aclnnFFNV2", "expertTokens")),
        (lambda: torch_npu.npu_ffn(x, experts_w1, experts_w2, "relu", expert_tokens_index=[4, 2]),
         ("aclnnFFNV2", "expertTokens")),
    ]
    refused_by_name(calls)
    """)
