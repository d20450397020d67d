"""Operators through torch_npu's op-plugin, which calls the simulator's aclnn APIs: results equal
PyTorch on the CPU. An operator with no aclnn API on the simulator fails with an error naming it,
never with a wrong value."""


def test_elementwise(run_npu):
    run_npu("""
        a, b = torch.randn(4, 5), torch.randn(4, 5)
        na, nb = a.npu(), b.npu()
        cases = {
            "add": (na + nb, a + b), "add alpha": (torch.add(na, nb, alpha=2), torch.add(a, b, alpha=2)),
            "adds": (na + 1.5, a + 1.5), "sub": (na - nb, a - b), "subs": (na - 2, a - 2),
            "mul": (na * nb, a * b), "muls": (na * 3, a * 3), "div": (na / (nb.abs() + 1), a / (b.abs() + 1)),
            "abs": (na.abs(), a.abs()), "neg": (-na, -a), "exp": (na.exp(), a.exp()),
            "relu": (torch.relu(na), torch.relu(a)), "silu": (torch.nn.functional.silu(na), torch.nn.functional.silu(a)),
            "sigmoid": (torch.sigmoid(na), torch.sigmoid(a)), "tanh": (torch.tanh(na), torch.tanh(a)),
            "broadcast": (na + nb[0], a + b[0]),
            # lambd reaches aclnnSoftshrink/aclnnHardshrink as a DOUBLE aclScalar (semantics/activations.toml)
            "softshrink": (torch.nn.functional.softshrink(na, 0.5), torch.nn.functional.softshrink(a, 0.5)),
            "hardshrink": (torch.nn.functional.hardshrink(na.half(), 0.5).float(),
                           torch.nn.functional.hardshrink(a.half(), 0.5).float()),
        }
        for name, (got, want) in cases.items():
            assert torch.allclose(got.cpu(), want, rtol=1e-5, atol=1e-6), name
        x = na.clone(); x += nb; x.mul_(2)
        assert torch.allclose(x.cpu(), (a + b) * 2, rtol=1e-5, atol=1e-6)
        h = na.half()
        assert torch.allclose((h * h).cpu().float(), (a.half() * a.half()).float(), rtol=1e-3, atol=1e-3)
    """)


def test_matmul_and_linear(run_npu):
    run_npu("""
        a, b = torch.randn(8, 16), torch.randn(16, 4)
        assert torch.allclose((a.npu() @ b.npu()).cpu(), a @ b, rtol=1e-4, atol=1e-5)
        x, y = torch.randn(3, 8, 16), torch.randn(3, 16, 4)
        assert torch.allclose(torch.bmm(x.npu(), y.npu()).cpu(), torch.bmm(x, y), rtol=1e-4, atol=1e-5)
        # Integer products scale by alpha and beta in the integer type (alpha=0.6 scales by 0), as
        # PyTorch's CPU kernel does: the matmul engine had scaled them in double.
        m, v, s = (torch.randint(-5, 5, shape, dtype=torch.int32) for shape in ((5, 10), (10,), (5,)))
        for alpha, beta in ((0.6, 0.2), (2.5, -1.7), (1, 1)):
            want = torch.addmv(s, m, v, beta=beta, alpha=alpha)
            assert torch.equal(torch.addmv(s.npu(), m.npu(), v.npu(), beta=beta, alpha=alpha).cpu(), want), alpha
        lin = torch.nn.Linear(16, 4)
        want = lin(a)
        assert torch.allclose(lin.npu()(a.npu()).cpu(), want, rtol=1e-4, atol=1e-5)
        # npu_transpose_batchmatmul (aclnnTransposeBatchMatMul): x1 read as [B, M, K] through perm_x1,
        # the product [B, M, N] returned as [M, B, N].
        x1, x2 = torch.randn(3, 2, 128), torch.randn(3, 128, 256)
        for perm, left in (([0, 1, 2], x1), ([1, 0, 2], x1.transpose(0, 1).contiguous())):
            got = torch_npu.npu_transpose_batchmatmul(left.npu(), x2.npu(), perm_x1=perm).cpu()
            want = torch.bmm(left.permute(*perm), x2).permute(1, 0, 2)
            assert got.shape == want.shape and torch.allclose(got, want, rtol=1e-4, atol=1e-4), perm
    """)


def test_a_weight_stored_in_fractal_nz_multiplies_as_its_values(run_npu):
    # npu_format_cast(w, 29) (allowed internal formats) keeps w as 16 x 16 fractals (padded: K and
    # N are no multiples of 16); mm reaches aclnnMatmulWeightNz in float16 and bfloat16 (aclop's
    # MatMul in float32), bmm aclnnBatchMatMulWeightNz, addmm and Linear aclnnAddmmWeightNz, Linear
    # with the transposed view of the fractals. The page lists no FLOAT mat1 for aclnnAddmmWeightNz: a float32 addmm is its 161002.
    output = run_npu("""
        torch.npu.config.allow_internal_format = True
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            x, w, bias = torch.randn(5, 20).to(dtype), torch.randn(20, 9).to(dtype), torch.randn(9).to(dtype)
            w_nz = torch_npu.npu_format_cast(w.npu(), 29)
            assert torch_npu.get_npu_format(w_nz) == 29
            tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {"rtol": 2e-2, "atol": 5e-2}
            want = (x.float() @ w.float()).to(dtype)
            assert torch.allclose((x.npu() @ w_nz).cpu(), want, **tol), dtype
            assert torch.allclose(torch.mm(x.npu(), w_nz).cpu(), want, **tol), dtype
            print("fractal nz mm", dtype)
            if dtype == torch.float32:
                continue
            xb, wb = torch.randn(3, 5, 20).to(dtype), torch.randn(3, 20, 9).to(dtype)
            got = torch.bmm(xb.npu(), torch_npu.npu_format_cast(wb.npu(), 29)).cpu()
            assert torch.allclose(got, (xb.float() @ wb.float()).to(dtype), **tol), dtype
            got = torch.addmm(bias.npu(), x.npu(), w_nz, beta=0.5, alpha=2).cpu()
            assert torch.allclose(got, (0.5 * bias.float() + 2 * (x.float() @ w.float())).to(dtype), **tol), dtype
            w_t_nz = torch_npu.npu_format_cast(w.t().contiguous().npu(), 29)  # a Linear's [out, in] weight
            got = torch.nn.functional.linear(x.npu(), w_t_nz, bias.npu()).cpu()
            assert torch.allclose(got, (x.float() @ w.float() + bias.float()).to(dtype), **tol), dtype
            print("fractal nz addmm", dtype)
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})
    assert output.count("fractal nz mm") == 3 and output.count("fractal nz addmm") == 2, output


def test_batched_weights_in_fractal_nz_through_the_c_abi(run_npu):
    # torch.bmm of an NZ weight goes to aclop's BatchMatMul here (op-plugin's compatibility switch), so
    # aclnnBatchMatMulWeightNz is called as another framework would: the fractals laid out by hand from
    # the page's (b, n1, k1, k0, n0) (k0 = n0 = 16, K and N padded) in torch_npu's memory, the view [b, K, N]
    # (or [b, N, K] transposed over (b, k1, n1, n0, k0)), a batch of 1 broadcast.
    output = run_npu("""
        import ctypes
        P, I64 = ctypes.c_void_p, ctypes.c_int64
        nnop, opapi = ctypes.CDLL("libnnopbase.so"), ctypes.CDLL("libopapi.so")
        nnop.aclCreateTensor.restype = P
        nnop.aclCreateTensor.argtypes = [ctypes.POINTER(I64), ctypes.c_uint64, ctypes.c_int, ctypes.POINTER(I64), I64,
                                         ctypes.c_int, ctypes.POINTER(I64), ctypes.c_uint64, P]
        nnop.aclGetRecentErrMsg = ctypes.CDLL("libascendcl.so").aclGetRecentErrMsg
        nnop.aclGetRecentErrMsg.restype = ctypes.c_char_p
        ints = lambda values: (I64 * len(values))(*values)

        def tensor(t, view, strides, fmt=2, storage=None):
            storage = list(t.shape) if storage is None else storage
            return P(nnop.aclCreateTensor(ints(view), len(view), 1, ints(strides), 0, fmt, ints(storage), len(storage),
                                          P(t.data_ptr())))

        def fractals(p):  # [b, rows, cols] -> the NZ storage [b, ceil(cols/16), ceil(rows/16), 16, 16]
            b, rows, cols = p.shape
            padded = torch.zeros(b, -(-rows // 16) * 16, -(-cols // 16) * 16, dtype=p.dtype)
            padded[:, :rows, :cols] = p
            return padded.reshape(b, padded.shape[1] // 16, 16, padded.shape[2] // 16, 16).permute(0, 3, 1, 2, 4).contiguous()

        def bmm_nz(x, w, transposed):
            stored = fractals(w.transpose(1, 2) if transposed else w)
            b, k, n = w.shape
            view_strides = [k * n, 1, k] if transposed else [k * n, n, 1]
            y = torch.empty(max(x.shape[0], b), x.shape[1], n, dtype=x.dtype).npu()
            xs, ws = x.npu(), stored.npu()
            args = [tensor(xs, list(x.shape), [x.shape[1] * x.shape[2], x.shape[2], 1]),
                    tensor(ws, [b, k, n], view_strides, 29, list(stored.shape)),
                    tensor(y, list(y.shape), [y.shape[1] * n, n, 1])]
            size, executor = ctypes.c_uint64(0), P()
            torch.npu.synchronize()
            status = opapi.aclnnBatchMatMulWeightNzGetWorkspaceSize(*args, ctypes.c_int8(0), ctypes.byref(size),
                                                                    ctypes.byref(executor))
            assert status == 0, nnop.aclGetRecentErrMsg()
            workspace = torch.empty(max(size.value, 1), dtype=torch.uint8).npu()
            stream = P(torch.npu.current_stream().npu_stream)
            assert opapi.aclnnBatchMatMulWeightNz(P(workspace.data_ptr()), size, executor, stream) == 0
            torch.npu.synchronize()
            return y.cpu()

        for transposed in (False, True):
            for xb, wb in ((3, 3), (3, 1)):
                x, w = torch.randn(xb, 5, 20).half(), torch.randn(wb, 20, 9).half()
                got, want = bmm_nz(x, w, transposed), (x.float() @ w.float()).half()
                assert torch.allclose(got, want, rtol=1e-3, atol=1e-2), (transposed, xb, wb, got, want)
        print("batched nz ran")
    """)
    assert "batched nz ran" in output


def test_softmax_and_reductions(run_npu):
    run_npu("""
        a = torch.randn(6, 10)
        d = a.npu()
        assert torch.allclose(torch.softmax(d, -1).cpu(), torch.softmax(a, -1), atol=1e-6)
        assert torch.allclose(torch.log_softmax(d, 1).cpu(), torch.log_softmax(a, 1), atol=1e-5)
        assert torch.allclose(d.sum().cpu(), a.sum(), atol=1e-4)
        assert torch.allclose(d.sum(0).cpu(), a.sum(0), atol=1e-5)
        assert torch.allclose(d.mean(1, keepdim=True).cpu(), a.mean(1, keepdim=True), atol=1e-6)
        values, indices = d.max(1)
        assert torch.equal(values.cpu(), a.max(1).values) and torch.equal(indices.cpu(), a.max(1).indices)
        # aclnnMinDim's page gives indices INT32 alone; op-plugin passes INT64 (semantics/reductions.toml).
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            values, indices = torch.min(d.to(dtype), 1)
            want = torch.min(a.to(dtype), 1)
            assert torch.equal(values.cpu(), want.values) and torch.equal(indices.cpu(), want.indices), dtype
        assert torch.equal(d.argmax(1).cpu(), a.argmax(1))
        # torch.aminmax over everything reaches aclnnAminmax, over a dimension aclnnAminmaxDim.
        for got, want in ((torch.aminmax(d), torch.aminmax(a)), (torch.aminmax(d, dim=1), torch.aminmax(a, dim=1))):
            assert torch.equal(got.min.cpu(), want.min) and torch.equal(got.max.cpu(), want.max)
        assert torch.equal(torch.cat([d, d], 0).cpu(), torch.cat([a, a], 0))
        assert torch.equal(torch.where(d > 0, d, d * 0).cpu(), torch.where(a > 0, a, a * 0))
    """)



def test_float16_and_bfloat16_kernels_round_once(run_npu):
    # CANN's vector kernels compute float16 and bfloat16 in float32 and cast once at the end (the
    # corpus' kernel notes say so where they describe it: apply_adam_d's README, "BFLOAT16 / FLOAT16
    # 输入在算子内部统一 Cast 升精度到 FLOAT32 计算，结果按 RINT 降回原数据类型"; apply_ftrl's,
    # hard_sigmoid_v2's), its cube unit accumulates in float32: each kernel, on inputs already in the dtype, gives the float32
    # result rounded once, up to an ulp in a few elements. A kernel that rounded a partial sum, an
    # exp or a log-sum-exp to the dtype is ulps off (measured: chunked sums, K-chunked matmuls,
    # log_softmax from a rounded logsumexp) or off by one ulp in 15-25% of the elements (softmax
    # from rounded exps). What rounds between kernels (log_softmax's output read by its backward)
    # rounds so on a device too: tests/torch_npu/nn_suite_sweep.py reports it as `rounding`.
    run_npu("""
        import torch.nn.functional as F
        A = torch.ops.aten
        x, t, y = torch.randn(8, 1000) * 3, torch.rand(8, 1000) + 0.01, torch.randn(8, 1000)
        logp = torch.log_softmax(x, 1)
        gx, gy = torch.randn(4, 8, 60) * 2 + 1, torch.randn(4, 8, 60)
        _, mean, rstd = A.native_group_norm(gx, None, None, 4, 8, 60, 2, 1e-5)
        kernels = {
            "softmax": (lambda x: torch.softmax(x, 1), x), "log_softmax": (lambda x: torch.log_softmax(x, 1), x),
            "log_softmax_backward": (lambda g, out: torch._log_softmax_backward_data(g, out, 1, g.dtype), y, logp),
            "sum": (lambda x: x.sum(1), x), "mean": (lambda x: x.mean(), x), "var": (lambda x: x.var(1), x),
            "norm": (lambda x: x.norm(dim=1), x), "logsumexp": (lambda x: x.logsumexp(1), x),
            "cumsum": (lambda x: x.cumsum(1), x), "layer_norm": (lambda x, w: F.layer_norm(x, (1000,), w), x, torch.rand(1000) + 0.5),
            "group_norm_backward": (lambda dy, x, m, r: A.native_group_norm_backward(
                dy, x, m, r, None, 4, 8, 60, 2, [True, False, False])[0], gy, gx, mean, rstd),
            "mm": (lambda a, b: a @ b, torch.randn(16, 2048), torch.randn(2048, 8)),
            "kl_div": (lambda x, t: F.kl_div(x, t, reduction="none"), logp, t), "mse_loss": (lambda x, y: F.mse_loss(x, y), x, y),
        }
        for dtype, eps in ((torch.float16, 2.0 ** -10), (torch.bfloat16, 2.0 ** -7)):
            for name, (kernel, *inputs) in kernels.items():
                args = [v.to(dtype) for v in inputs]
                want = kernel(*[v.float() for v in args]).to(dtype).float()
                got = kernel(*[v.npu() for v in args]).cpu()
                assert got.dtype == dtype, (name, got.dtype)
                err = (got.float() - want).abs()
                beyond = err > eps * want.abs() + eps * 2.0 ** -6 * want.abs().max()
                differ = (err > 0).float().mean().item()
                assert not beyond.any() and differ <= 0.01, (name, dtype, err.max().item(), differ)
    """)

def test_module_forward(run_npu):
    run_npu("""
        model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8),
                                    torch.nn.Softmax(dim=-1))
        x = torch.randn(5, 32)
        want = model(x)
        got = model.npu()(x.npu()).cpu()
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-6), (got - want).abs().max()
    """)


def test_an_operator_the_simulator_cannot_run_raises_naming_it_in_asynchronous_mode(run_npu):
    # torch_npu.npu_get_float_status: op-plugin runs it as its aclop operator NPUGetFloatStatusV2
    # (there is no aclnn API for it), which the simulator's aclop bridge does not model and refuses by
    # name, saying why (the device's overflow register, which the simulator does not keep): a wrong
    # value would be the failure. In torch_npu's default asynchronous mode the refusal happens on its task queue's
    # thread and still reaches the caller as an exception, at the synchronisation (the simulator holds
    # it for the caller: tests/torch_npu/test_task_queue.py checks that later operators compute).
    output = run_npu("""
        import os
        assert "ASCEND_LAUNCH_BLOCKING" not in os.environ
        try:
            torch_npu.npu_get_float_status(torch.rand(8).npu())
            torch.npu.synchronize()
        except RuntimeError as error:
            print("raised:", "operator type NPUGetFloatStatusV2" in str(error)
                  and "not modelled by the simulator's aclop bridge" in str(error) and "overflow register" in str(error))
    """, fresh=True)
    assert "raised: True" in output, output


def test_cdist_backward_runs_as_the_aclop_operator_cdist_grad(run_npu):
    # On Atlas A2 op-plugin sends cdist's backward for p in [0, 2] and inf to the aclop operator
    # CdistGrad, with its inputs broadcast to [..., P, R, M]: the bridge reads them unexpanded and
    # runs aclnnCdistBackward (with no distances, P or R 0, the gradient is zeros or empty).
    run_npu("""
        for shape1, shape2, p in (((3, 4), (5, 4), 2.0), ((2, 6, 3), (2, 8, 3), 1.0), ((3, 4), (5, 4), float("inf")),
                                  ((0, 4), (5, 4), 2.0), ((3, 4), (0, 4), 2.0)):
            a, b = torch.randn(*shape1), torch.randn(*shape2)
            g = torch.randn(*shape1[:-1], shape2[-2])
            want, got = a.clone().requires_grad_(), a.npu().requires_grad_()
            torch.cdist(want, b, p=p).backward(g)
            torch.cdist(got, b.npu(), p=p).backward(g.npu())
            assert torch.allclose(got.grad.cpu(), want.grad, atol=1e-5), (p, got.grad.cpu(), want.grad)
    """)


def test_the_aclop_bridge_through_the_c_abi(run_npu):
    # What torch_npu's operators do not send: BatchMatMulV2 with a bias and both inputs adjoint, and
    # a Transpose whose permutation is marked constant with aclSetTensorConst (torch_npu places its
    # constants on the host instead), called as another framework would, on torch_npu's memory.
    output = run_npu("""
        import ctypes
        P, I64 = ctypes.c_void_p, ctypes.c_int64
        acl, compiler = ctypes.CDLL("libascendcl.so"), ctypes.CDLL("libacl_op_compiler.so")
        acl.aclCreateTensorDesc.restype = acl.aclCreateDataBuffer.restype = acl.aclopCreateAttr.restype = P
        acl.aclGetRecentErrMsg.restype = ctypes.c_char_p

        def operand(t, const=False):
            size = ctypes.c_size_t(t.numel() * t.element_size())
            desc = P(acl.aclCreateTensorDesc({torch.float32: 0, torch.float16: 1, torch.int64: 9}[t.dtype], t.dim(),
                                             (I64 * t.dim())(*t.shape), 2))
            if const:
                assert acl.aclSetTensorConst(desc, P(t.data_ptr()), size) == 0
            return desc, P(acl.aclCreateDataBuffer(P(t.data_ptr()), size))

        def run(op_type, inputs, outputs, adjoint=(), ints=(), floats=()):
            attr = P(acl.aclopCreateAttr())
            for name in adjoint:
                assert acl.aclopSetAttrBool(attr, name, ctypes.c_uint8(1)) == 0
            for name, value in ints:
                assert acl.aclopSetAttrInt(attr, name, I64(value)) == 0
            for name, value in floats:
                assert acl.aclopSetAttrFloat(attr, name, ctypes.c_float(value)) == 0
            ins = [operand(t, const=t.device.type == "cpu") for t in inputs]
            outs = [operand(t) for t in outputs]
            array = lambda items, k: (P * len(items))(*[item[k] for item in items])
            torch.npu.synchronize()  # the inputs written by torch_npu's queue
            status = compiler.aclopCompileAndExecute(op_type, len(ins), array(ins, 0), array(ins, 1), len(outs), array(outs, 0),
                                                      array(outs, 1), attr, 0, 0, None, None)
            assert status == 0, acl.aclGetRecentErrMsg()
            torch.npu.synchronize()

        x1, x2, bias, y = torch.randn(2, 8, 3), torch.randn(2, 5, 8), torch.randn(5), torch.empty(2, 3, 5).npu()
        run(b"BatchMatMulV2", [x1.npu(), x2.npu(), bias.npu()], [y], adjoint=(b"adj_x1", b"adj_x2"))
        assert torch.allclose(y.cpu(), x1.transpose(1, 2) @ x2.transpose(1, 2) + bias, atol=1e-5)
        x, y = torch.randn(2, 3, 4), torch.empty(4, 2, 3).npu()
        run(b"Transpose", [x.npu(), torch.tensor([2, 0, 1])], [y])
        assert torch.equal(y.cpu(), x.permute(2, 0, 1))
        # GroupNorm in float16 outputs y, mean and the variance as a device's kernel does: computed in
        # float32, each rounded once (the variance from a float16 rstd, rounded three times, was an
        # ulp off in 47% of these groups).
        x = (torch.randn(4, 16, 6) * 3 + 1).half()
        gamma, beta = (torch.rand(16) + 0.5).half(), torch.randn(16).half()
        outs = [torch.empty(4, 16, 6).half().npu(), torch.empty(4, 8).half().npu(), torch.empty(4, 8).half().npu()]
        run(b"GroupNorm", [x.npu(), gamma.npu(), beta.npu()], outs, ints=[(b"num_groups", 8)], floats=[(b"eps", 1e-5)])
        groups = x.float().reshape(4, 8, 12)
        want = [torch.nn.functional.group_norm(x.float(), 8, gamma.float(), beta.float(), 1e-5), groups.mean(-1),
                groups.var(-1, unbiased=False)]
        for got, wanted in zip(outs, want):
            got, wanted = got.cpu().float(), wanted.half().float()
            assert torch.allclose(got, wanted, rtol=2.0 ** -10, atol=0), (got, wanted)
            assert (got != wanted).float().mean() <= 0.05, (got, wanted)
        print("both ran")
    """)
    assert "both ran" in output
