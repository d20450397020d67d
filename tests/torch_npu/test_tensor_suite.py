"""A few of tests/torch_npu/tensor_suite_sweep.py's tensor-operator tests, the ones that found a gap,
written as torch_npu's per-op suites are (TestCase, create_common_tensor, assertRtolEqual with its
default tolerances), on the default chip and on Ascend910 (where op-plugin sends operators to aclop)."""

SUITE = """
    import sys
    import numpy as np
    import torch.nn.functional as F
    from torch_npu.testing.testcase import TestCase, run_tests
    from torch_npu.testing.common_utils import create_common_tensor

    class TestTensorOps(TestCase):
        def test_scalar_operands(self):
            # aclnnPowTensorScalar: an INT32 self with a floating exponent gives FLOAT (the page's out row)
            cpu_x, npu_x = create_common_tensor([np.int32, 2, (4, 5)], 0, 20)
            self.assertRtolEqual(torch.pow(cpu_x, 0.5).numpy(), torch.pow(npu_x, 0.5).cpu().numpy())
            # aclnnEqScalar, aclnnLtScalar: a float16 tensor compares with the scalar in float16
            cpu_h = torch.tensor([0.1, 0.2, 0.3]).half()
            self.assertRtolEqual((cpu_h == 0.1).numpy(), (cpu_h.npu() == 0.1).cpu().numpy())
            self.assertRtolEqual((cpu_h < 0.2).numpy(), (cpu_h.npu() < 0.2).cpu().numpy())

        def test_out_of_another_shape_and_inplace_views(self):
            cpu_a, npu_a = create_common_tensor([np.float32, 0, (4, 6)], -5, 5)
            cpu_b, npu_b = create_common_tensor([np.float32, 0, (4, 6)], 1, 5)
            cpu_out, npu_out = torch.rand(1, 7), torch.rand(1, 7).npu()
            torch.div(cpu_a, cpu_b, rounding_mode="floor", out=cpu_out)
            torch.div(npu_a, npu_b, rounding_mode="floor", out=npu_out)
            self.assertRtolEqual(cpu_out.numpy(), npu_out.cpu().numpy())
            cpu_a.t()[::2].mul_(3)
            npu_a.t()[::2].mul_(3)
            self.assertRtolEqual(cpu_a.numpy(), npu_a.cpu().numpy())

        def test_clamp_by_one_tensor_bound(self):
            # aclnnClampTensor with the other bound null (op-plugin's torch.clamp(x, min=t))
            cpu_x, npu_x = create_common_tensor([np.float32, 0, (4, 5)], -5, 5)
            cpu_b, npu_b = create_common_tensor([np.float32, 0, (5,)], -1, 1)
            self.assertRtolEqual(torch.clamp(cpu_x, min=cpu_b).numpy(), torch.clamp(npu_x, min=npu_b).cpu().numpy())
            self.assertRtolEqual(torch.clamp(cpu_x, max=cpu_b).numpy(), torch.clamp(npu_x, max=npu_b).cpu().numpy())

        def test_linspace_inverse_shift_index(self):
            self.assertRtolEqual(torch.linspace(-1, 1, 11).numpy(), torch.linspace(-1, 1, 11, device="npu").cpu().numpy())
            m = torch.randn(3, 4, 4) + 4 * torch.eye(4)
            self.assertRtolEqual(torch.inverse(m).numpy(), torch.inverse(m.npu()).cpu().numpy(), prec=1e-3)
            cpu_i, npu_i = create_common_tensor([np.int32, 2, (4, 5)], 0, 100)
            self.assertRtolEqual((cpu_i << 2).numpy(), (npu_i << 2).cpu().numpy())
            self.assertRtolEqual((cpu_i >> 3).numpy(), (npu_i >> 3).cpu().numpy())
            index = torch.tensor([3, 0, 2, 0])
            self.assertRtolEqual(cpu_i[index].numpy(), npu_i[index.npu()].cpu().numpy())

        def test_one_hot_and_bincount(self):
            # Ascend910: aclop OneHot (depth a host input) and Bincount (op-plugin's weights of ones
            # without the caller's), by aclnnOneHot and aclnnBincount.
            labels = torch.tensor([0, 3, 1, 3, 2, 6])
            self.assertRtolEqual(F.one_hot(labels, 8).numpy(), F.one_hot(labels.npu(), 8).cpu().numpy())
            self.assertRtolEqual(F.one_hot(labels).numpy(), F.one_hot(labels.npu()).cpu().numpy())
            weights = torch.tensor([0.5, 1.0, 2.0, 0.25, -1.0, 3.0])
            self.assertRtolEqual(torch.bincount(labels).numpy(), torch.bincount(labels.npu()).cpu().numpy())
            self.assertRtolEqual(torch.bincount(labels.int(), weights, minlength=9).numpy(),
                                 torch.bincount(labels.int().npu(), weights.npu(), minlength=9).cpu().numpy())

    sys.argv = [sys.argv[0], "-v"]
    run_tests()
"""


def test_tensor_operators_on_the_default_chip(run_npu):
    output = run_npu(SUITE)
    assert "Ran 5 tests" in output and "OK" in output, output


def test_tensor_operators_through_aclop_on_ascend910(run_npu):
    output = run_npu(SUITE, env={"ACLNN_SIM_SOC": "Ascend910"})
    assert "Ran 5 tests" in output and "OK" in output, output


# Default chip only: on Ascend910 op-plugin's aclop path makes the scalar a tensor of its own dtype
# (and sends the refused operators below to aclop).
INTEGER_SCALARS = r"""
    import sys
    import numpy as np
    from torch_npu.testing.testcase import TestCase, run_tests

    class TestIntegerScalars(TestCase):
        def test_scalar_taken_in_the_tensors_integer_dtype(self):
            # phase 1 wraps an integral scalar to the promoted integer dtype (uint8 -1 is 255), as
            # CANN converts the scalar operand and PyTorch casts its wrapped number
            cpu_u = torch.tensor([0, 1, 3, 44, 200, 254, 255], dtype=torch.uint8)
            npu_u = cpu_u.npu()
            self.assertRtolEqual((cpu_u > -1).numpy(), (npu_u > -1).cpu().numpy())
            self.assertRtolEqual((cpu_u == 300).numpy(), (npu_u == 300).cpu().numpy())
            self.assertRtolEqual(cpu_u.clamp_min(-1).numpy(), npu_u.clamp_min(-1).cpu().numpy())
            cpu_i = torch.tensor([-5, 0, 3, 2**31 - 1, -2**31, 7], dtype=torch.int32)
            self.assertRtolEqual((cpu_i == 2**32 + 3).numpy(), (cpu_i.npu() == 2**32 + 3).cpu().numpy())
            self.assertRtolEqual((cpu_i / 3).numpy(), (cpu_i.npu() / 3).cpu().numpy())

        def test_refusals_name_the_pages_rule(self):
            # What the pages refuse and op-plugin passes straight through, a device refuses too: the
            # error names the page's row (empty tensors, dilation 1 only, floating matmul only)
            import torch.nn.functional as F

            def empty_backward(fn):
                x = torch.randn(0, 5).npu().requires_grad_(True)
                fn(x).sum().backward()
            refused = (
                (r"aclnnHardtanhBackward: gradOutput: empty tensors are not supported.*hardtanh_backward\.md:\d+",
                 lambda: empty_backward(F.hardtanh)),
                (r"aclnnMishBackward: gradOutput: empty tensors are not supported.*mish_backward\.md:\d+",
                 lambda: empty_backward(F.mish)),
                (r"aclnnLayerNormBackward: gradOut: empty tensors are not supported.*aclnnLayerNormBackward\.md:\d+",
                 lambda: empty_backward(lambda x: F.layer_norm(x, (5,)))),
                (r"aclnnMaxPool2dWith\w+: dilation\[0\]: 2 is outside \[1, 1\]",
                 lambda: F.max_pool2d(torch.randn(1, 2, 8, 8).npu(), 3, 1, 0, dilation=2)),
                (r"aclnnMm: self: dtype INT32 is not supported on Ascend910B.*aclnnMm\.md:\d+",
                 lambda: torch.mm(torch.ones(2, 3, dtype=torch.int32).npu(), torch.ones(3, 2, dtype=torch.int32).npu())),
            )
            for pattern, call in refused:
                with self.assertRaisesRegex(RuntimeError, pattern):
                    call()

    sys.argv = [sys.argv[0], "-v"]
    run_tests()
"""


def test_integer_scalars_on_the_default_chip(run_npu):
    output = run_npu(INTEGER_SCALARS)
    assert "Ran 2 tests" in output and "OK" in output, output
