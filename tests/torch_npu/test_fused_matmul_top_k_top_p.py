"""torch_npu.npu_fused_matmul (op-plugin's aclnnFusedMatmul: the matmul family's fused epilogues) and
torch_npu.npu_top_k_top_p (aclnnApplyTopKTopP: the top_k_top_p family) on device="npu" equal the
pages' formulas computed by PyTorch on the CPU."""


def test_npu_fused_matmul_equals_the_cpu(run_npu):
    run_npu("""
        F = torch.nn.functional
        x1, x2, bias, x3 = torch.randn(4, 8), torch.randn(8, 5), torch.randn(5), torch.randn(4, 5)
        product = x1 @ x2
        cases = {
            "": (dict(bias=bias), product + bias),
            "relu": (dict(bias=bias), torch.relu(product + bias)),
            "add": (dict(bias=bias, x3=x3), product + bias + x3),
            "mul": (dict(x3=x3), product * x3),
            "gelu_tanh": ({}, F.gelu(product, approximate="tanh")),
            "gelu_erf": ({}, F.gelu(product)),
        }
        for kind, (extra, want) in cases.items():
            got = torch_npu.npu_fused_matmul(x1.npu(), x2.npu(), fused_op_type=kind,
                                             **{k: v.npu() for k, v in extra.items()}).cpu()
            assert torch.allclose(got, want, rtol=1e-4, atol=1e-5), kind
        try:
            torch_npu.npu_fused_matmul(x1.npu(), x2.npu(), fused_op_type="swish").cpu()
        except RuntimeError as e:
            assert "161002" in str(e), e
        else:
            raise AssertionError("an unknown fused_op_type computed")
    """, env={"ACLNN_SIM_SOC": "Ascend950"})  # the page supports Ascend 950 alone


def test_npu_top_k_top_p_equals_the_cpu(run_npu):
    run_npu("""
        logits = torch.randn(4, 32)
        p = torch.tensor([0.3, 0.5, 0.9, 1.0])
        k = torch.tensor([1, 5, 20, 32], dtype=torch.int32)
        order = torch.sort(logits, dim=-1, stable=True)
        values = order.values.masked_fill(order.values < order.values.gather(-1, (32 - k.long()).unsqueeze(-1)), float("-inf"))
        drop = values.softmax(-1).cumsum(-1) <= 1 - p.unsqueeze(-1)
        drop[:, -1] = False
        want = torch.empty_like(logits).scatter_(-1, order.indices, values.masked_fill(drop, float("-inf")))
        got = torch_npu.npu_top_k_top_p(logits.npu(), p.npu(), k.npu()).cpu()
        assert torch.equal(torch.isinf(got), torch.isinf(want)) and torch.allclose(got, want), (got, want)
    """)
