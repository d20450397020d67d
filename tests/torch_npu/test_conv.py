"""Convolutions through torch_npu's op-plugin, which calls aclnnConvolution,
aclnnConvolutionBackward, aclnnConvDepthwise2d, aclnnConvTbc(Backward), aclnnIm2col(Backward) and
aclnnUnfoldGrad on the simulator: results equal PyTorch on the CPU (1d, 2d, 3d; strides, paddings,
dilations, groups, transposed with output padding; nn.Conv2d's gradients through loss.backward();
F.unfold and F.fold; Tensor.unfold's gradient). Three processes: each costs torch_npu's start."""


def test_functional_convolutions(run_npu):
    run_npu("""
        import torch.nn.functional as F
        cases = [
            ("conv1d", F.conv1d, (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
            ("conv2d", F.conv2d, (2, 3, 7, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
            ("conv2d depthwise", F.conv2d, (1, 4, 6, 6), (8, 1, 3, 3), dict(padding=1, groups=4)),
            ("conv2d 1x1", F.conv2d, (2, 8, 5, 5), (4, 8, 1, 1), dict()),
            ("conv3d", F.conv3d, (1, 2, 5, 4, 6), (3, 2, 2, 3, 3), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
            ("conv_transpose2d", F.conv_transpose2d, (2, 4, 4, 5), (4, 3, 3, 3),
             dict(stride=2, padding=1, output_padding=1, groups=2)),
        ]
        for name, fn, x_shape, w_shape, kwargs in cases:
            x, w = torch.randn(*x_shape), torch.randn(*w_shape)
            channels = w_shape[1] * kwargs.get("groups", 1) if fn is F.conv_transpose2d else w_shape[0]
            b = torch.randn(channels)
            want = fn(x, w, b, **kwargs)
            got = fn(x.npu(), w.npu(), b.npu(), **kwargs).cpu()
            assert got.shape == want.shape, (name, got.shape, want.shape)
            assert torch.allclose(got, want, rtol=1e-4, atol=1e-4), (name, (got - want).abs().max())
            nobias = fn(x.npu(), w.npu(), None, **kwargs).cpu()
            assert torch.allclose(nobias, fn(x, w, None, **kwargs), rtol=1e-4, atol=1e-4), name
        half = F.conv2d(torch.randn(1, 3, 6, 6).half().npu(), torch.randn(2, 3, 3, 3).half().npu())
        assert half.dtype == torch.float16
    """)


def test_conv2d_module_backward(run_npu):
    run_npu("""
        conv = torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
        x = torch.randn(2, 4, 9, 8, requires_grad=True)
        conv(x).square().sum().backward()
        want = (x.grad.clone(), conv.weight.grad.clone(), conv.bias.grad.clone())
        device_conv = torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
        device_conv.load_state_dict(conv.state_dict())
        device_conv = device_conv.npu()
        xd = x.detach().npu().requires_grad_()
        device_conv(xd).square().sum().backward()
        got = (xd.grad.cpu(), device_conv.weight.grad.cpu(), device_conv.bias.grad.cpu())
        for name, g, w in zip(("input", "weight", "bias"), got, want):
            assert torch.allclose(g, w, rtol=1e-4, atol=1e-3), (name, (g - w).abs().max())
    """)


def test_conv_tbc_depthwise_unfold_and_its_backward(run_npu):
    run_npu("""
        x, w, b = torch.randn(7, 2, 4), torch.randn(3, 4, 5), torch.randn(5)
        grad = torch.randn(7, 2, 5)
        leaves = [t.clone().requires_grad_() for t in (x, w, b)]
        want = torch.conv_tbc(*leaves, 1)
        want.backward(grad)
        device = [t.npu().requires_grad_() for t in (x, w, b)]
        got = torch.conv_tbc(*device, 1)
        got.backward(grad.npu())
        assert torch.allclose(got.detach().cpu(), want.detach(), rtol=1e-4, atol=1e-4)
        for name, d, c in zip(("input", "weight", "bias"), device, leaves):
            assert torch.allclose(d.grad.cpu(), c.grad, rtol=1e-4, atol=1e-4), name

        x, w, b = torch.randn(2, 4, 6, 6), torch.randn(8, 1, 3, 3), torch.randn(8)
        got = torch.ops.aten._conv_depthwise2d(x.npu(), w.npu(), [3, 3], b.npu(), [2, 1], [1, 1], [1, 2]).cpu()
        want = torch.nn.functional.conv2d(x, w, b, (2, 1), 1, (1, 2), groups=4)
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-4)

        x = torch.randn(2, 3, 6, 5)
        want = torch.nn.functional.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
        got = torch.nn.functional.unfold(x.npu(), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)).cpu()
        assert torch.equal(got, want)

        x = torch.randn(3, 10)
        g = torch.randn(3, 4, 4)
        xc, xd = x.clone().requires_grad_(), x.npu().requires_grad_()
        (xc.unfold(1, 4, 2) * g).sum().backward()
        (xd.unfold(1, 4, 2) * g.npu()).sum().backward()
        assert torch.allclose(xd.grad.cpu(), xc.grad, rtol=1e-5, atol=1e-5)

        # F.fold (aclnnIm2colBackward, a derived page) and its backward (aclnnIm2col).
        x = torch.randn(2, 3 * 2 * 3, 6)
        xc, xd = x.clone().requires_grad_(), x.npu().requires_grad_()
        fold = dict(output_size=(5, 4), kernel_size=(2, 3), padding=(1, 0), stride=(2, 1))
        want, got = torch.nn.functional.fold(xc, **fold), torch.nn.functional.fold(xd, **fold)
        assert torch.allclose(got.detach().cpu(), want.detach(), rtol=1e-5, atol=1e-5)
        g = torch.randn(want.shape)
        (want * g).sum().backward()
        (got * g.npu()).sum().backward()
        assert torch.allclose(xd.grad.cpu(), xc.grad, rtol=1e-5, atol=1e-5)
    """)
