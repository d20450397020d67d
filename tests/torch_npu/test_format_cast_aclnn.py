"""torch_npu's npu_format_cast on Ascend950, where torch_npu runs aclnn alone: it shapes the destination
with aclnnNpuFormatCastCalculateSizeAndFormat and moves the elements with aclnnNpuFormatCast (the
format_cast family), where it refused before ("aclnnNpuFormatCast does not exist"). FRACTAL_NZ's
storage is checked element by element against the layout the page states (C0 = 32 bytes of the
dtype, fractals of 16 rows), not only read back; float32 and int32 go to FRACTAL_NZ_C0_16 (50: the
actualFormat of the page's FLOAT and INT32 rows with torch_npu's FLOAT16 additionalDtype), C0 = 16
elements, checked the same way. NC1HWC0 and NCHW carry the page's superscript 1 (not Ascend950): those
stay refused by name."""

SOC = {"ACLNN_SIM_SOC": "Ascend950"}


def test_fractal_nz_storage_and_back_on_ascend950(run_npu):
    run_npu("""
        import ctypes
        acl = ctypes.CDLL("libascendcl.so")
        acl.aclrtMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

        def device_bytes(t, like):  # t's device memory as it is, bypassing torch_npu's cast back to ND
            torch.npu.synchronize()
            out = torch.empty(like.shape, dtype=like.dtype)
            size = out.numel() * out.element_size()
            assert acl.aclrtMemcpy(out.data_ptr(), size, t.data_ptr(), size, 2) == 0  # ACL_MEMCPY_DEVICE_TO_HOST
            return out

        def fractals(x, c0):  # the page's FRACTAL_NZ storage of x [batch..., M, N], zero-padded
            *batch, m, n = x.shape
            m1, n1 = -(-m // 16), -(-n // c0)
            padded = torch.zeros(*batch, m1 * 16, n1 * c0, dtype=x.dtype)
            padded[..., :m, :n] = x
            return padded.reshape(*batch, m1, 16, n1, c0).movedim(-2, -4).contiguous()

        for dtype, c0, fmt in ((torch.float16, 16, 29), (torch.bfloat16, 16, 29), (torch.int8, 32, 29),
                               (torch.float32, 16, 50), (torch.int32, 16, 50)):
            for shape in ((17, 33), (2, 17, 33), (16, 32), (1, 5), (3, 40, 7)):  # ND, and NCL for 3-D
                x = (torch.randn(shape) * 20).to(dtype)
                nz = torch_npu.npu_format_cast(x.npu(), 29)
                assert torch_npu.get_npu_format(nz) == fmt, torch_npu.get_npu_format(nz)
                want = fractals(x, c0)
                raw = device_bytes(nz, want)
                assert torch.equal(raw, want), (shape, dtype)
                back = torch_npu.npu_format_cast(nz, 2)
                assert torch_npu.get_npu_format(back) == 2 and torch.equal(back.cpu(), x), (shape, dtype)
                assert torch.equal(nz.cpu(), x), (shape, dtype)  # a private tensor reads back in ND
    """, env=SOC)


def test_casts_the_page_leaves_out_refuse_by_name_on_ascend950(run_npu):
    run_npu("""
        import numpy as np
        from torch_npu.testing.common_utils import create_common_tensor
        # NC1HWC0, and NCHW (a 4-D tensor's base format) into FRACTAL_NZ, carry the page's superscript 1,
        # not Ascend950 (161002).
        for dtype, fmt, shape, status in ((np.float16, 3, (2, 19, 4, 5), "161002"),
                                          (np.float16, 3, (4, 5), "161002"), (np.float16, 29, (3, 2, 40, 7), "161002")):
            try:
                create_common_tensor([dtype, fmt, shape], -3, 3)
            except RuntimeError as error:
                assert "aclnnNpuFormatCastCalculateSizeAndFormat" in str(error) and status in str(error), error
            else:
                raise AssertionError(f"{dtype} cast to format {fmt} computed")
    """, env=SOC)
