"""Private formats on the chips where torch_npu keeps them (Ascend910, Ascend310P; Atlas A2 with
allow_internal_format: tests/torch_npu/test_testing_utilities.py): a tensor cast to NC1HWC0 (3) or
FRACTAL_NZ (29) keeps that storage, and op-plugin sends every later operator on it to aclop by type
name. The aclop bridge runs each on plain copies (runtime/sim/src/op_compiler/math.cpp); these
checks are written as torch_npu's own per-op tests are (create_common_tensor, assertRtolEqual).
On those chips CANN compiles operators online by default (ACL_OP_JIT_COMPILE=enable), so op-plugin
sends a plain tensor's operators to aclop as well (runtime/sim/src/op_compiler/op_compiler.cpp)."""

PER_OP_SUITE = """
    import sys
    import numpy as np
    import torch.nn.functional as F
    import aclnn
    from torch_npu.testing.testcase import TestCase, run_tests
    from torch_npu.testing.common_utils import create_common_tensor

    def grad_of(fn):
        def run(a, b):
            a = a.clone().requires_grad_(True)
            out = fn(a, b)
            out.backward(torch.ones_like(out))
            return a.grad
        return run

    def batch_norm_training(x):
        # y and the running statistics it updates, in one tensor; float32 statistics, as a module's
        # under autocast (torch_npu leaves float16 ones of a private x as they were, whatever its kernel does)
        mean = torch.zeros(x.shape[1], device=x.device)
        var = torch.ones(x.shape[1], device=x.device)
        y = F.batch_norm(x, mean, var, training=True, momentum=0.2)
        return torch.cat([y.flatten().float(), mean, var])

    OPS = {
        "add": lambda a, b: a + b, "sub_alpha": lambda a, b: torch.sub(a, b, alpha=2), "adds": lambda a, b: a + 1.5,
        "mul": lambda a, b: a * b, "div": lambda a, b: a / (b.abs() + 0.5), "maximum": torch.maximum,
        "sqrt": lambda a, b: (a.abs() + 0.5).sqrt(), "rsqrt": lambda a, b: (a.abs() + 0.5).rsqrt(),
        "sigmoid": lambda a, b: a.sigmoid(), "exp": lambda a, b: a.exp(), "sign": lambda a, b: a.sign(),
        "gt": lambda a, b: (a > b).to(a.dtype), "where": lambda a, b: torch.where(a > 0, a, b),
        "cast": lambda a, b: a.half().float() if a.dtype == torch.float32 else a.float().half(),
        "sum_dim": lambda a, b: a.sum(-1), "mean_0": lambda a, b: a.mean(0), "softmax": lambda a, b: torch.softmax(a, -1),
        "cumsum": lambda a, b: a.cumsum(-1), "cat": lambda a, b: torch.cat([a, b], 0), "argmax": lambda a, b: a.argmax(-1),
        "addcmul": lambda a, b: torch.addcmul(a, a, b, value=0.5), "masked_fill": lambda a, b: a.masked_fill(b > 0, 0.5),
        "topk": lambda a, b: a.topk(2, -1)[0], "tanh_grad": grad_of(lambda a, b: a.tanh()),
        "softmax_grad": grad_of(lambda a, b: torch.softmax(a, -1) * b), "relu_grad": grad_of(lambda a, b: a.relu()),
        "norm": lambda a, b: a.norm(dim=-1), "inf_norm": lambda a, b: torch.linalg.vector_norm(a, float("inf"), dim=0),
        "std": lambda a, b: a.std(-1), "layer_norm": lambda a, b: F.layer_norm(a, a.shape[-1:]),
        "pad": lambda a, b: F.pad(a, (1, 2)),
        "batch_norm": lambda a, b: batch_norm_training(a) if a.dim() == 4 else a.abs(),
    }

    class TestPrivateFormats(TestCase):
        def test_ops_on_every_format(self):
            shape_format = [[np.float32, 0, (4, 5)], [np.float32, 3, (2, 19, 4, 5)], [np.float32, 3, (5, 6)],
                            [np.float32, 29, (2, 17, 33)], [np.float16, 3, (2, 19, 4, 5)], [np.float16, 29, (2, 17, 33)]]
            for name, op in OPS.items():
                for item in shape_format:
                    cpu_a, npu_a = create_common_tensor(item, -3, 3)
                    cpu_b, npu_b = create_common_tensor(item, -3, 3)
                    # Selections and comparisons are exact: on float16 inputs they are compared with the
                    # CPU's float16 result (rounding to float16 can change a comparison's outcome).
                    exact = name in ("gt", "where", "argmax", "masked_fill", "cat")
                    want = op(cpu_a, cpu_b) if exact else op(cpu_a.float(), cpu_b.float())
                    got = op(npu_a, npu_b).cpu()
                    tolerance = 0 if exact else 1e-4 if item[0] == np.float32 else 1e-2
                    self.assertEqual(got.shape, want.shape, f"{name} {item}")
                    self.assertTrue(torch.allclose(got.double(), want.double(), rtol=tolerance, atol=tolerance),
                                    f"{name} {item}: {got} != {want}")
                    print("equal", name, item[1], flush=True)

        def test_private_outputs_are_padded_with_zeros(self):
            # exp is nowhere 0: every zero of the storage is padding, which must be zeros as a device writes it.
            for shape, fmt in (((2, 19, 4, 5), 3), ((17, 33), 29), ((5, 6), 3)):
                y = torch_npu.npu_format_cast(torch.randn(*shape).npu(), fmt).exp()
                self.assertEqual(torch_npu.get_npu_format(y), fmt)
                torch.npu.synchronize()
                storage = y.untyped_storage().nbytes() // 4
                raw = aclnn.Tensor.from_pointer(y.data_ptr(), (storage,), torch.float32, (1,), owner=y).numpy()
                self.assertEqual(int(np.count_nonzero(raw)), y.numel())
                self.assertGreater(storage, y.numel())

        def test_plain_tensors_backward_through_the_aclop_gradient_types(self):
            # A plain tensor's backward pass reaches aclop by type name there too: one call per
            # gradient type the bridge models (runtime/sim/src/op_compiler/grad.cpp, ranked by
            # tests/torch_npu/opinfo_sweep.py --modes backward --soc Ascend910), against CPU autograd
            # of the first `diff` arguments with a random cotangent.
            m, img, w, i = torch.randn(4, 6), torch.randn(2, 4, 5, 6), torch.randn(3, 4, 3, 3), torch.tensor([2, 0, 5, 1])
            prob, target, gamma = torch.rand(6).clamp(0.05, 0.95), torch.rand(6), torch.rand(4) + 0.5
            cases = {
                "NLLLossGrad": (F.cross_entropy, (m, i), 1),
                "AdaptiveAvgPool2dGrad": (lambda a: F.adaptive_avg_pool2d(a, (3, 4)), (img,), 1),
                "AvgPoolV2Grad": (lambda a: F.avg_pool2d(a, 3, 2, 1), (img,), 1),
                "BNTrainingUpdateGrad, BNTrainingReduceGrad": (
                    lambda a, g: F.batch_norm(a, None, None, g, None, training=True, eps=0.1), (img, gamma), 2),
                "BNInferGrad": (lambda a, g, mean, var: F.batch_norm(a, mean, var, g, None, training=False),
                                (img, gamma, torch.randn(4), torch.rand(4) + 0.5), 2),
                "PadV3Grad reflect": (lambda a: F.pad(a, (2, 1, 1, 0), mode="reflect"), (img,), 1),
                "PadV3Grad edge": (lambda a: F.pad(a, (2, 1), mode="replicate"), (m,), 1),
                "EluGradV2": (lambda a: F.elu(a, 0.7), (m,), 1),
                "Conv2DBackpropInput, Conv2DBackpropFilter": (lambda a, b: F.conv2d(a, b, stride=2, padding=1), (img, w), 2),
                "ResizeNearestNeighborV2Grad": (lambda a: F.interpolate(a, size=(7, 3)), (img,), 1),
                "ResizeBilinearV2Grad": (lambda a: F.interpolate(a, size=(7, 3), mode="bilinear", align_corners=True), (img,), 1),
                "ResizeGradD cubic": (lambda a: F.interpolate(a, size=(7, 3), mode="bicubic", align_corners=True), (img,), 1),
                "ResizeGradD linear": (lambda a: F.interpolate(a, size=9, mode="linear", align_corners=False), (img[0],), 1),
                "LogSigmoidGrad": (F.logsigmoid, (m,), 1), "HardtanhGrad": (lambda a: F.hardtanh(a, -0.5, 1.5), (m,), 1),
                "HardSwishGrad": (F.hardswish, (m * 3,), 1), "HardSigmoidGrad": (F.hardsigmoid, (m * 3,), 1),
                "ThresholdGradV2D": (lambda a: F.threshold(a, 0.3, -2.0), (m,), 1),
                "SoftShrinkGrad": (lambda a: F.softshrink(a, 0.4), (m,), 1),
                "HardShrinkGrad": (lambda a: F.hardshrink(a, 0.4), (m,), 1), "GLUGrad": (F.glu, (m,), 1),
                "PReluGrad": (F.prelu, (img, torch.tensor([0.1, 0.2, 0.3, 0.4])), 2),
                "SoftMarginLossGrad": (F.soft_margin_loss, (m, m.sign()), 1),
                "BinaryCrossEntropyGrad": (F.binary_cross_entropy, (prob, target), 1),
                "SigmoidCrossEntropyWithLogitsGradV2": (F.binary_cross_entropy_with_logits, (m[0], target), 1),
                "L1LossGrad": (F.l1_loss, (m, m.flip(0)), 1), "MseLossGrad": (F.mse_loss, (m, m.flip(0)), 1),
                "SmoothL1LossGradV2": (lambda a, b: F.smooth_l1_loss(a, b, beta=0.3), (m, m.flip(0)), 1),
                "KlDivLossGrad": (lambda a, b: F.kl_div(a, b, reduction="batchmean"), (prob.log(), target), 1),
                "SoftplusV2Grad": (lambda a: F.softplus(a, 2, 1.5), (m,), 1),
                "EmbeddingDenseGrad": (lambda a, b: F.embedding(b, a), (m, torch.tensor([[2, 0], [3, 2]])), 1),
                "GridSampler2DGrad": (lambda a, b: F.grid_sample(a, b, align_corners=False),
                                      (img, torch.rand(2, 3, 4, 2) * 2 - 1), 2),
                # a slice's gradient: the expanded 0-d gradient written into the middle of the zeros
                "AsStrided into a base's part": (lambda a: torch.vsplit(a, 2)[1].sum(), (m,), 1),
            }
            for name, (fn, args, diff) in cases.items():
                want_out = fn(*[a.clone().requires_grad_(k < diff) for k, a in enumerate(args)])
                cotangent = torch.randn(want_out.shape)
                cpu_args = [a.clone().requires_grad_(k < diff) for k, a in enumerate(args)]
                want = torch.autograd.grad(fn(*cpu_args), cpu_args[:diff], cotangent)
                npu_args = [a.npu().requires_grad_(k < diff) for k, a in enumerate(args)]
                got = torch.autograd.grad(fn(*npu_args), npu_args[:diff], cotangent.npu())
                for g, wg in zip(got, want):
                    self.assertRtolEqual(wg.numpy(), g.cpu().numpy(), prec=1e-4)
            print("backward aclop types:", len(cases), flush=True)

    sys.argv = [sys.argv[0]]
    run_tests()
"""


def test_a_per_op_suite_on_private_formats_passes_on_ascend910(run_npu):
    output = run_npu(PER_OP_SUITE, env={"ACLNN_SIM_SOC": "Ascend910"})
    assert "Ran 3 tests" in output and "OK" in output, output
    assert output.count("equal ") == 32 * 6, output
    assert "backward aclop types: 33" in output, output


def test_ascend310p_runs_the_common_operators_whose_aclnn_pages_leave_it_out(run_npu):
    # aclnnExp, aclnnAdd and aclnnPermute's pages mark the Atlas inference series unsupported; the
    # aclop kernels op-plugin runs there (on a private tensor, and on a plain one under the chip's
    # default JIT compilation) exist on every chip, and the bridge computes them. An operator the
    # bridge does not model is refused naming its type; with jit_compile=False a plain tensor's add
    # goes to aclnnAdd, which refuses the chip as its page says.
    output = run_npu("""
        import torch.nn.functional as F
        x = torch.randn(2, 19, 4, 5)
        plain = x.npu()
        assert not torch.npu.is_jit_compile_false()
        assert torch.allclose((plain + plain).exp().cpu(), (x + x).exp(), rtol=1e-5)
        assert torch.equal(plain.permute(0, 2, 3, 1).contiguous().cpu(), x.permute(0, 2, 3, 1))
        assert torch.equal(torch.amax(plain, dim=()).cpu(), torch.amax(x, dim=()))  # ReduceMax, empty axes
        assert torch.allclose(torch.logsumexp(plain, 1).cpu(), torch.logsumexp(x, 1), rtol=1e-5)  # axes in device memory
        v = x.flatten()[:7]
        assert torch.allclose(torch.dot(v.npu(), v.npu()).cpu(), torch.dot(v, v), rtol=1e-5)
        logits, target = x[0, :4, 0, :3].contiguous(), torch.tensor([1, 0, 2, 1])
        assert torch.allclose(F.nll_loss(logits.npu(), target.npu()).cpu(), F.nll_loss(logits, target), rtol=1e-5)
        index = torch.tensor([[0, 1], [2, 0]])
        assert torch.equal(torch.zeros(3, 2).npu().scatter_(0, index.npu(), v[:4].reshape(2, 2).npu()).cpu(),
                           torch.zeros(3, 2).scatter_(0, index, v[:4].reshape(2, 2)))
        stored = torch_npu.npu_format_cast(x.npu(), 3)
        assert torch.allclose(stored.exp().cpu(), x.exp(), rtol=1e-5)
        assert torch.equal(stored.permute(0, 2, 3, 1).contiguous().cpu(), x.permute(0, 2, 3, 1))
        w = torch.randn(17, 33)
        assert torch.allclose((torch_npu.npu_format_cast(w.npu(), 29) * 2 + 1).sum(0).cpu(), (w * 2 + 1).sum(0), rtol=1e-5)
        print("Ascend310P equal")
        # One call per operator type the bridge models for a plain tensor's operator there (found by
        # tests/torch_npu/opinfo_sweep.py --soc Ascend910/Ascend310P).
        m, img, w, i = torch.randn(4, 3), torch.randn(2, 4, 5, 6), torch.randn(3, 4, 3, 3), torch.tensor([2, 0, 2])
        prob, target = torch.rand(6).clamp(0.05, 0.95), torch.rand(6)
        cases = {
            "Svd": (torch.linalg.svdvals, m), "LpNormReduceV2 p=0": (lambda a: torch.linalg.vector_norm(a.relu(), 0), m),
            "LpNormReduceV2 p<0": (lambda a: torch.linalg.vector_norm(a, -1.5, dim=1), m),
            "Conv2D": (lambda a, b: F.conv2d(a, b, padding=1), img, w),
            "AdaptiveAvgPool2d": (lambda a: F.adaptive_avg_pool2d(a, (3, 4)), img), "Cross": (torch.linalg.cross, m, m.flip(0)),
            "MirrorPad": (lambda a: F.pad(a, (2, 1, 1, 0), mode="reflect"), img),
            "PadV3 edge": (lambda a: F.pad(a, (2, 1), mode="replicate"), m),
            "GroupNorm": (lambda a: F.group_norm(a, 2), img), "LpLoss": (F.l1_loss, prob, target),
            "SmoothL1LossV2": (lambda a, b: F.smooth_l1_loss(a, b, beta=0.3), prob, target),
            "SoftMarginLoss": (F.soft_margin_loss, prob, target),
            "KLDiv": (lambda a, b: F.kl_div(a, b, reduction="batchmean"), prob.log(), target),
            "BinaryCrossEntropy": (F.binary_cross_entropy, prob, target),
            "SigmoidCrossEntropyWithLogitsV2": (F.binary_cross_entropy_with_logits, prob, target),
            "Cummax": (lambda a: torch.cummax(a, 0)[0], m), "Cummin": (lambda a: torch.cummin(a, 1)[1], m),
            "CeluV2": (lambda a: F.celu(a, 0.7), m), "Xlogy": (torch.xlogy, prob, target), "Erfinv": (torch.erfinv, prob),
            "NonZero": (lambda a: torch.nonzero(a > 0), m), "MaskedSelect": (lambda a: a[a > 0], m),
            "Index": (lambda a, b: a[:, b], m, i), "IndexPutV2": (lambda a, b: a.index_put((b,), a[0], accumulate=True), m, i),
            "UniqueWithCountsAndSorting": (lambda a: torch.unique(a, return_counts=True)[1], i),
            "UniqueConsecutive": (lambda a: torch.unique_consecutive(a, return_inverse=True)[1], i),
            "ResizeNearestNeighborV2": (lambda a: F.interpolate(a, size=(7, 3)), img),
            "ResizeBilinearV2": (lambda a: F.interpolate(a, size=(7, 3), mode="bilinear", align_corners=True), img),
            "ResizeD": (lambda a: F.interpolate(a, size=(7, 3), mode="bicubic", align_corners=True), img),
            "GridSampler2D": (lambda a, b: F.grid_sample(a, b, align_corners=False), img, torch.rand(2, 3, 4, 2) * 2 - 1),
            "Qr": (lambda a: torch.linalg.qr(a)[1].abs(), m), "Conv2DTranspose": (lambda a, b: F.conv_transpose2d(a, b), img, w.transpose(0, 1)),
            "Eye": (lambda a: torch.linalg.matrix_power(a, 0), m[:3]), "SearchSorted": (torch.searchsorted, m[0].sort()[0], prob),
            "Trace": (torch.trace, m), "ReduceProd axes": (torch.prod, m), "Gather": (torch.take, m, i),
            "GatherV2D": (F.embedding, i, m), "ShuffleChannel": (lambda a: F.channel_shuffle(a, 2), img),
            "MaskedScatter": (lambda a: a.masked_scatter(a > 0, a.flip(0) * 2), m),
            "RepeatInterleave": (lambda a: a.repeat_interleave(2, dim=1), m),
            "InplaceIndexAdd": (lambda a, b: a.index_add(0, b, a[:3], alpha=2), m, i),
        }
        for name, (fn, *args) in cases.items():
            want, got = fn(*args), fn(*[a.npu() for a in args]).cpu()
            assert got.shape == want.shape and torch.allclose(got.double(), want.double(), rtol=1e-4, atol=1e-5), name
        print("Ascend310P aclop types equal:", len(cases))
        # MaxPoolWithArgmaxV1 and its gradient (the argmax a bit mask of the simulator's layout).
        pooled_in = stored.cpu().clone().requires_grad_()
        pooled_npu = stored.clone().requires_grad_()
        F.max_pool2d(pooled_in, 2).sum().backward()
        F.max_pool2d(pooled_npu, 2).sum().backward()
        print("max pool equal:", torch.equal(F.max_pool2d(stored, 2).cpu(), F.max_pool2d(stored.cpu(), 2))
              and torch.equal(pooled_npu.grad.cpu(), pooled_in.grad))
        torch.npu.set_compile_mode(jit_compile=False)
        try:
            (plain + plain).cpu()
        except RuntimeError as error:
            print("aclnn refused:", "aclnnAdd is not supported on Ascend310P" in str(error))
    """, env={"ACLNN_SIM_SOC": "Ascend310P", "ASCEND_LAUNCH_BLOCKING": "1"})
    assert "Ascend310P equal" in output and "max pool equal: True" in output and "aclnn refused: True" in output, output
    assert "Ascend310P aclop types equal: 42" in output, output
