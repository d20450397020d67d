"""Tensors on the simulated NPU through torch_npu: copies both ways and on the device, views, dtypes,
empty tensors, factories (torch.zeros/ones/full reach aclnnInplaceZero/One/FillScalar)."""


def test_copies_both_ways_and_on_the_device(run_npu):
    run_npu("""
        # On Atlas A2, the default chip, CANN runs binary kernels (ACL_OP_JIT_COMPILE=disable) and
        # op-plugin calls the aclnn APIs (test_private_formats.py: Ascend310P compiles online)
        assert torch.npu.is_jit_compile_false()
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool):
            a = (torch.randn(3, 5) * 10).to(dtype)
            d = a.npu()
            assert d.device.type == "npu" and d.dtype == dtype
            assert torch.equal(d.cpu(), a), dtype
            assert torch.equal(d.clone().cpu(), a), dtype                 # device to device
            assert torch.equal(d.t().contiguous().cpu(), a.t().contiguous()), dtype
            assert torch.equal(d[1:, ::2].cpu(), a[1:, ::2]), dtype
        e = torch.empty(0, 4).npu()
        assert e.cpu().shape == (0, 4)
        s = torch.tensor(2.5).npu()
        assert s.item() == 2.5
    """)


def test_factories_fill_the_device_memory(run_npu):
    run_npu("""
        # The caching allocator hands back freed blocks: fill a block with other values first, so
        # that a factory that wrote nothing would be caught.
        junk = torch.full((64,), 7.0).npu(); del junk
        assert torch.equal(torch.zeros(64, device="npu").cpu(), torch.zeros(64))
        assert torch.equal(torch.ones(64, device="npu").cpu(), torch.ones(64))
        assert torch.equal(torch.full((64,), -2.5, device="npu").cpu(), torch.full((64,), -2.5))
        t = torch.empty(8, dtype=torch.int32, device="npu"); t.fill_(3)
        assert torch.equal(t.cpu(), torch.full((8,), 3, dtype=torch.int32))
        t.zero_()
        assert torch.equal(t.cpu(), torch.zeros(8, dtype=torch.int32))
    """)


def test_dtype_casts(run_npu):
    run_npu("""
        a = torch.randn(4, 6) * 100
        d = a.npu()
        for dtype in (torch.float16, torch.bfloat16, torch.int32, torch.float64):
            assert torch.equal(d.to(dtype).cpu(), a.to(dtype)), dtype
    """)
