"""F.embedding_bag and nn.EmbeddingBag on device="npu" (op-plugin's aclnnEmbeddingBag: the
embedding_bag family) equal PyTorch on the CPU in the modes the simulator models; max mode, which
the page's one-dimensional maxIndices cannot hold, fails naming mode, never with a wrong value."""


def test_embedding_bag_equals_the_cpu(run_npu):
    # Bags of several sizes, an empty one included (offsets 3 and 3), padding rows left out, INT32
    # and INT64 indices, per-sample weights (sum mode only), CSR offsets (include_last_offset), a
    # FLOAT16 table, and nn.EmbeddingBag over 2-D input (fixed-size bags); max mode refused by name.
    run_npu("""
        F = torch.nn.functional
        weight = torch.randn(10, 4)
        indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0])
        offsets = torch.tensor([0, 3, 3, 7])
        def check(name, got, want, tol=1e-5):
            assert got.dtype == want.dtype and torch.allclose(got.cpu(), want, rtol=tol, atol=tol), (name, got, want)
        for mode in ("sum", "mean"):
            for padding_idx in (None, 4):
                for dtype in (torch.int64, torch.int32):
                    i, o = indices.to(dtype), offsets.to(dtype)
                    want = F.embedding_bag(i, weight, o, mode=mode, padding_idx=padding_idx)
                    got = F.embedding_bag(i.npu(), weight.npu(), o.npu(), mode=mode, padding_idx=padding_idx)
                    check((mode, padding_idx, dtype), got, want)
        psw = torch.rand(9)
        check("per_sample_weights",
              F.embedding_bag(indices.npu(), weight.npu(), offsets.npu(), mode="sum", per_sample_weights=psw.npu()),
              F.embedding_bag(indices, weight, offsets, mode="sum", per_sample_weights=psw))
        csr = torch.tensor([0, 3, 3, 7, 9])
        check("include_last_offset",
              F.embedding_bag(indices.npu(), weight.npu(), csr.npu(), include_last_offset=True),
              F.embedding_bag(indices, weight, csr, include_last_offset=True))
        half = weight.half()
        check("float16", F.embedding_bag(indices.npu(), half.npu(), offsets.npu()),
              F.embedding_bag(indices, half, offsets), tol=1e-3)
        bag = torch.nn.EmbeddingBag(10, 4, mode="sum")
        batch = torch.randint(0, 10, (3, 5))
        want = bag(batch).detach()
        check("nn.EmbeddingBag", bag.npu()(batch.npu()).detach(), want)
        try:
            F.embedding_bag(indices.npu(), weight.npu(), offsets.npu(), mode="max")
        except RuntimeError as error:
            assert "max" in str(error) and "maxIndices" in str(error), error
        else:
            raise AssertionError("max mode was not refused")
    """)



def test_embedding_bag_on_ascend950_with_op_plugins_empty_max_indices(run_npu):
    # On Ascend950 op-plugin passes maxIndices as [0] in sum and mean mode (it has nothing to hold
    # there): the bags compute, where phase 1 refused its shape. include_last_offset's bagSize, which
    # op-plugin gives one element more there than there are bags, stays refused naming bagSize.
    run_npu("""
        F = torch.nn.functional
        weight = torch.randn(10, 4)
        indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0])
        offsets = torch.tensor([0, 3, 3, 7])
        for mode in ("sum", "mean"):
            for padding_idx in (None, 4):
                want = F.embedding_bag(indices, weight, offsets, mode=mode, padding_idx=padding_idx)
                got = F.embedding_bag(indices.npu(), weight.npu(), offsets.npu(), mode=mode, padding_idx=padding_idx)
                assert torch.allclose(got.cpu(), want, rtol=1e-5, atol=1e-5), (mode, padding_idx, got, want)
        try:
            F.embedding_bag(indices.npu(), weight.npu(), torch.tensor([0, 3, 3, 7, 9]).npu(), include_last_offset=True)
            torch.npu.synchronize()
        except RuntimeError as error:
            assert "bagSize" in str(error), error
        else:
            raise AssertionError("include_last_offset's longer bagSize computed on Ascend950")
    """, env={"ACLNN_SIM_SOC": "Ascend950"})
