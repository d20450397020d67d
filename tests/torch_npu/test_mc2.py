"""torch_npu's mc2 operators (a matmul fused with an HCCL collective) over torch.distributed's one-rank
HCCL process group on the simulator: npu_mm_all_reduce_base reaches aclnnMatmulAllReduce (V2 with x3)
and equals the page's formula on the CPU, allreduce(x1 @ x2 + bias + x3) of one rank being its own
value; what one rank cannot be (torch_npu's reduce-scatter and all-gather ask a world_size of 2 or
more and size their outputs by it), a group no communicator has and the values the pages leave
unsupported are refused by name."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

SETUP = REFUSED_BY_NAME + """
    import os, socket
    import torch.distributed as dist
    with socket.socket() as probe:            # a free port of this machine: runs may overlap
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch_npu.npu.set_device(0)               # as torch_npu's documented example does first
    dist.init_process_group("hccl", rank=0, world_size=1)
    pg = dist.distributed_c10d._get_default_group()
    hcom = pg._get_backend(torch.device("npu")).get_hccl_comm_name(0)
"""


def test_mm_all_reduce_equals_the_cpu(run_npu):
    run_npu(SETUP + """
    torch.manual_seed(0)
    for dtype in (torch.float16, torch.bfloat16):
        for shape in ((6, 16), (2, 3, 16)):
            x1, x2 = torch.randn(*shape).to(dtype), torch.randn(16, 8).to(dtype)
            bias, x3 = torch.randn(8).to(dtype), torch.randn(*shape[:-1], 8).to(dtype)
            product = x1.float() @ x2.float()
            cases = (({}, product), (dict(bias=bias), product + bias.float()),
                     (dict(bias=bias, x3=x3), product + bias.float() + x3.float()), (dict(x3=x3), product + x3.float()))
            for extra, want in cases:
                got = torch_npu.npu_mm_all_reduce_base(x1.npu(), x2.npu(), hcom, reduce_op="sum",
                                                       **{k: v.npu() for k, v in extra.items()}).cpu()
                assert got.dtype == dtype and got.shape == want.shape, (got.dtype, got.shape)
                tol = 1e-2 if dtype == torch.float16 else 4e-2
                assert torch.allclose(got.float(), want, rtol=tol, atol=tol), (dtype, shape, list(extra))
    print("mm_all_reduce ok")
    """)


def test_quant_mm_all_reduce_equals_the_cpu(run_npu):
    # INT8 x1 and x2: aclnnQuantMatmulAllReduce (V2 with pertoken_scale), dequant(x1 @ x2 + bias) + x3.
    output = run_npu(SETUP + """
    g = torch.Generator().manual_seed(0)
    x1 = torch.randint(-128, 128, (6, 32), generator=g, dtype=torch.int8)
    x2 = torch.randint(-128, 128, (32, 8), generator=g, dtype=torch.int8)
    bias = torch.randint(-1000, 1000, (8,), generator=g, dtype=torch.int32)
    scale = (torch.rand(8, generator=g) * 0.001 + 0.0001).bfloat16()
    pertoken = torch.rand(6, generator=g) * 0.5 + 0.5
    x3 = torch.randn(6, 8, generator=g).bfloat16()
    acc = x1.double() @ x2.double()
    cases = ((dict(dequant_scale=scale), acc.float() * scale.float()),
             (dict(dequant_scale=scale, bias=bias, x3=x3), (acc + bias.double()).float() * scale.float() + x3.float()),
             (dict(dequant_scale=scale, pertoken_scale=pertoken, x3=x3),
              acc.float() * scale.float() * pertoken[:, None] + x3.float()))
    for extra, want in cases:
        got = torch_npu.npu_mm_all_reduce_base(x1.npu(), x2.npu(), hcom, **{k: v.npu() for k, v in extra.items()}).cpu()
        assert got.dtype == torch.bfloat16, got.dtype
        assert torch.allclose(got.float(), want.bfloat16().float(), rtol=1e-2, atol=1e-2), list(extra)
    print("quant ok")
    """)
    assert "quant ok" in output, output


def test_weight_quant_mm_all_reduce_equals_the_cpu(run_npu):
    # An INT8 x2 alone: aclnnWeightQuantMatmulAllReduce, x1 @ ((x2 + offset) * scale) + bias + x3. Its page
    # marks the A2 and A3 products unsupported: computed on Ascend 950, refused by name on Ascend910B.
    script = SETUP + """
    g = torch.Generator().manual_seed(0)
    a = torch.randn(6, 64, generator=g).half()
    w = torch.randint(-128, 128, (64, 8), generator=g, dtype=torch.int8)
    a_scale, a_offset = torch.rand(8, generator=g).half() * 0.02, torch.randn(8, generator=g).half()
    g_scale = torch.rand(2, 8, generator=g).half() * 0.02
    y3 = torch.randn(6, 8, generator=g).half()
    cases = ((dict(antiquant_scale=a_scale), a.float() @ (w.float() * a_scale.float())),
             (dict(antiquant_scale=a_scale, antiquant_offset=a_offset, x3=y3),
              a.float() @ ((w.float() + a_offset.float()) * a_scale.float()) + y3.float()),
             (dict(antiquant_scale=g_scale, antiquant_group_size=32),
              a.float() @ (w.float() * g_scale.float().repeat_interleave(32, 0))))
    for extra, want in cases:
        got = torch_npu.npu_mm_all_reduce_base(a.npu(), w.npu(), hcom, **{k: v.npu() if torch.is_tensor(v) else v
                                                                          for k, v in extra.items()}).cpu()
        assert got.dtype == torch.float16, got.dtype
        assert torch.allclose(got.float(), want, rtol=1e-2, atol=1e-2), list(extra)
    print("weight quant ok")
    """
    assert "weight quant ok" in run_npu(script, env={"ACLNN_SIM_SOC": "Ascend950"})
    refused = run_npu(SETUP + """
    a, w = torch.randn(6, 64).half().npu(), torch.randint(-128, 128, (64, 8), dtype=torch.int8).npu()
    scale = torch.rand(8).half().npu()
    refused_by_name([(lambda: torch_npu.npu_mm_all_reduce_base(a, w, hcom, antiquant_scale=scale),
                      ["aclnnWeightQuantMatmulAllReduce", "Ascend910B"])])
    print("refused ok")
    """)
    assert "refused ok" in refused, refused


def test_mc2_refusals(run_npu):
    output = run_npu(SETUP + """
    x1, x2 = torch.randn(8, 16).half().npu(), torch.randn(16, 4).half().npu()
    refused_by_name([
        # the pages support "sum" alone
        (lambda: torch_npu.npu_mm_all_reduce_base(x1, x2, hcom, reduce_op="max"), ["reduceOp", '"max"']),
        (lambda: torch_npu.npu_mm_all_reduce_base(x1, x2, hcom, comm_turn=2), "commTurn"),
        # a group string no communicator of the process has
        (lambda: torch_npu.npu_mm_all_reduce_base(x1, x2, "no_such_group"), ["group", "no live communicator"]),
        # torch_npu sizes these outputs by its world_size (2 at least): one rank's results differ
        (lambda: torch_npu.npu_mm_reduce_scatter_base(x1, x2, hcom, 2), ["output", "one rank"]),
        (lambda: torch_npu.npu_all_gather_base_mm(x1, x2, hcom, 2), ["output", "one rank"]),
    ])
    print("refusals ok")
    """)
    assert "refusals ok" in output, output
