"""torch_npu.npu_swiglu_quant on device="npu" (op-plugin's aclnnSwiGluQuantV2: the swiglu_quant family) against
the page's formulas written here in PyTorch on the CPU, in double: Act = Swish(A) * B over x's halves (the
left half activated with activate_left, else the right), the rows of each group of group_index (cumulative
ends or counts; one group without it) times that group's smooth_scales row or value, then per row dynamic
quantisation (scale = row_max(|Y|) / 127, y = round(Y / scale)) or static (y = round(Y + offsets)), half to
even, saturated to INT8; and what the page leaves open refused by name."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

REFERENCE = """
    def reference(x, smooth, offsets, group_index, activate_left, quant_mode, group_list_type):
        half = x.shape[-1] // 2
        rows = x.double().reshape(-1, 2 * half)
        a, b = (rows[:, :half], rows[:, half:]) if activate_left else (rows[:, half:], rows[:, :half])
        act = a * torch.sigmoid(a) * b
        if group_index is None:
            ends = [rows.shape[0]]
        else:
            ends = group_index.long().tolist()
            ends = [sum(ends[:i + 1]) for i in range(len(ends))] if group_list_type == 1 else ends
        y = torch.zeros(rows.shape[0], half, dtype=torch.int8)
        scale = torch.zeros(rows.shape[0])
        start = 0
        for g, end in enumerate(ends):
            v = act[start:end]
            if smooth is not None:
                v = v * (smooth.double()[g] if smooth.dim() == 2 else smooth.double()[g].reshape(1))
            if quant_mode == 1:
                s = v.abs().amax(-1) / 127
                y[start:end] = torch.round(v / s[:, None]).clamp(-128, 127).to(torch.int8)
                scale[start:end] = s.float()
            else:
                o = offsets.double()[g] if offsets.dim() == 2 else offsets.double()[g].reshape(1)
                y[start:end] = torch.round(v + o).clamp(-128, 127).to(torch.int8)
            start = end
        return y.reshape(*x.shape[:-1], half), scale.reshape(x.shape[:-1]), start

    def close(got, want, rows):
        # Float against double: a quotient at a rounding tie may round the other way.
        diff = (got.cpu().reshape(-1, got.shape[-1])[:rows].int() - want.reshape(-1, want.shape[-1])[:rows].int()).abs()
        return int(diff.max()) <= 1 and float((diff != 0).float().mean()) < 0.01
"""


def test_npu_swiglu_quant_follows_its_page(run_npu):
    run_npu(REFERENCE + """
    g = torch.Generator().manual_seed(3)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for shape, groups in (((6, 64), None), ((2, 5, 32), [2, 7, 10]), ((9, 16), [0, 4, 4, 9])):
            x = (torch.randn(*shape, generator=g) * 3).to(dtype)
            half, rows = shape[-1] // 2, x.numel() // shape[-1]
            count = len(groups) if groups else 1
            for list_type in ((0, 1) if groups else (0,)):
                index = None
                if groups:
                    ends = torch.tensor(groups, dtype=torch.int32)
                    index = ends if list_type == 0 else torch.diff(ends, prepend=torch.zeros(1, dtype=torch.int32))
                for left in (False, True):
                    for smooth in (torch.rand(count, half, generator=g) + 0.5, torch.rand(count, generator=g) + 0.5, None):
                        want_y, want_scale, covered = reference(x, smooth, None, index, left, 1, list_type)
                        y, scale = torch_npu.npu_swiglu_quant(
                            x.npu(), smooth_scales=None if smooth is None else smooth.npu(),
                            group_index=None if index is None else index.npu(), activate_left=left, quant_mode=1,
                            group_list_type=list_type)
                        assert y.dtype == torch.int8 and y.shape == want_y.shape and scale.shape == want_scale.shape
                        assert close(y, want_y, covered), (dtype, shape, groups, left)
                        assert torch.allclose(scale.cpu().reshape(-1)[:covered], want_scale.reshape(-1)[:covered],
                                              rtol=1e-5, atol=1e-7), (dtype, shape, groups, left)
                    # static: per channel ([G, N]) and per tensor ([G]) smooth scales and offsets
                    for smooth, offsets in ((torch.rand(count, half, generator=g) * 20 + 1,
                                             torch.randn(count, half, generator=g) * 4),
                                            (torch.rand(count, generator=g) * 20 + 1, torch.randn(count, generator=g) * 4)):
                        want_y, _, covered = reference(x, smooth, offsets, index, left, 0, list_type)
                        y, _ = torch_npu.npu_swiglu_quant(
                            x.npu(), smooth_scales=smooth.npu(), offsets=offsets.npu(),
                            group_index=None if index is None else index.npu(), activate_left=left, quant_mode=0,
                            group_list_type=list_type)
                        assert close(y, want_y, covered), ("static", dtype, shape, groups, left)
    # rows past the last group are not written: what the output held stays (here, whatever it held),
    # the rows the groups cover are computed
    x = torch.randn(8, 32)
    want_y, want_scale, covered = reference(x, None, None, torch.tensor([2, 5], dtype=torch.int32), False, 1, 0)
    y, scale = torch_npu.npu_swiglu_quant(x.npu(), group_index=torch.tensor([2, 5], dtype=torch.int32).npu(), quant_mode=1)
    assert covered == 5 and close(y, want_y, covered)
    """)


def test_npu_swiglu_quant_refuses_what_its_page_leaves_open_by_name(run_npu):
    run_npu(REFUSED_BY_NAME + """
    x = torch.randn(4, 32).npu()
    calls = [
        # group ends that decrease or run past x's rows, counts that are negative (device data: phase 2)
        (lambda: torch_npu.npu_swiglu_quant(x, group_index=torch.tensor([3, 2], dtype=torch.int32).npu(), quant_mode=1),
         "groupIndexOptional"),
        (lambda: torch_npu.npu_swiglu_quant(x, group_index=torch.tensor([5], dtype=torch.int32).npu(), quant_mode=1),
         "groupIndexOptional"),
        (lambda: torch_npu.npu_swiglu_quant(x, group_index=torch.tensor([3, -1], dtype=torch.int32).npu(), quant_mode=1,
                                            group_list_type=1), "groupIndexOptional"),
        # static quantisation without its scales and offsets
        (lambda: torch_npu.npu_swiglu_quant(x, quant_mode=0), "smoothScalesOptional"),
        # a 1-d smooth_scales of N values without groups: per column, where the page reads per group
        (lambda: torch_npu.npu_swiglu_quant(x, smooth_scales=torch.ones(16).npu(), quant_mode=1), "smoothScalesOptional"),
    ]
    refused_by_name(calls)
    """)


def test_npu_swiglu_quant_declines_int4_by_name(run_npu):
    # INT4 output: how two values share a byte no page states. A fresh process: torch_npu's task queue drops
    # the work queued after an execute call that failed, so that nothing else may run behind it.
    run_npu(REFUSED_BY_NAME + """
    x = torch.randn(4, 32).npu()
    refused_by_name([(lambda: torch_npu.npu_swiglu_quant(x, quant_mode=1, dst_type=torch.quint4x2), "dstType 29")])
    """, fresh=True)


def test_npu_dequant_swiglu_quant_follows_the_fused_readme(run_npu):
    # npu_dequant_swiglu_quant (aclnnDequantSwigluQuant, where the library has no V2): its page names Dequant and
    # Quant without formulas; the fused GroupedMatmulSwigluQuant README states them for the same kernel, written
    # here in double: an INT32 x times weight_scale's row of its group (group_index counts) and activation_scale's
    # value of its row, SwiGLU, then per row scale = max|S| / 127 and y = round(S / scale). What no page states
    # (bias, quant_scale in dynamic mode, static mode) is refused by name.
    run_npu(REFUSED_BY_NAME + """
    g = torch.Generator().manual_seed(9)
    for rows, hidden, counts, left in ((6, 32, None, True), (7, 64, [2, 0, 4], False), (5, 16, [1, 4], True)):
        x = torch.randint(-500, 500, (rows, hidden), generator=g, dtype=torch.int32)
        groups = len(counts) if counts else 1
        weight = torch.rand(groups, hidden, generator=g) * 0.01 + 0.001
        act_scale = torch.rand(rows, generator=g) * 0.1 + 0.01
        index = None if counts is None else torch.tensor(counts, dtype=torch.int64)
        group = torch.zeros(rows, dtype=torch.long) if counts is None else torch.repeat_interleave(
            torch.arange(groups), index)
        covered = group.numel()
        d = x[:covered].double() * weight.double()[group] * act_scale.double()[:covered, None]
        a, b = (d[:, :hidden // 2], d[:, hidden // 2:]) if left else (d[:, hidden // 2:], d[:, :hidden // 2])
        s = a * torch.sigmoid(a) * b
        scale = s.abs().amax(-1) / 127
        want = torch.round(s / scale[:, None]).clamp(-128, 127)
        y, got_scale = torch_npu.npu_dequant_swiglu_quant(
            x.npu(), weight_scale=(weight if counts else weight[0]).npu(), activation_scale=act_scale.npu(),
            group_index=None if index is None else index.npu(), activate_left=left, quant_mode=1)
        assert y.dtype == torch.int8 and y.shape == (rows, hidden // 2)
        diff = (y.cpu()[:covered].int() - want.int()).abs()
        assert int(diff.max()) <= 1 and float((diff != 0).float().mean()) < 0.02, (rows, hidden, counts)
        assert torch.allclose(got_scale.cpu()[:covered].double(), scale, rtol=1e-5), (rows, hidden, counts)
    x = torch.randint(-5, 5, (4, 32), dtype=torch.int32).npu()
    w, a = torch.rand(32).npu(), torch.rand(4).npu()
    refused_by_name([
        (lambda: torch_npu.npu_dequant_swiglu_quant(x, activation_scale=a, quant_mode=1), "weightScaleOptional"),
        (lambda: torch_npu.npu_dequant_swiglu_quant(x, weight_scale=w, activation_scale=torch.rand(3).npu(),
                                                    quant_mode=1), "activationScaleOptional"),
        (lambda: torch_npu.npu_dequant_swiglu_quant(
            x, weight_scale=torch.rand(2, 32).npu(), activation_scale=a,
            group_index=torch.tensor([3, 3]).npu(), quant_mode=1), "groupIndexOptional"),
    ])
    """)


def test_npu_dequant_swiglu_quant_declines_what_no_page_states_by_name(run_npu):
    # Each in a fresh process: torch_npu's task queue drops the work queued after an execute call that failed.
    for options, word in (("bias=torch.zeros(32, dtype=torch.int32).npu(), quant_mode=1", "biasOptional"),
                          ("quant_scale=torch.ones(16).npu(), quant_mode=1", "quantScaleOptional"),
                          ("quant_scale=torch.ones(1).npu(), quant_offset=torch.zeros(1).npu(), quant_mode=0", "static")):
        run_npu(REFUSED_BY_NAME + f"""
    x = torch.randint(-5, 5, (4, 32), dtype=torch.int32).npu()
    w, a = torch.rand(32).npu(), torch.rand(4).npu()
    refused_by_name([(lambda: torch_npu.npu_dequant_swiglu_quant(x, weight_scale=w, activation_scale=a, {options}),
                      "{word}")])
    """, fresh=True)
