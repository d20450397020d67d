"""F.affine_grid on device="npu" (op-plugin's aclnnAffineGrid: the affine_grid family) equals PyTorch
on the CPU for 2-D and 3-D grids, both corner alignments, and its gradient (op-plugin's backward
runs aclnnBatchMatMul)."""


def test_affine_grid_equals_the_cpu(run_npu):
    run_npu("""
        F = torch.nn.functional
        for size in ([2, 3, 4, 5], [2, 1, 3, 1, 4], [1, 1, 1, 6]):
            theta = torch.randn(size[0], len(size) - 2, len(size) - 1)
            for align in (False, True):
                want = F.affine_grid(theta, size, align_corners=align)
                got = F.affine_grid(theta.npu(), size, align_corners=align).cpu()
                assert got.shape == want.shape and torch.allclose(got, want, rtol=1e-5, atol=1e-6), (size, align)
        theta = torch.randn(2, 2, 3, requires_grad=True)
        device_theta = theta.detach().npu().requires_grad_()
        weights = torch.randn(2, 4, 5, 2)
        (F.affine_grid(theta, [2, 3, 4, 5], align_corners=False) * weights).sum().backward()
        (F.affine_grid(device_theta, [2, 3, 4, 5], align_corners=False) * weights.npu()).sum().backward()
        assert torch.allclose(device_theta.grad.cpu(), theta.grad, rtol=1e-4, atol=1e-5)
    """)
