"""aten operators op-plugin implements that PyTorch's OpInfo samples and our other sweeps do not
call (tests/torch_npu/aten_gap_sweep.py sweeps them by hand): what that sweep found refused or
wrong, each pinned by a few values against the CPU. Two processes: Atlas A2 (Ascend910B, aclnn)
and Ascend910 (plain operators compiled online, so op-plugin runs them by aclop type)."""


def test_depthwise_and_null_bias_sizes_on_atlas_a2(run_npu):
    run_npu("""
        import torch.nn.functional as F
        # _conv_depthwise2d without a bias: op-plugin passes aclnnConvDepthwise2d a NULL bias.
        x, w = torch.randn(2, 3, 6, 5), torch.randn(6, 1, 3, 3)
        got = torch.ops.aten._conv_depthwise2d(x.npu(), w.npu(), [3, 3], None, [2, 1], [1, 0], [1, 2]).cpu()
        want = F.conv2d(x, w, None, (2, 1), (1, 0), (1, 2), groups=3)
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-4), (got - want).abs().max()
        # convolution_backward of a forward without a bias: bias_sizes None reaches
        # aclnnConvolutionBackward as a NULL biasSizes.
        x, w, g = torch.randn(2, 4, 7, 6), torch.randn(6, 2, 3, 3), torch.randn(2, 6, 5, 4)
        window = ([1, 1], [0, 0], [1, 1], False, [0, 0], 2, [True, True, False])
        want = torch.ops.aten.convolution_backward(g, x, w, None, *window)
        got = torch.ops.aten.convolution_backward(g.npu(), x.npu(), w.npu(), None, *window)
        for name, a, b in zip(("input", "weight"), got[:2], want[:2]):
            assert torch.allclose(a.cpu(), b, rtol=1e-4, atol=1e-3), (name, (a.cpu() - b).abs().max())
    """)


def test_convolutions_by_aclop_type_on_ascend910(run_npu):
    run_npu("""
        import torch.nn.functional as F
        x = torch.randn(2, 3, 6, 5)
        # DepthwiseConv2D: filter [1, C * multiplier, kh, kw], multipliers 1 and 2, with and without a bias.
        for w, b, stride, padding, dilation in ((torch.randn(3, 1, 3, 3), None, [1, 1], [1, 1], [1, 1]),
                                                (torch.randn(6, 1, 3, 3), torch.randn(6), [2, 1], [1, 0], [1, 2])):
            got = torch.ops.aten._conv_depthwise2d(x.npu(), w.npu(), [3, 3], None if b is None else b.npu(),
                                                   stride, padding, dilation).cpu()
            want = F.conv2d(x, w, b, stride, padding, dilation, groups=3)
            assert torch.allclose(got, want, rtol=1e-4, atol=1e-4), (got - want).abs().max()
        # slow_conv_dilated2d's Conv2D: data_format arrives as bool, its layout is x's (NCHW).
        w, b = torch.randn(4, 3, 3, 3), torch.randn(4)
        got = torch.ops.aten.slow_conv_dilated2d(x.npu(), w.npu(), [3, 3], b.npu(), [1, 2], [2, 1], [2, 1]).cpu()
        want = F.conv2d(x, w, b, (1, 2), (2, 1), (2, 1))
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-4), (got - want).abs().max()
        # slow_conv_transpose2d's Conv2DTranspose: output_padding (2, 1) sent as [2, 2, 1, 1].
        w = torch.randn(3, 4, 3, 3)
        got = torch.ops.aten.slow_conv_transpose2d(x.npu(), w.npu(), [3, 3], b.npu(), [3, 3], [1, 1], [2, 1], [1, 1]).cpu()
        want = F.conv_transpose2d(x, w, b, 3, 1, (2, 1))
        assert got.shape == want.shape and torch.allclose(got, want, rtol=1e-4, atol=1e-4), (got.shape, want.shape)
    """, env={"ACLNN_SIM_SOC": "Ascend910"})


def test_fill_diagonal_and_affine_grid_on_ascend910(run_npu):
    run_npu("""
        import torch.nn.functional as F
        # FillDiagonal on aclnnInplaceFillDiagonal: square, wide, and tall with wrap.
        for shape, value, wrap in (((4, 4), 2.5, False), ((3, 5), -1.0, False), ((7, 3), 4.0, True), ((7, 3), 4.0, False)):
            x = torch.randn(*shape)
            got = x.npu().fill_diagonal_(value, wrap).cpu()
            assert torch.equal(got, x.clone().fill_diagonal_(value, wrap)), (shape, wrap)
        # AffineGrid on aclnnAffineGrid, 2-d and 3-d, and the 2-d backward (a BatchMatMul with `bias` 0).
        for theta_shape, size in (((2, 2, 3), [2, 3, 4, 5]), ((1, 3, 4), [1, 2, 3, 4, 2])):
            for align in (False, True):
                theta = torch.randn(*theta_shape)
                got = F.affine_grid(theta.npu(), size, align_corners=align).cpu()
                want = F.affine_grid(theta, size, align_corners=align)
                assert torch.allclose(got, want, rtol=1e-5, atol=1e-5), (size, align)
        theta, g = torch.randn(2, 2, 3), torch.randn(2, 4, 5, 2)
        tc, tn = theta.clone().requires_grad_(), theta.npu().requires_grad_()
        (F.affine_grid(tc, [2, 3, 4, 5], align_corners=False) * g).sum().backward()
        (F.affine_grid(tn, [2, 3, 4, 5], align_corners=False) * g.npu()).sum().backward()
        assert torch.allclose(tn.grad.cpu(), tc.grad, rtol=1e-4, atol=1e-4)
        # batch_norm_stats: ReduceMean, then ReduceStdWithMean with invert (the invstd).
        for x in (torch.randn(2, 3, 6, 5) * 3 + 1, torch.randn(4, 5, 7)):
            mean, invstd = torch.batch_norm_stats(x.npu(), 1e-3)
            reduced = [0] + list(range(2, x.dim()))
            assert torch.allclose(mean.cpu(), x.mean(reduced), rtol=1e-5, atol=1e-5)
            assert torch.allclose(invstd.cpu(), (x.var(reduced, unbiased=False) + 1e-3).rsqrt(), rtol=1e-4, atol=1e-5)
        # batch_norm_backward_reduce and _elemt: SyncBatchNormBackwardReduce and SyncBatchNormBackwardElemt,
        # against the formulas of aten's CUDA kernels.
        x, g = torch.randn(2, 3, 6, 5), torch.randn(2, 3, 6, 5)
        mean, invstd, weight = x.mean((0, 2, 3)), torch.tensor([1.5, 0.7, 2.0]), torch.tensor([0.5, 1.0, 1.5])
        per = lambda t: t[:, None, None]
        sum_dy, sum_dy_xmu = g.sum((0, 2, 3)), (g * (x - per(mean))).sum((0, 2, 3))
        got = torch.batch_norm_backward_reduce(g.npu(), x.npu(), mean.npu(), invstd.npu(), weight.npu(), True, True, True)
        for name, a, b in zip(("sum_dy", "sum_dy_xmu", "grad_weight", "grad_bias"), got,
                              (sum_dy, sum_dy_xmu, sum_dy_xmu * invstd, sum_dy)):
            assert torch.allclose(a.cpu(), b, rtol=1e-4, atol=1e-4), name
        count = torch.tensor([x.numel() // 3], dtype=torch.int32)
        got = torch.batch_norm_backward_elemt(g.npu(), x.npu(), mean.npu(), invstd.npu(), weight.npu(), sum_dy.npu(),
                                              sum_dy_xmu.npu(), count.npu()).cpu()
        n = x.numel() // 3
        want = (g - per(sum_dy / n) - (x - per(mean)) * per(invstd ** 2 * sum_dy_xmu / n)) * per(invstd * weight)
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-4), (got - want).abs().max()
    """, env={"ACLNN_SIM_SOC": "Ascend910"})


def test_sync_batch_norm_refused_where_its_documents_say_so(run_npu):
    # ASCEND_LAUNCH_BLOCKING: each refusal the exception of its own call. Without it torch_npu's task
    # queue reports the first failure at the next synchronisation, then (status CAN_EXIT, "Inner
    # error happened with CAN_EXIT status" in libtorch_npu.so) drops every later task unrun, on a
    # device as here: a second refused call would then "succeed" with its outputs never written.
    run_npu("""
        x, g = torch.randn(2, 3, 6, 5).npu(), torch.randn(2, 3, 6, 5).npu()
        mean, invstd, weight = torch.zeros(3).npu(), torch.ones(3).npu(), torch.ones(3).npu()
        calls = {"aclnnBatchNormStats's page": lambda: torch.batch_norm_stats(x, 1e-5),
                 "sync_batch_norm_backward_reduce and _elemt READMEs":
                     lambda: torch.batch_norm_backward_reduce(g, x, mean, invstd, weight, True, True, True)}
        for document, call in calls.items():
            try:
                call()
                torch.npu.synchronize()
            except RuntimeError as error:
                assert "not supported on Ascend310P" in str(error) and document in str(error), str(error)[-400:]
            else:
                raise AssertionError(f"{document}: computed on Ascend310P, which it marks unsupported")
    """, env={"ACLNN_SIM_SOC": "Ascend310P", "ASCEND_LAUNCH_BLOCKING": "1"})


def test_masked_scale_reads_op_plugins_double_as_the_pages_float_on_ascend950(run_npu):
    # op-plugin passes _masked_scale's scale (a C++ double) to aclnnMaskedScale, whose page declares
    # `float scale`: the kernel reads the double's low 32 bits, as a device would; the sweep counts it
    # torch_npu's own (aten_gap_sweep.masked_scale_torch_npu), never equal to the CPU.
    run_npu("""
        import numpy as np
        x, mask = torch.randn(3, 4), (torch.rand(3, 4) > 0.5).float()
        for scale in (2.0, 1 / 3, 0.1):
            read = float(np.frombuffer(np.float64(scale).tobytes()[:4], dtype=np.float32)[0])
            got = torch.ops.aten._masked_scale(x.npu(), mask.npu(), scale).cpu()
            assert torch.equal(got, x * mask * read), (scale, got)
    """, env={"ACLNN_SIM_SOC": "Ascend950"})
