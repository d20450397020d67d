"""The explained differences of the per-op suites' sweeps (host_code.NN_SUITE for nn_suite_sweep.py,
host_code.TENSOR_SUITE for tensor_suite_sweep.py), one call each on Ascend910, where every one applies:
each result differs from PyTorch's and equals the explanation's CPU model. A test fails when torch_npu or
the simulator starts giving PyTorch's result (the explanation is stale and must go) or another one (the
model is wrong, or the simulator is)."""

from pathlib import Path

HERE = Path(__file__).resolve().parent

SCRIPT = f"""
    import sys
    sys.path.insert(0, {str(HERE)!r})
    import torch
    import torch.nn.functional as F
    from host_code import NN_SUITE, TENSOR_SUITE
    from opinfo_compare import differs, to

    def widened(inputs):
        return [x.float() if isinstance(x, torch.Tensor) and x.dtype == torch.float16 else x for x in inputs]

    def results(fn, inputs, backward, grads=None):
        # The first `grads` inputs (all: None) get gradients where floating, as the suite's "f" inputs.
        leaves = [x.detach().clone().requires_grad_(backward and x.is_floating_point() and (grads is None or k < grads))
                  for k, x in enumerate(inputs)]
        out = fn(*leaves)
        if not backward:
            return [o.detach() for o in (out if isinstance(out, (tuple, list)) else [out])]
        out.backward(torch.ones_like(out))
        return [x.grad for x in leaves if x.requires_grad]

    def pytorch(fn, inputs, backward, grads):
        # As the suites compute it: float16 in float32, the result rounded to PyTorch's own dtype.
        native = results(fn, inputs, backward, grads)
        return [w.to(n.dtype) for w, n in zip(results(fn, widened(inputs), backward, grads), native)]

    def npu(fn, inputs, backward, grads):
        return [r.cpu() for r in results(fn, to(list(inputs), "npu"), backward, grads)]

    def bn_train(x, w, b):
        stats = (torch.zeros(x.shape[1], dtype=x.dtype, device=x.device),
                 torch.ones(x.shape[1], dtype=x.dtype, device=x.device))
        return F.batch_norm(x, *stats, w, b, training=True, momentum=0.1, eps=1e-5), *stats

    def kthvalue_and_gradient(a):  # as the suite's backward cases: the output and the input's gradient
        leaf = a.detach().clone().requires_grad_(True)
        out = torch.kthvalue(leaf, 2, 1)[0]
        out.backward(torch.arange(out.numel(), dtype=out.dtype, device=out.device))
        return out.detach(), leaf.grad

    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 5)
    half = lambda *shape: torch.randn(*shape).half()
    nan_self = torch.randn(4, 5)
    nan_self[1, 2] = float("nan")
    cross_entropy = lambda x, t, w: F.cross_entropy(x, t, w, label_smoothing=0.2, ignore_index=0)
    target = torch.tensor([0, 1, 2, 3, 4, 0])
    CONSTANTS = {{("cross_entropy_ls_weight", True): 1}}  # inputs differentiated, where not all ("c" inputs)
    # The results an explanation is about, where not all (the others are aten's, up to the device's rounding).
    EXPLAINED = {{("group_norm", True): [1]}}
    NN = [  # (key, the suite's function, inputs)
        (("gelu", False), F.gelu, [x]),
        (("gelu_out", False), lambda x: torch._C._nn.gelu(x, out=torch.empty_like(x)), [x]),
        (("gelu_tanh", True), lambda x: F.gelu(x, approximate="tanh"), [x]),
        (("batch_norm_train", False), bn_train, [half(2, 3, 4, 5), torch.rand(3).half() + 0.5, half(3)]),
        (("avg_pool2d_divisor", True), lambda x: F.avg_pool2d(x, 2, divisor_override=3), [torch.randn(2, 3, 9, 8)]),
        (("cross_entropy_ls_weight", False), cross_entropy, [torch.randn(6, 5), target, torch.rand(5) + 0.2]),
        (("cross_entropy_ls_weight", True), cross_entropy, [torch.randn(6, 5), target, torch.rand(5) + 0.2]),
        (("group_norm", True), lambda x, w, b: F.group_norm(x, 3, w, b), [half(2, 6, 7), torch.rand(6).half() + 0.5, half(6)]),
    ]
    TENSOR = [  # (test, the check's function, inputs)
        ("test_add_scalar", lambda a: a + 3.7, [half(4, 5) * 5]),
        ("test_lerp", lambda a, b: torch.lerp(a, b, 0.3), [half(4, 5) * 5, half(4, 5) * 5]),
        ("test_cumsum_cumprod", lambda a: torch.cumsum(a, 0), [torch.randint(-10, 10, (4, 5), dtype=torch.int32)]),
        ("test_integer_reduction_dtypes", lambda a: a.cumsum(0), [torch.randint(0, 10, (4, 5), dtype=torch.int8)]),
        ("test_cumsum_cumprod_dtypes", lambda a: torch.cumsum(a, 1), [torch.randint(0, 100, (3, 8), dtype=torch.uint8)]),
        ("test_all_any", lambda a: torch.all(a), [torch.randint(0, 3, (4, 5), dtype=torch.uint8)]),
        ("test_exp2_int", torch.exp2, [torch.randint(-3, 10, (4, 5), dtype=torch.int32)]),
        ("test_kthvalue", lambda a: torch.kthvalue(a, 2), [torch.randn(4, 5) * 3]),
        ("test_backward_indexing", kthvalue_and_gradient, [torch.randn(6, 5) * 2]),
        ("test_addmm", lambda a, b, c: torch.addmm(a, b, c, beta=0.5, alpha=2), [half(4, 5), half(4, 6), half(6, 5)]),
        ("test_addbmm_baddbmm", lambda a, b, c: torch.baddbmm(a, b, c, beta=0.5, alpha=2),
         [half(3, 4, 5), half(3, 4, 6), half(3, 6, 5)]),
        ("test_baddbmm_addmv_addr_variants", lambda a, b, c: a.clone().baddbmm_(b, c, alpha=-1),
         [half(3, 4, 5), half(3, 4, 6), half(3, 6, 5)]),
        ("test_addmm_int_beta_alpha_and_out", lambda a, b, c: torch.addmm(a, b, c, beta=0),
         [nan_self, torch.randn(4, 6), torch.randn(6, 5)]),
        ("test_clamp_tensor_promotion", lambda a, lo: torch.clamp(a, min=lo), [half(4, 5) * 5, torch.rand(4, 5) * 2 - 3]),
        ("test_where_scalars_and_promotion", lambda a, b: torch.where(a > 0, a, b), [half(4, 5) * 5, torch.randn(4, 5)]),
        ("test_integer_scalars_in_the_tensors_dtype", lambda x: x == 2**32 + 3,
         [torch.tensor([-5, 0, 3, 2**31 - 1, -2**31, 7], dtype=torch.int32)]),
        ("test_median_kthvalue_mode_more", lambda a: torch.median(a, 1)[0],
         [torch.tensor([[1.0, float("nan"), 3.0, 2.0], [4.0, 1.0, 2.0, 2.0], [float("nan"), 5.0, -1.0, 0.5]])]),
        ("test_logit", torch.logit, [torch.rand(2, 3, 4, 5).half() * 0.9 + 0.05]),
        ("test_logit", lambda x, out: torch.logit(x, out=out), [torch.rand(6, 4) * 0.9 + 0.05, torch.empty(0)]),
        ("test_sinc", lambda x, out: torch.sinc(x, out=out), [torch.rand(6, 4) * 6 - 3, torch.empty(0)]),
    ]
    assert {{k for k, *_ in NN}} == set(NN_SUITE), "every entry of NN_SUITE has its call here"
    # test_mm_out's call is refused when launched blocking: pinned with the task queue below
    assert {{k for k, *_ in TENSOR}} == set(TENSOR_SUITE) - {{"test_mm_out"}}, "every entry of TENSOR_SUITE has its call here"
    for table, calls in (("nn", NN), ("tensor", TENSOR)):
        for key, fn, inputs in calls:
            backward = table == "nn" and key[1]
            grads = CONSTANTS.get(key)
            explained = (NN_SUITE if table == "nn" else TENSOR_SUITE)[key]
            dtype = str(inputs[0].dtype).removeprefix("torch.")
            assert explained.applies("Ascend910", dtype), f"{{key}}: the call is not one the explanation applies to"
            got = npu(fn, inputs, backward, grads)
            if table == "nn":
                model = results(explained.model, widened(inputs), backward, grads)
                model = [m.to(g.dtype) for m, g in zip(model, got)]
            else:
                model = results(lambda *xs: explained.model(fn, *xs), inputs, False)
            want = pytorch(fn, inputs, backward, grads)
            if key in EXPLAINED:
                want, got, model = ([r[k] for k in EXPLAINED[key]] for r in (want, got, model))
            assert differs(want, got, 1e-4), f"{{key}}: torch_npu now gives PyTorch's result: stale"
            assert not differs(model, got, 1e-4), f"{{key}}: not the model's result: {{differs(model, got, 1e-4)}}"
            print("explained:", key)
"""


def test_sweeps_explained_results_on_ascend910(run_npu):
    output = run_npu(SCRIPT, env={"ACLNN_SIM_SOC": "Ascend910"})
    assert output.count("explained:") == 28, output


def test_mm_into_an_empty_out_reads_back_empty_then_refuses_on_ascend910(run_npu):
    # TENSOR_SUITE["test_mm_out"]: torch_npu gives MatMul the empty out= tensor's own desc and never
    # resizes it; with the task queue it reads back empty, and the bridge's refusal of that desc comes
    # with the next synchronisation (launched blocking, the call raises it).
    run_npu(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from host_code import TENSOR_SUITE
        a, b = torch.randn(4, 6), torch.randn(6, 5)
        out = torch.empty(0).npu()
        torch.mm(a.npu(), b.npu(), out=out)
        want = TENSOR_SUITE["test_mm_out"].model(torch.mm, a, b, torch.mm(a, b, out=torch.empty(0)))
        assert out.cpu().shape == want.shape == (0,), (out.shape, want.shape)
        try:
            torch.npu.synchronize()
        except RuntimeError as error:
            assert "out: shape [0]" in str(error), error
        else:
            raise AssertionError("MatMul's refusal of the [0] output desc was not raised")
    """, env={"ACLNN_SIM_SOC": "Ascend910", "ASCEND_LAUNCH_BLOCKING": "0"})
