"""FLOAT8 tensors read on the device (copy_ into FLOAT, FLOAT16, BFLOAT16: aclnnInplaceCopy), and the MX
and FLOAT8 quantisers through torch_npu's op-plugin on the simulator (Ascend950, the one chip their
pages support): torch_npu.npu_dynamic_mx_quant (aclnnDynamicMxQuantV3), npu_dynamic_mx_quant_with_dual_axis
(aclnnDynamicMxQuantWithDualAxisV2), npu_grouped_dynamic_mx_quant (aclnnGroupedDynamicMxQuantV2),
npu_dynamic_block_mx_quant (aclnnDynamicBlockMxQuant), npu_rms_norm_dynamic_mx_quant and
npu_add_rms_norm_dynamic_mx_quant (aclnnRmsNormDynamicMxQuant, aclnnAddRmsNormDynamicMxQuant), npu_swiglu_mx_quant
(aclnnSwigluMxQuant), npu_swiglu_mx_quant_with_dual_axis (aclnnSwigluMxQuantWithDualAxis),
_npu_swiglu_backward_mx_quant_with_dual_axis (aclnnSwigluBackwardMxQuantWithDualAxis),
npu_dynamic_dual_level_mx_quant (aclnnDynamicDualLevelMxQuant),
npu_anti_mx_quant (aclnnAntiMxQuant) and npu_quant_max (aclnnQuantMax, aclnnGroupedQuantMax), against CPU references written from the pages' formulas block by block in plain
Python (math.frexp for the shared exponent, the element formats' value tables for FLOAT4, torch's own
float8 dtypes for FLOAT8); and the refusals by name of what the pages leave undefined."""

import textwrap

# The pages' formulas, one block at a time; FLOAT4 codes packed two a byte, element 2i in the low bits.
REFERENCE = textwrap.dedent("""
    import math
    import torch_npu

    E4M3, E5M2, E2M1, E1M2 = 36, 35, 40, 41
    # dstType: (emax, largest value, the non-negative values of FLOAT4 by code, else None)
    FORMATS = {E4M3: (8, 448.0, None), E5M2: (15, 57344.0, None),
               E2M1: (2, 6.0, [0, 0.5, 1, 1.5, 2, 3, 4, 6]), E1M2: (0, 1.75, [i / 4 for i in range(8)])}
    TORCH_NPU = {E4M3: torch_npu.float8_e4m3fn, E5M2: torch_npu.float8_e5m2,
                 E2M1: torch_npu.float4_e2m1fn_x2, E1M2: torch_npu.float4_e1m2fn_x2}

    def fp4_code(v, table, mode):
        # The nearest value of the table (rint: ties to the even code) or the largest not above it.
        a = min(abs(v), table[-1])
        if mode == "floor":
            magnitude = max(t for t in table if t <= a) if v >= 0 else min(t for t in table if t >= a)
            code = table.index(magnitude)
        else:
            code = min(range(8), key=lambda c: (abs(table[c] - a), c % 2))
        return code | (8 if math.copysign(1, v) < 0 else 0)

    def shared_exponent(amax, emax, dst, alg, low_bound):
        if alg == 0:
            return max(-127, math.frexp(amax)[1] - 1 - emax) if amax else -127
        s = torch.tensor(max(amax, low_bound), dtype=torch.float32) / torch.tensor(FORMATS[dst][1])
        bits = int(s.view(torch.int32))
        e, m = bits >> 23 & 0xFF, bits & 0x7FFFFF
        return (e + (1 if (e > 0 and e < 254 and m > 0) or (e == 0 and m > 0x400000) else 0)) - 127

    def mx_quant(x, axis, dst, block, alg=0, mode="rint", low_bound=0.0):
        # (element codes as x's shape, uint8; scale codes [..., pairs, ..., 2], uint8)
        emax, top, table = FORMATS[dst]
        v = x.double().movedim(axis, -1).contiguous()
        rows, n = v.reshape(-1, v.shape[-1]).shape
        flat = v.reshape(rows, n).tolist()
        groups = -(-n // block)
        pairs = -(-groups // 2)
        codes = torch.zeros(rows, n, dtype=torch.uint8)
        scales = torch.zeros(rows, 2 * pairs, dtype=torch.uint8)
        for r in range(rows):
            for g in range(groups):
                block_values = flat[r][g * block:(g + 1) * block]
                e = shared_exponent(max(abs(b) for b in block_values), emax, dst, alg, low_bound)
                scales[r, g] = e + 127
                for j, b in enumerate(block_values):
                    q = max(-top, min(top, b / 2.0 ** e))
                    if table:
                        codes[r, g * block + j] = fp4_code(q, table, mode)
                    else:
                        dtype = torch.float8_e4m3fn if dst == E4M3 else torch.float8_e5m2
                        codes[r, g * block + j] = torch.tensor(q, dtype=torch.float32).to(dtype).view(torch.uint8)
        codes = codes.reshape(v.shape).movedim(-1, axis)
        scales = scales.reshape(*v.shape[:-1], pairs, 2).movedim(-2, axis % x.dim())
        return codes.contiguous(), scales.contiguous()

    def packed(codes):
        return codes[..., 0::2] | (codes[..., 1::2] << 4)

    def values(codes, dst):
        # FLOAT4 or FLOAT8 codes (one a byte) as their float values.
        emax, top, table = FORMATS[dst]
        if table:
            magnitude = torch.tensor(table, dtype=torch.float32)[(codes & 7).long()]
            return torch.where(codes & 8 > 0, -magnitude, magnitude)
        return codes.view(torch.float8_e4m3fn if dst == E4M3 else torch.float8_e5m2).float()
""")


def on_ascend950(run_npu, script, **env):
    """`script` after REFERENCE, on the pages' one chip."""
    return run_npu(REFERENCE + textwrap.dedent(script), env={"ACLNN_SIM_SOC": "Ascend950", **env})


def test_dynamic_mx_quant_follows_its_page(run_npu):
    on_ascend950(run_npu, """
        torch.manual_seed(0)
        cases = [
            # dtype, shape, axis, dstType, block, scaleAlg, roundMode, maxLowBound
            (torch.bfloat16, (4, 64), -1, E4M3, 32, 0, "rint", 0.0),
            (torch.float16, (3, 96), -1, E5M2, 64, 0, "rint", 0.0),
            (torch.float32, (2, 70), -1, E4M3, 32, 1, "rint", 0.0),  # a last block of 6
            (torch.bfloat16, (2, 40, 3), 1, E4M3, 32, 1, "rint", 0.25),  # a non-last axis, maxLowBound
            (torch.bfloat16, (64, 6), 0, E5M2, 32, 1, "rint", 0.0),
            (torch.float16, (2, 128), -1, E2M1, 32, 0, "rint", 0.0),
            (torch.bfloat16, (3, 96, 4), 1, E2M1, 32, 0, "floor", 0.0),  # three blocks: one pad
            (torch.float16, (4, 64), -1, E1M2, 64, 0, "rint", 0.0),
        ]
        for dtype, shape, axis, dst, block, alg, mode, low in cases:
            x = (torch.randn(shape) * torch.logspace(-3, 3, shape[-1])).to(dtype)
            x.view(-1)[:8] = 0  # a block with zeros, and exact ties among the scaled values
            x.view(-1)[8:12] = torch.tensor([3.0, -5.0, 0.75, 1.25], dtype=dtype)
            want_codes, want_scales = mx_quant(x, axis, dst, block, alg, mode, low)
            y, scale = torch_npu.npu_dynamic_mx_quant(x.npu(), axis=axis, round_mode=mode, dst_type=TORCH_NPU[dst],
                                                       block_size=block, scale_alg=alg, max_low_bound=low)
            got = y.cpu().view(torch.uint8)
            want = packed(want_codes) if FORMATS[dst][2] else want_codes
            case = (dtype, shape, axis, dst, block, alg, mode)
            assert torch.equal(scale.cpu().view(torch.uint8), want_scales), case
            assert torch.equal(got, want), (case, (got != want).nonzero()[:4])
        print("dynamic_mx_quant ok")
    """)


def test_dynamic_mx_quant_with_dual_axis_quantises_along_both_last_axes(run_npu):
    # aclnnDynamicMxQuantWithDualAxisV2: blocks of 32 along -1 (y1, mxscale1) and along -2 (y2, mxscale2),
    # each as the single-axis page's formula; the leading dimensions merged.
    on_ascend950(run_npu, """
        torch.manual_seed(3)
        for dtype, shape, dst, alg in ((torch.bfloat16, (2, 40, 64), E4M3, 0), (torch.float16, (70, 34), E5M2, 1),
                                       (torch.bfloat16, (3, 33, 66), E2M1, 0)):
            x = (torch.randn(shape) * 5).to(dtype)
            y1, s1, y2, s2 = torch_npu.npu_dynamic_mx_quant_with_dual_axis(x.npu(), dst_type=TORCH_NPU[dst], scale_alg=alg)
            for axis, y, s in ((-1, y1, s1), (-2, y2, s2)):
                codes, scales = mx_quant(x, axis, dst, 32, alg)
                want = packed(codes) if FORMATS[dst][2] else codes
                assert torch.equal(s.cpu().view(torch.uint8), scales), (shape, dst, axis)
                assert torch.equal(y.cpu().view(torch.uint8), want), (shape, dst, axis)
        print("dual axis ok")
    """)


def test_rms_norm_dynamic_mx_quant_quantises_the_norm_along_the_last_axis(run_npu):
    # aclnnRmsNormDynamicMxQuant and aclnnAddRmsNormDynamicMxQuant: y = x / Rms(x) * gamma + beta, Rms(x) =
    # sqrt(mean(x^2) + epsilon), the add form's x = x1 + x2 held in x1's dtype (x_out); y quantised along -1
    # in blocks of 32 as the single-axis page's formula; rstd [..., 1] when x requires grad (torch_npu's
    # outputRstd), else empty.
    on_ascend950(run_npu, """
        torch.manual_seed(5)
        cases = [
            # dtype, gamma's dtype, shape, dstType, scaleAlg, roundMode, beta
            (torch.float16, torch.float16, (3, 96), E4M3, 0, "rint", True),
            (torch.bfloat16, torch.float32, (2, 5, 70), E5M2, 1, "rint", False),  # a last block of 6
            (torch.float16, torch.float32, (4, 64), E2M1, 0, "floor", True),
            (torch.bfloat16, torch.bfloat16, (2, 34), E1M2, 0, "rint", True),
        ]
        for dtype, gamma_dtype, shape, dst, alg, mode, with_beta in cases:
            x1 = (torch.randn(shape) * 3).to(dtype)
            x2 = torch.randn(shape).to(dtype)
            gamma = (torch.rand(shape[-1]) + 0.5).to(gamma_dtype)
            beta = (torch.rand(shape[-1]) - 0.5).to(gamma_dtype) if with_beta else None
            kwargs = dict(beta=beta.npu() if with_beta else None, epsilon=1e-5, scale_alg=alg, round_mode=mode,
                          dst_type=TORCH_NPU[dst])
            for add in (False, True):
                x = (x1.float() + x2.float()).to(dtype) if add else x1
                rows = x.float().reshape(-1, shape[-1])
                rstd = torch.tensor([1 / math.sqrt(float(torch.tensor(sum(v * v for v in r) / shape[-1] + 1e-5,
                                                                       dtype=torch.float32)))
                                     for r in rows.double().tolist()], dtype=torch.float32)
                y = rows * rstd[:, None] * gamma.float() + (beta.float() if with_beta else 0)
                codes, scales = mx_quant(y.reshape(shape), -1, dst, 32, alg, mode)
                want = packed(codes) if FORMATS[dst][2] else codes
                if add:
                    got_y, x_out, got_scale, got_rstd = torch_npu.npu_add_rms_norm_dynamic_mx_quant(
                        x1.npu(), x2.npu(), gamma.npu(), **kwargs)
                    assert torch.equal(x_out.cpu(), x), (shape, "x_out")
                else:
                    got_y, got_scale, got_rstd = torch_npu.npu_rms_norm_dynamic_mx_quant(x1.npu(), gamma.npu(), **kwargs)
                case = (add, dtype, gamma_dtype, shape, dst, alg, mode)
                assert got_rstd.numel() == 0, case  # no grad: the invalid output torch_npu leaves empty
                assert torch.equal(got_scale.cpu().view(torch.uint8), scales), case
                got = got_y.cpu().view(torch.uint8)
                assert torch.equal(got, want), (case, (got != want).nonzero()[:4])
        # outputRstd: x requiring grad asks for rstd [..., 1].
        x = torch.randn(4, 64, dtype=torch.float16)
        gamma = torch.ones(64, dtype=torch.float16)
        _, _, rstd = torch_npu.npu_rms_norm_dynamic_mx_quant(x.npu().requires_grad_(), gamma.npu(),
                                                              dst_type=TORCH_NPU[E4M3])
        want = 1 / torch.sqrt(x.double().pow(2).mean(-1, keepdim=True).float() + 1e-6)
        assert rstd.shape == (4, 1) and torch.allclose(rstd.cpu(), want, rtol=1e-6), (rstd.cpu(), want)
        print("rms norm mx quant ok")
    """)


def test_swiglu_mx_quant_quantises_the_swiglu_along_either_last_axis(run_npu):
    # aclnnSwigluMxQuant: swiglu_mode 0 Swish(A) * B of x's halves along activate_dim (Swish(B) * A without
    # activate_left), mode 1 the clamped variant of the last axis's even and odd elements; the result
    # quantised along axis (-1 or -2) in blocks of 32; group_index bounds the rows (counts, or ends with
    # group_mode 1) and, along -2, restarts the blocks at each group (its pairs after the group before's).
    on_ascend950(run_npu, """
        torch.manual_seed(7)

        def swiglu(x, dim, left, mode, limit=7.0, alpha=1.702, bias=1.0):
            v = x.double()
            if mode == 1:
                a, b = v[..., 0::2].clamp(max=limit), v[..., 1::2].clamp(-limit, limit)
                return (a * torch.sigmoid(alpha * a) * (b + bias)).float()
            first, second = v.chunk(2, dim)
            active, other = (first, second) if left else (second, first)
            return (active * torch.sigmoid(active) * other).float()

        cases = [
            # dtype, shape, activate_dim, activate_left, swiglu_mode, axis, dstType, scaleAlg, roundMode
            (torch.bfloat16, (4, 128), -1, False, 0, -1, E4M3, 0, "rint"),
            (torch.float16, (128, 40), 0, True, 0, -2, E5M2, 1, "rint"),
            (torch.bfloat16, (2, 3, 96), 2, False, 1, -1, E2M1, 0, "floor"),
            (torch.float16, (2, 66, 68), -1, True, 0, -2, E1M2, 0, "rint"),  # a last block of 2 rows
        ]
        for dtype, shape, dim, left, mode, axis, dst, alg, rmode in cases:
            x = (torch.randn(shape) * 3).to(dtype)
            y, scale = torch_npu.npu_swiglu_mx_quant(x.npu(), activate_dim=dim, activate_left=left, swiglu_mode=mode,
                                                     axis=axis, dst_type=TORCH_NPU[dst], round_mode=rmode, scale_alg=alg)
            codes, scales = mx_quant(swiglu(x, dim, left, mode), axis, dst, 32, alg, rmode)
            want = packed(codes) if FORMATS[dst][2] else codes
            case = (dtype, shape, dim, left, mode, axis, dst)
            assert torch.equal(scale.cpu().view(torch.uint8), scales), case
            got = y.cpu().view(torch.uint8)
            assert torch.equal(got, want), (case, (got != want).nonzero()[:4])
        # Groups of rows: along -1 only the rows within their sum are defined; along -2 each group's
        # blocks start at its first row.
        x = (torch.randn(70, 64) * 3).bfloat16()
        s = swiglu(x, -1, False, 0)
        y, scale = torch_npu.npu_swiglu_mx_quant(x.npu(), group_index=torch.tensor([20, 30]).npu(),
                                                 dst_type=TORCH_NPU[E4M3])
        codes, scales = mx_quant(s[:50], -1, E4M3, 32)
        assert torch.equal(y.cpu().view(torch.uint8)[:50], codes)
        assert torch.equal(scale.cpu().view(torch.uint8)[:50], scales)
        y, scale = torch_npu.npu_swiglu_mx_quant(x.npu(), group_index=torch.tensor([10, 50]).npu(), group_mode=1, axis=-2,
                                                 dst_type=TORCH_NPU[E4M3])
        assert scale.shape == (70 // 64 + 2, 32, 2), scale.shape
        for (start, end), row in (((0, 10), 0), ((10, 50), 1)):
            codes, scales = mx_quant(s[start:end], 0, E4M3, 32)
            assert torch.equal(y.cpu().view(torch.uint8)[start:end], codes), (start, end)
            assert torch.equal(scale.cpu().view(torch.uint8)[row:row + 1], scales), (start, end)
        # Counts past x's rows are device data: phase 2 fails naming group_index.
        try:
            torch_npu.npu_swiglu_mx_quant(x.npu(), group_index=torch.tensor([60, 30]).npu(), dst_type=TORCH_NPU[E4M3])
            torch.npu.synchronize()
            raise AssertionError("counts past x's rows computed")
        except RuntimeError as error:
            assert "groupIndexOptional" in str(error), error
        # The dual-axis form (aclnnSwigluMxQuantWithDualAxis): x [M, 2N]'s swiglu along -1 and along -2, the
        # latter's blocks restarting at group_index's cumulative ends.
        for dst, alg, left, ends in ((E4M3, 1, True, None), (E2M1, 0, False, None), (E5M2, 0, True, [30, 30, 70])):
            index = None if ends is None else torch.tensor(ends).npu()
            y1, s1, y2, s2 = torch_npu.npu_swiglu_mx_quant_with_dual_axis(x.npu(), group_index=index, activate_left=left,
                                                                         scale_alg=alg, dst_type=TORCH_NPU[dst])
            s = swiglu(x, -1, left, 0)
            case = (dst, alg, left, ends)
            codes, scales = mx_quant(s, -1, dst, 32, alg)
            assert torch.equal(y1.cpu().view(torch.uint8), packed(codes) if FORMATS[dst][2] else codes), case
            assert torch.equal(s1.cpu().view(torch.uint8), scales), case
            starts, row = [0] + (ends or [70])[:-1], 0
            for start, end in zip(starts, ends or [70]):
                if end == start:
                    continue
                codes, scales = mx_quant(s[start:end], 0, dst, 32, alg)
                assert torch.equal(y2.cpu().view(torch.uint8)[start:end], packed(codes) if FORMATS[dst][2] else codes)
                assert torch.equal(s2.cpu().view(torch.uint8)[row:row + scales.shape[0]], scales), (case, start)
                row += scales.shape[0]
        print("swiglu mx quant ok")
    """)


def test_swiglu_backward_mx_quant_with_dual_axis_quantises_the_gradient(run_npu):
    # aclnnSwigluBackwardMxQuantWithDualAxis: x [M, 2N]'s SwiGLU gradient from y_grad [M, N] (the page:
    # grad_A = yGrad * B * sigmoid(A) * (1 + A - A * sigmoid(A)), grad_B = yGrad * A * sigmoid(A), A the
    # first half; each half's gradient at its place), in double rounded to float, quantised to FLOAT8_E4M3FN
    # along -1 and along -2 (scaleAlg 1), the latter's blocks restarting at group_index's cumulative ends;
    # what the page does not admit refused.
    out = on_ascend950(run_npu, """
        g = torch.Generator().manual_seed(5)
        x = (torch.rand(70, 128, generator=g) * 8 - 4).bfloat16()
        dy = (torch.rand(70, 64, generator=g) * 4 - 2).bfloat16()
        def gradient(x, dy, left):
            # x's gradient: each half's at its own place (A the half activate_left activates)
            first, second = x.double().chunk(2, -1)
            a, b = (first, second) if left else (second, first)
            sig = torch.sigmoid(a)
            grad_a, grad_b = dy.double() * b * sig * (1 + a - a * sig), dy.double() * a * sig
            return torch.cat([grad_a, grad_b] if left else [grad_b, grad_a], -1).float()

        for dtype, left, ends in ((torch.bfloat16, True, None), (torch.float16, True, [30, 30, 70]),
                                  (torch.bfloat16, False, None)):
            xs, dys = x.to(dtype), dy.to(dtype)
            grad = gradient(xs, dys, left)
            index = None if ends is None else torch.tensor(ends).npu()
            y1, s1, y2, s2 = torch.ops.npu._npu_swiglu_backward_mx_quant_with_dual_axis(xs.npu(), dys.npu(),
                                                                                        group_index=index,
                                                                                        activate_left=left)
            codes, scales = mx_quant(grad, -1, E4M3, 32, 1)
            assert torch.equal(y1.cpu().view(torch.uint8), codes), ends
            assert torch.equal(s1.cpu().view(torch.uint8), scales), ends
            assert s2.shape == ((70 // 64 + len(ends)) if ends else 2, 128, 2), s2.shape
            starts, row = [0] + (ends or [70])[:-1], 0
            for start, end in zip(starts, ends or [70]):
                if end == start:
                    continue
                codes, scales = mx_quant(grad[start:end], 0, E4M3, 32, 1)
                assert torch.equal(y2.cpu().view(torch.uint8)[start:end], codes), (ends, start)
                assert torch.equal(s2.cpu().view(torch.uint8)[row:row + scales.shape[0]], scales), (ends, start)
                row += scales.shape[0]
        def refused(words, **kwargs):
            try:
                torch.ops.npu._npu_swiglu_backward_mx_quant_with_dual_axis(x.npu(), dy.npu(), **kwargs)[0].cpu()
            except RuntimeError as e:
                assert all(w in str(e) for w in words), (words, str(e)[:600])
            else:
                raise AssertionError(("no error", kwargs))
        refused(["scaleAlg"], scale_alg=0)
        refused(["y1Out", "FLOAT8_E5M2"], dst_type=TORCH_NPU[E5M2])  # phase 1: the page lists E4M3FN alone
        refused(["groupIndexOptional"], group_index=torch.tensor([30, 60]).npu())  # ends short of M
        print("swiglu backward mx quant ok")
    """, ASCEND_LAUNCH_BLOCKING="1")
    assert "swiglu backward mx quant ok" in out


def test_dynamic_dual_level_mx_quant_scales_twice(run_npu):
    # aclnnDynamicDualLevelMxQuant: x (times smooth_scale, the product in x's dtype) per block of 512 along
    # the last axis divided by level0 = max|x| / 6 and cast to x's dtype, then the OCP MX quantisation to
    # FLOAT4_E2M1 in blocks of 32 (level1); a block of 512 zeros (level0 0, divided by) fails by name.
    on_ascend950(run_npu, """
        torch.manual_seed(11)
        for dtype, shape, smoothed, mode in ((torch.bfloat16, (3, 1024), False, "rint"),
                                             (torch.float16, (2, 2, 600), True, "floor"), (torch.float16, (70,), True, "rint")):
            x = (torch.randn(shape) * torch.logspace(-2, 2, shape[-1])).to(dtype)
            smooth = (torch.rand(shape[-1]) + 0.5).to(dtype) if smoothed else None
            y, level0, level1 = torch_npu.npu_dynamic_dual_level_mx_quant(
                x.npu(), smooth_scale=smooth.npu() if smoothed else None, round_mode=mode)
            v = (x.float() * smooth.float()).to(dtype).float() if smoothed else x.float()
            n = shape[-1]
            want0 = torch.stack([v[..., b:b + 512].abs().amax(-1) / 6.0 for b in range(0, n, 512)], -1)
            temp = torch.cat([v[..., b:b + 512] / want0[..., b // 512:b // 512 + 1] for b in range(0, n, 512)], -1)
            codes, scales = mx_quant(temp.to(dtype), -1, E2M1, 32, 0, mode)
            case = (dtype, shape, smoothed, mode)
            assert torch.equal(level0.cpu(), want0), case
            assert torch.equal(level1.cpu().view(torch.uint8), scales), case
            got = y.cpu().view(torch.uint8)
            assert torch.equal(got, packed(codes)), (case, (got != packed(codes)).nonzero()[:4])
        x = torch.randn(2, 1024, dtype=torch.bfloat16)
        x[1, 512:] = 0
        try:
            torch_npu.npu_dynamic_dual_level_mx_quant(x.npu())
            torch.npu.synchronize()
            raise AssertionError("a block of zeros quantised")
        except RuntimeError as error:
            assert "all zeros" in str(error), error
        print("dual level ok")
    """)


def test_grouped_dynamic_mx_quant_restarts_blocks_at_each_group(run_npu):
    # aclnnGroupedDynamicMxQuantV2: x [m, n]'s rows cut at group_index's cumulative ends, each group's blocks
    # of 32 along dim 0 from its own start, its pairs of blocks after the group before's in mxscale
    # [m // 64 + g, n, 2] (rows past them 0); an empty group takes none.
    on_ascend950(run_npu, """
        torch.manual_seed(4)
        for dtype, ends, n, dst, alg in ((torch.bfloat16, [40, 40, 105], 6, E4M3, 0), (torch.float16, [64], 4, E5M2, 1),
                                         (torch.bfloat16, [3, 70], 8, E2M1, 0)):
            x = (torch.randn(ends[-1], n) * 3).to(dtype)
            y, scale = torch_npu.npu_grouped_dynamic_mx_quant(x.npu(), torch.tensor(ends, dtype=torch.int32).npu(),
                                                              dst_type=TORCH_NPU[dst], scale_alg=alg)
            codes, scales = [], []
            for start, end in zip([0] + ends[:-1], ends):
                if end > start:
                    c, s = mx_quant(x[start:end], 0, dst, 32, alg)
                    codes.append(c)
                    scales.append(s)
            rows = ends[-1] // 64 + len(ends)
            scales = torch.cat(scales)
            scales = torch.cat([scales, torch.zeros(rows - scales.shape[0], n, 2, dtype=torch.uint8)])
            want = packed(torch.cat(codes)) if FORMATS[dst][2] else torch.cat(codes)
            assert torch.equal(scale.cpu().view(torch.uint8), scales), (ends, dst)
            assert torch.equal(y.cpu().view(torch.uint8), want), (ends, dst)
        print("grouped ok")
    """)


def test_dynamic_block_mx_quant_shares_a_scale_per_32_by_32_block(run_npu):
    # aclnnDynamicBlockMxQuant: one scale per 32 x 32 block of the last two axes, at each of the block's
    # rows in scale1 ([..., M, pairs, 2]) and each of its columns in scale2 ([..., pairs, N, 2]); scaleAlg 2
    # (FLOAT4_E2M1): amax / dst_type_max (0.0: 6.0) rounded up to a power of two by its float bits.
    on_ascend950(run_npu, """
        torch.manual_seed(5)
        def block_reference(x, dst, alg, top):
            emax, largest, table = FORMATS[dst]
            m, n = x.shape[-2:]
            flat = x.reshape(-1, m, n)
            rows, cols = -(-m // 32), -(-n // 32)
            codes = torch.zeros(flat.shape, dtype=torch.uint8)
            scale1 = torch.zeros(flat.shape[0], m, 2 * (-(-cols // 2)), dtype=torch.uint8)
            scale2 = torch.zeros(flat.shape[0], 2 * (-(-rows // 2)), n, dtype=torch.uint8)
            for b in range(flat.shape[0]):
                for br in range(rows):
                    for bc in range(cols):
                        block = flat[b, br * 32:(br + 1) * 32, bc * 32:(bc + 1) * 32]
                        amax = block.double().abs().max().item()
                        if alg == 0:
                            e = shared_exponent(amax, emax, dst, 0, 0.0)
                        else:
                            s = torch.tensor(amax, dtype=torch.float32) / torch.tensor(top or largest)
                            bits = int(s.view(torch.int32))
                            e = (bits >> 23 & 0xFF) + (1 if 0 < (bits >> 23 & 0xFF) < 254 and bits & 0x7FFFFF else 0) - 127
                        for r in range(block.shape[0]):
                            for k in range(block.shape[1]):
                                q = max(-largest, min(largest, block[r, k].item() / 2.0 ** e))
                                if table:
                                    code = fp4_code(q, table, "rint")
                                else:
                                    fp8 = torch.float8_e4m3fn if dst == E4M3 else torch.float8_e5m2
                                    code = int(torch.tensor(q).to(fp8).view(torch.uint8))
                                codes[b, br * 32 + r, bc * 32 + k] = code
                        scale1[b, br * 32:br * 32 + block.shape[0], bc] = e + 127
                        scale2[b, br, bc * 32:bc * 32 + block.shape[1]] = e + 127
            lead = x.shape[:-2]
            scale1 = scale1.reshape(*lead, m, -1, 2)
            scale2 = scale2.reshape(*lead, -1, 2, n).transpose(-1, -2)
            return codes.reshape(x.shape), scale1, scale2

        for dtype, shape, dst, alg, top in ((torch.bfloat16, (40, 70), E4M3, 0, 0.0), (torch.float16, (2, 33, 64), E5M2, 0, 0.0),
                                            (torch.bfloat16, (64, 66), E2M1, 0, 0.0), (torch.bfloat16, (40, 34), E2M1, 2, 7.0),
                                            (torch.float16, (32, 32), E2M1, 2, 0.0)):
            x = (torch.randn(shape) * 4).to(dtype)
            y, s1, s2 = torch_npu.npu_dynamic_block_mx_quant(x.npu(), dst_type=TORCH_NPU[dst], scale_alg=alg, dst_type_max=top)
            codes, scale1, scale2 = block_reference(x, dst, alg, top)
            want = packed(codes) if FORMATS[dst][2] else codes
            assert torch.equal(s1.cpu().view(torch.uint8), scale1), (shape, dst, alg, "scale1")
            assert torch.equal(s2.cpu().view(torch.uint8), scale2), (shape, dst, alg, "scale2")
            assert torch.equal(y.cpu().view(torch.uint8), want), (shape, dst, alg)
        print("block ok")
    """)


def test_anti_mx_quant_inverts_the_quantiser(run_npu):
    on_ascend950(run_npu, """
        torch.manual_seed(1)
        for dst, shape, axis, out in ((E4M3, (4, 64), -1, torch.float32), (E5M2, (40, 3), 0, torch.bfloat16),
                                      (E2M1, (2, 96), -1, torch.float16), (E1M2, (3, 70, 2), 1, torch.float32)):
            x = torch.randn(shape, dtype=torch.bfloat16) * 10
            y, scale = torch_npu.npu_dynamic_mx_quant(x.npu(), axis=axis, dst_type=TORCH_NPU[dst])
            got = torch_npu.npu_anti_mx_quant(y, scale, axis=axis, dst_type=out, src_type=TORCH_NPU[dst]).cpu()
            codes = y.cpu().view(torch.uint8)
            if FORMATS[dst][2]:
                codes = torch.stack((codes & 15, codes >> 4), -1).reshape(shape)
            # y = x_q * 2^(sf - 127), sf the code of x_q's block of 32 along axis.
            sf = scale.cpu().view(torch.uint8).movedim(axis % len(shape), -2)
            sf = sf.reshape(*sf.shape[:-2], -1).repeat_interleave(32, -1)[..., :shape[axis]].movedim(-1, axis)
            want = (values(codes, dst) * torch.pow(2.0, sf.float() - 127)).to(out)
            assert got.dtype == out and torch.equal(got, want), (dst, shape, (got.float() - want.float()).abs().max())
        print("anti_mx_quant ok")
    """)


def test_mx_quant_refuses_by_name_what_its_page_leaves_open(run_npu):
    out = on_ascend950(run_npu, """
        x = torch.randn(2, 64).bfloat16().npu()
        def refused(words, **kwargs):
            try:
                torch_npu.npu_dynamic_mx_quant(x, **kwargs)[0].cpu()
            except RuntimeError as e:
                assert all(w in str(e) for w in words), (words, str(e)[:600])
            else:
                raise AssertionError(("no error", kwargs))
        refused(["scaleAlg 2"], dst_type=TORCH_NPU[E2M1], scale_alg=2)
        refused(["dstTypeMax"], dst_type=TORCH_NPU[E2M1], dst_type_max=6.0)
        refused(["roundMode", "round"], dst_type=TORCH_NPU[E2M1], round_mode="round")
        refused(["roundMode", "floor"], dst_type=TORCH_NPU[E4M3], round_mode="floor")
        nan = x.clone()
        nan[1, 3] = float("nan")
        try:
            torch_npu.npu_dynamic_mx_quant(nan, dst_type=TORCH_NPU[E4M3])[0].cpu()
        except RuntimeError as e:
            assert "NaN" in str(e), str(e)[:600]
        else:
            raise AssertionError("a NaN x quantised")
        print("refusals ok")
    """, ASCEND_LAUNCH_BLOCKING="1")  # each refusal the exception of its own call
    assert "refusals ok" in out


def test_mx_quant_is_refused_off_ascend950(run_npu):
    # The pages support Ascend950 alone: on the default chip (Ascend910B) the call fails, naming the API.
    run_npu("""
        try:
            torch_npu.npu_dynamic_mx_quant(torch.randn(2, 64).bfloat16().npu(), dst_type=torch_npu.float8_e4m3fn)[0].cpu()
        except RuntimeError as e:
            assert "DynamicMxQuant" in str(e), str(e)[:600]
        else:
            raise AssertionError("computed on Ascend910B")
    """)


def test_float8_tensors_read_into_wider_floats(run_npu):
    # Every code of both FLOAT8 formats (NaN and infinity included) into each type the page lists, as
    # the CPU converts it; a FLOAT8 selfRef (a store whose overflow the page leaves open) is refused.
    run_npu("""
        codes = torch.arange(256, dtype=torch.uint8)
        for fp8 in (torch.float8_e4m3fn, torch.float8_e5m2):
            x = codes.view(fp8)
            for to in (torch.float32, torch.float16, torch.bfloat16):
                got, want = x.npu().to(to).cpu(), x.to(to)
                assert torch.equal(got.isnan(), want.isnan()), (fp8, to)
                assert torch.equal(got.nan_to_num(0.0), want.nan_to_num(0.0)), (fp8, to)
        try:
            torch.randn(4).npu().to(torch.float8_e4m3fn).cpu()
        except RuntimeError as e:
            assert "selfRef" in str(e) and "FLOAT8_E4M3FN" in str(e), str(e)[:600]
        else:
            raise AssertionError("a FLOAT8 store computed")
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})


def test_quant_max_follows_its_pages(run_npu):
    # y = Cast(x_g * scale[g]) half to even (the product in float), amax[g] = max|x_g|: one group
    # (aclnnQuantMax) or the rows group_list's cumulative ends cut (aclnnGroupedQuantMax). An overflow
    # of the cast, which the pages leave open, and HIFLOAT8 are refused by name.
    on_ascend950(run_npu, """
        torch.manual_seed(2)
        for dtype, dst, ends in ((torch.bfloat16, E4M3, None), (torch.float16, E5M2, None),
                                 (torch.float32, E4M3, [3, 4, 9]), (torch.bfloat16, E5M2, [9])):  # one group: aclnnQuantMax
            x = (torch.randn(9, 5) * 20).to(dtype)
            groups = [9] if ends is None else ends
            scale = torch.rand(len(groups)) * 4 + 0.5
            spans = list(zip([0] + groups[:-1], groups))
            fp8 = torch.float8_e4m3fn if dst == E4M3 else torch.float8_e5m2
            want_y = torch.cat([(x[s:e].float() * scale[g]).to(fp8) for g, (s, e) in enumerate(spans)])
            want_amax = torch.stack([x[s:e].abs().amax() for s, e in spans])
            group_list = None if ends is None else torch.tensor(ends).npu()
            y, amax = torch_npu.npu_quant_max(x.npu(), scale.npu(), dst_dtype=TORCH_NPU[dst], group_list=group_list)
            assert y.dtype == fp8 and torch.equal(y.cpu().view(torch.uint8), want_y.view(torch.uint8)), (dtype, dst, ends)
            assert torch.equal(amax.cpu(), want_amax), (dtype, dst, ends)
        for words, kwargs in ((["x * scale", "448"], {"dst_dtype": TORCH_NPU[E4M3]}),
                              (["HIFLOAT8"], {"dst_dtype": 290, "round_mode": "round"})):
            try:
                torch_npu.npu_quant_max(torch.full((2, 3), 500.0).npu(), torch.ones(1).npu(), **kwargs)[0].cpu()
            except RuntimeError as e:
                assert all(w in str(e) for w in words), (words, str(e)[:600])
            else:
                raise AssertionError(("no error", kwargs))
    """, ASCEND_LAUNCH_BLOCKING="1")
