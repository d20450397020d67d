"""torch_npu.npu_grouped_matmul_swiglu_quant through op-plugin on the simulator (aclnnGroupedMatmulSwigluQuantWeightNZ,
the one API op-plugin calls; a derived page from the GroupedMatmulSwigluQuant README): the rows of expert i
(group_list's cumulative ends) times weight[i] exactly, C = acc * x_scale * weight_scale[i] in float, S = Swish(C's
left half) * its right half, per-row Q_scale = max|S| / 127 and Q = round(S / Q_scale), against a reference written
from the README with torch ops on the CPU; rows past the last end left as they were (the README: not written); what
the README constrains refused naming the argument."""

import textwrap

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

SETUP = textwrap.dedent(REFUSED_BY_NAME) + textwrap.dedent("""
    import torch_npu

    g = torch.Generator().manual_seed(21)

    def reference(x, w, ws, xs, ends):
        # The README's formula, expert by expert over its rows [ends[i - 1], ends[i]).
        q = torch.zeros(ends[-1], w.shape[2] // 2, dtype=torch.int8)
        scale = torch.zeros(ends[-1])
        start = 0
        for i, end in enumerate(ends):
            acc = (x[start:end].double() @ w[i].double()).float()      # the INT32 accumulator, exact
            c = acc * xs[start:end, None] * ws[i]
            act, gate = c.chunk(2, -1)
            s = torch.nn.functional.silu(act) * gate
            scale[start:end] = s.abs().amax(-1) / 127
            q[start:end] = torch.clamp(torch.round(s / scale[start:end, None]), -128, 127).to(torch.int8)
            start = end
        return q, scale

    def inputs(m, k, e, n):
        x = torch.randint(-128, 128, (m, k), generator=g, dtype=torch.int8)
        w = torch.randint(-128, 128, (e, k, n), generator=g, dtype=torch.int8)
        ws = torch.rand(e, n, generator=g) * 0.01 + 0.001
        xs = torch.rand(m, generator=g) * 0.01 + 0.001
        return x, w, ws, xs
""")


def test_each_expert_s_rows_are_dequantised_activated_and_quantised(run_npu):
    out = run_npu(SETUP + textwrap.dedent("""
        for (m, k, e, n), ends in (((10, 32, 3, 16), [3, 3, 10]), ((7, 64, 2, 32), [7, 7]), ((5, 16, 1, 8), [5])):
            x, w, ws, xs = inputs(m, k, e, n)
            q, scale, offset = torch_npu.npu_grouped_matmul_swiglu_quant(x.npu(), w.npu(), torch.tensor(ends).npu(),
                                                                         ws.npu(), xs.npu())
            want_q, want_scale = reference(x, w, ws, xs, ends)
            assert q.dtype == torch.int8 and q.shape == (m, n // 2), (q.dtype, q.shape)
            assert torch.equal(q.cpu(), want_q), ((m, k, e, n), (q.cpu().int() - want_q.int()).abs().max())
            assert torch.equal(scale.cpu(), want_scale), (m, k, e, n)
        # Rows past the last end are not written: they keep what the output held (here, a previous call's rows).
        x, w, ws, xs = inputs(6, 32, 2, 16)
        q, scale, _ = torch_npu.npu_grouped_matmul_swiglu_quant(x.npu(), w.npu(), torch.tensor([2, 4]).npu(), ws.npu(),
                                                                xs.npu())
        want_q, want_scale = reference(x, w, ws, xs, [2, 4])
        assert torch.equal(q.cpu()[:4], want_q) and torch.equal(scale.cpu()[:4], want_scale)
        print("gmm swiglu quant ok")
    """))
    assert "gmm swiglu quant ok" in out


def test_what_the_readme_constrains_is_refused_by_name(run_npu):
    out = run_npu(SETUP + textwrap.dedent("""
        def refused(words, f):  # npu_scripts.py's refused_by_name, words first
            refused_by_name([(f, words)])
        call = torch_npu.npu_grouped_matmul_swiglu_quant
        x, w, ws, xs = inputs(6, 32, 2, 16)
        # group_list: the cumulative ends must not decrease nor pass x's rows (device data, checked in phase 2).
        refused(["groupList", "non-decreasing"], lambda: call(x.npu(), w.npu(), torch.tensor([4, 2]).npu(), ws.npu(), xs.npu()))
        refused(["groupList"], lambda: call(x.npu(), w.npu(), torch.tensor([2, 7]).npu(), ws.npu(), xs.npu()))
        # one end per expert, x_scale one per row
        refused(["groupList", "shape"], lambda: call(x.npu(), w.npu(), torch.tensor([6]).npu(), ws.npu(), xs.npu()))
        refused(["xScale", "shape"], lambda: call(x.npu(), w.npu(), torch.tensor([3, 6]).npu(), ws.npu(), xs[:4].npu()))
        # bias and offset are reserved (the README: not supported in this version)
        refused(["bias"], lambda: call(x.npu(), w.npu(), torch.tensor([3, 6]).npu(), ws.npu(), xs.npu(),
                                       bias=torch.zeros(2, 16, dtype=torch.int32).npu()))
        # A weight stored in FRACTAL_NZ (npu_format_cast to 29): the family reads plain layouts only, named.
        torch.npu.config.allow_internal_format = True
        w_nz = torch_npu.npu_format_cast(w.npu(), 29)
        refused(["weight", "FRACTAL_NZ"], lambda: call(x.npu(), w_nz, torch.tensor([3, 6]).npu(), ws.npu(), xs.npu()))
        torch.npu.config.allow_internal_format = False
        print("refusals ok")
    """), env={"ASCEND_LAUNCH_BLOCKING": "1"})  # phase 2's refusal raised by the call itself
    assert "refusals ok" in out
