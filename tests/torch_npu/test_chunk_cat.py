"""torch._chunk_cat on device="npu" (op-plugin's aclnnChunkCat for contiguous FLOAT, FLOAT16 and
BFLOAT16 lists along dim 0: the chunk_cat family) equals PyTorch on the CPU, chunks padded with
zeros, out= of a wider dtype included."""


def test_chunk_cat_equals_the_cpu(run_npu):
    run_npu("""
        tensors = [torch.randn(5, 2), torch.randn(3), torch.randn(4, 2, 3)]
        for chunks in (1, 2, 3, 7):
            for dtype in (torch.float32, torch.float16, torch.bfloat16):
                cpu = [t.to(dtype) for t in tensors]
                want = torch._chunk_cat(cpu, 0, chunks)
                got = torch._chunk_cat([t.npu() for t in cpu], 0, chunks).cpu()
                assert got.dtype == want.dtype and torch.equal(got, want), (chunks, dtype)
        half = [t.half() for t in tensors]
        want = torch._chunk_cat(half, 0, 2).float()
        out = torch.empty(want.shape, dtype=torch.float32).npu()
        torch._chunk_cat([t.npu() for t in half], 0, 2, out=out)
        assert torch.equal(out.cpu(), want)
    """)
