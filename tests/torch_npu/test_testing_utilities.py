"""torch_npu's own per-op testing utilities (torch_npu.testing) on the simulator: the TestCase and
create_common_tensor that framework per-op suites are written with, including tensors cast to the
formats those suites name (npu_format_cast, which runs the aclop Identity operator)."""


def test_a_per_op_test_written_with_torch_npu_testing_passes(run_npu):
    output = run_npu("""
        import sys
        import numpy as np
        from torch_npu.testing.testcase import TestCase, run_tests
        from torch_npu.testing.common_utils import create_common_tensor

        class TestAdd(TestCase):
            def test_add_shape_format(self):
                shape_format = [[np.float32, 0, (4, 3)], [np.float16, 2, (4, 3)], [np.float32, 3, (2, 4, 3, 3)],
                                [np.int32, 2, (5,)], [np.float32, 29, (6, 5)]]
                for item in shape_format:
                    cpu_a, npu_a = create_common_tensor(item, -10, 10)
                    cpu_b, npu_b = create_common_tensor(item, -10, 10)
                    if cpu_a.dtype == torch.float16:
                        cpu_a, cpu_b = cpu_a.float(), cpu_b.float()
                    want = torch.add(cpu_a, cpu_b, alpha=2).numpy().astype(npu_a.cpu().numpy().dtype)
                    got = torch.add(npu_a, npu_b, alpha=2).to("cpu").numpy()
                    self.assertRtolEqual(want, got)

            def test_mul_and_softmax(self):
                cpu_x, npu_x = create_common_tensor([np.float32, 0, (3, 7)], -2, 2)
                self.assertRtolEqual((cpu_x * 3).numpy(), (npu_x * 3).cpu().numpy())
                self.assertRtolEqual(torch.softmax(cpu_x, 1).numpy(), torch.softmax(npu_x, 1).cpu().numpy())

        sys.argv = [sys.argv[0], "-v"]
        run_tests()
    """)
    assert "Ran 2 tests" in output and "OK" in output, output


def test_private_formats_where_the_user_allows_them(run_npu):
    # On Atlas A2 torch_npu keeps tensors in their base format unless allowed; allowed, npu_format_cast
    # stores them as NC1HWC0 or FRACTAL_NZ (the aclop Identity transforms), .cpu() reads them back
    # through the reverse transform, and op-plugin sends an operator given such a tensor to aclop by
    # type name (x + 1 to Add), which the bridge runs on plain copies (tests/torch_npu/test_private_formats.py
    # has the other chips and the refusals). The setting is the process's: restored for the next script.
    output = run_npu("""
        torch.npu.config.allow_internal_format = True
        try:
            for shape, fmt, name in (((2, 19, 4, 5), 3, "NC1HWC0"), ((17, 33), 29, "FRACTAL_NZ")):
                for dtype in (torch.float32, torch.float16):
                    x = (torch.randn(*shape) * 10).to(dtype)
                    stored = torch_npu.npu_format_cast(x.npu(), fmt)
                    assert torch_npu.get_npu_format(stored) == fmt, torch_npu.get_npu_format(stored)
                    assert torch.equal(stored.cpu(), x)
                    assert torch.equal(torch_npu.npu_format_cast(stored, 2).cpu(), x)
                    added = stored + 1
                    assert torch_npu.get_npu_format(added) == fmt, torch_npu.get_npu_format(added)
                    assert torch.equal(added.cpu(), x + 1)
                    print("round trip", name, dtype)
        finally:
            torch.npu.config.allow_internal_format = False
    """)
    assert output.count("round trip") == 4, output
