"""torch_npu.npu_grouped_matmul on device="npu" (op-plugin's aclnnGroupedMatmulV5: the grouped_matmul
family) against a CPU reference built from torch.matmul per group, in the forms op-plugin passes:
group_type 0 with one x grouped by group_list (cumulative ends, group_list_type 0, and counts, 1;
an empty group; rows past the last group) against one [E, K, N] weight or a weight per group,
split_item 3 (one output) and 0 (one output per group); an x per group (group_type 0, split_item 2,
and -1, split_item 0, x of 3 dimensions); the K axis split (group_type 2); a bias; a transposed
weight. The INT8 quantised form (op-plugin's MoE inference call) and the antiquantised one (A16W8:
an INT8 weight beside FLOAT16/BFLOAT16 x) against the README's formulas, and A16W4 (the INT32 words
npu_convert_weight_to_int4pack packs INT4 weights in); its INT8 requantisation, the activation forms
and group_list_type 2 answer an error naming the argument, never a value."""

from tests.torch_npu.npu_scripts import REFUSED_BY_NAME


def test_grouped_matmul_equals_matmul_per_group(run_npu):
    run_npu("""
        torch.manual_seed(0)
        gmm = torch_npu.npu_grouped_matmul

        def close(got, want, dtype, what):
            tol = {torch.float32: 1e-4, torch.float16: 2e-2, torch.bfloat16: 1e-1}[dtype]
            assert got.dtype == dtype, (what, got.dtype)
            assert got.shape == want.shape, (what, got.shape, want.shape)
            if want.numel():
                err = (got.cpu().float() - want.float()).abs().max().item()
                assert err <= tol * max(1.0, want.abs().max().item()), (what, err)

        def rows(x, ws, sizes, bias=None):
            out, at = torch.zeros(x.shape[0], ws[0].shape[-1]), 0
            parts = []
            for i, (s, w) in enumerate(zip(sizes, ws)):
                part = x[at:at + s].float() @ w.float() + (0 if bias is None else bias[i].float())
                out[at:at + s] = part
                parts.append(part)
                at += s
            return out, parts

        E, K, N, M = 4, 32, 16, 24
        counts = [5, 0, 9, 7]  # 21 of 24 rows: the last three belong to no group
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            x = torch.randn(M, K).to(dtype)
            w = (torch.randn(E, K, N) / 4).to(dtype)
            bias = torch.randn(E, N).to(torch.float16 if dtype == torch.float16 else torch.float32)
            want, parts = rows(x, list(w), counts)
            for list_type, values in ((0, torch.tensor(counts).cumsum(0)), (1, torch.tensor(counts))):
                y = gmm([x.npu()], [w.npu()], group_list=values.npu(), split_item=3, group_type=0,
                        group_list_type=list_type)
                assert len(y) == 1
                close(y[0], want, dtype, ("one x, one weight, split 3", dtype, list_type))
            ends = torch.tensor(counts).cumsum(0).npu()
            y = gmm([x.npu()], [w.npu()], bias=[bias.npu()], group_list=ends, split_item=3, group_type=0)
            close(y[0], rows(x, list(w), counts, bias)[0], dtype, ("bias [E, N]", dtype))
            # A weight per group, output per group (split_item 0).
            y = gmm([x.npu()], [wi.npu() for wi in w], group_list=ends, split_item=0, group_type=0)
            assert [tuple(t.shape) for t in y] == [(c, N) for c in counts]
            for i, (got, part) in enumerate(zip(y, parts)):
                close(got, part, dtype, ("split 0", dtype, i))
            # A transposed weight (op-plugin reads its strides).
            wt = [wi.t().contiguous().npu().t() for wi in w]
            y = gmm([x.npu()], wt, group_list=ends, split_item=2, group_type=0)
            close(y[0], want, dtype, ("transposed weights", dtype))
            # An x per group (group_type 0, split 2: one output of their rows).
            xs = [torch.randn(c, K).to(dtype) for c in counts]
            y = gmm([xi.npu() for xi in xs], [wi.npu() for wi in w], split_item=2, group_type=0)
            close(y[0], torch.cat([xi.float() @ wi.float() for xi, wi in zip(xs, w)]), dtype, ("x per group", dtype))
            # No grouping (group_type -1): x of 3 dimensions, one output each, with bias.
            xs = [torch.randn(2, 3, K).to(dtype) for _ in range(E)]
            y = gmm([xi.npu() for xi in xs], [wi.npu() for wi in w], bias=[b.npu() for b in bias], split_item=0,
                    group_type=-1)
            for i, (got, xi, wi) in enumerate(zip(y, xs, w)):
                close(got, xi.float() @ wi.float() + bias[i].float(), dtype, ("group_type -1", dtype, i))
            # The K axis (group_type 2): x [M, K] (transposed, as the README asks), one weight [K, N],
            # out [g, M, N], group i over its columns of x and rows of weight.
            ks = [8, 0, 24]
            xk = torch.randn(K, M).to(dtype).npu().t()
            wk = (torch.randn(K, N) / 4).to(dtype)
            y = gmm([xk], [wk.npu()], group_list=torch.tensor(ks).cumsum(0).npu(), split_item=3, group_type=2)
            xc, at, want_k = xk.cpu().float(), 0, []
            for k in ks:
                want_k.append(xc[:, at:at + k] @ wk.float()[at:at + k])
                at += k
            close(y[0], torch.stack(want_k), dtype, ("K split", dtype))
    """)


def test_grouped_matmul_int8_is_the_quantised_formula(run_npu):
    # The README's quantised form, y_i = (x_i @ weight_i + bias_i) * scale_i [* per_token_scale_i], written
    # here from it: the INT8 product and INT32 bias summed exactly (in INT64), scaled in float32, rounded
    # once to the out dtype its A2 table gives the scale (BFLOAT16 -> BFLOAT16, FLOAT -> FLOAT16), so equal
    # bit for bit. Rows no group reaches are zeros; an empty group; both group_list_types; one [E, K, N]
    # weight with scale [E, N], and a weight and scale [N] per group; without scale, the INT32 sum.
    run_npu(REFUSED_BY_NAME + """
    torch.manual_seed(0)
    gmm = torch_npu.npu_grouped_matmul
    E, K, N, M = 3, 64, 16, 20
    counts = [6, 0, 11]  # 17 of 20 rows
    x = torch.randint(-128, 128, (M, K), dtype=torch.int8)
    w = torch.randint(-128, 128, (E, K, N), dtype=torch.int8)
    bias = torch.randint(-100000, 100000, (E, N), dtype=torch.int32)
    token = torch.rand(M) + 0.5

    def reference(scale, per_token, with_bias, out_dtype):
        y, at = torch.zeros(M, N, dtype=torch.float32 if scale is not None else torch.int64), 0
        for i, c in enumerate(counts):
            acc = x[at:at + c].long() @ w[i].long() + (bias[i].long() if with_bias else 0)
            if scale is not None:
                acc = acc.float() * scale[i].float()
                if per_token is not None:
                    acc = acc * per_token[at:at + c].unsqueeze(-1)
            y[at:at + c] = acc
            at += c
        return y.to(out_dtype)

    def same(got, want, what):
        got = got.cpu()
        assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape)
        assert torch.equal(got, want), (what, (got.double() - want.double()).abs().max().item())

    ends, sizes = torch.tensor(counts).cumsum(0), torch.tensor(counts)
    for scale_dtype, out_dtype in ((torch.bfloat16, torch.bfloat16), (torch.float32, torch.float16)):
        scale = (torch.rand(E, N) * 1e-4).to(scale_dtype)
        for list_type, values in ((0, ends), (1, sizes)):
            for per_token in (None, token):
                for with_bias in (False, True):
                    what = (scale_dtype, list_type, per_token is not None, with_bias)
                    y = gmm([x.npu()], [w.npu()], bias=[bias.npu()] if with_bias else None, scale=[scale.npu()],
                            per_token_scale=None if per_token is None else [per_token.npu()],
                            group_list=values.npu(), split_item=3, group_type=0, group_list_type=list_type,
                            output_dtype=out_dtype)
                    assert len(y) == 1, what
                    same(y[0], reference(scale, per_token, with_bias, out_dtype), what)
        # A weight, a scale and a bias per group.
        y = gmm([x.npu()], [wi.npu() for wi in w], bias=[b.npu() for b in bias], scale=[s.npu() for s in scale],
                per_token_scale=[token.npu()], group_list=ends.npu(), split_item=2, group_type=0,
                output_dtype=out_dtype)
        same(y[0], reference(scale, token, True, out_dtype), ("weight per group", scale_dtype))
    # Without scale: the INT32 sum x @ weight + bias.
    y = gmm([x.npu()], [w.npu()], bias=[bias.npu()], group_list=ends.npu(), split_item=3, group_type=0,
            output_dtype=torch.int32)
    same(y[0], reference(None, None, True, torch.int32), "INT32 out")
    # What the README leaves open or rules out: refused by name, never a value.
    words = torch_npu.npu_trans_quant_param((torch.rand(E * N) * 1e-3).npu()).reshape(E, N)
    calls = [
        (lambda: gmm([x.npu()], [w.npu()], scale=[words], group_list=ends.npu(), split_item=3, group_type=0,
                     output_dtype=torch.int8), "scaleOptional"),
        (lambda: gmm([x.npu()], [w.npu()], scale=[torch.rand(E, N).npu()], group_list=ends.npu(), split_item=3,
                     group_type=0, output_dtype=torch.bfloat16), "the README's for this scale"),
        (lambda: gmm([x.npu()], [w.npu()], scale=[torch.rand(E, N + 1).npu()], group_list=ends.npu(), split_item=3,
                     group_type=0, output_dtype=torch.float16), "scaleOptional"),
        (lambda: gmm([x.npu()], [w.npu()], scale=[torch.rand(E, N).npu()], per_token_scale=[torch.rand(M + 1).npu()],
                     group_list=ends.npu(), split_item=3, group_type=0, output_dtype=torch.float16), "perTokenScaleOptional"),
        (lambda: gmm([x.npu()], [w[0].npu()], scale=[torch.rand(N).npu()], split_item=0, group_type=-1,
                     output_dtype=torch.float16), "groupType"),
    ]
    refused_by_name(calls)
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})


def test_grouped_matmul_antiquant_is_the_weight_only_formula(run_npu):
    # The README's antiquantised form (A16W8), y_i = x_i @ ((weight_i + antiquant_offset_i) *
    # antiquant_scale_i) + bias_i, written here from it in float32 per group: antiquant_scale and
    # antiquant_offset per channel, x's dtype, [E, N] beside one [E, K, N] weight or [N] per weight;
    # no antiquant_offset is offset 0; groups of x's rows by group_list (cumulative ends and counts,
    # an empty group, rows past the last group) or an x per weight (group_type -1, 3-d x); out x's dtype.
    run_npu(REFUSED_BY_NAME + """
    torch.manual_seed(0)
    gmm = torch_npu.npu_grouped_matmul
    E, K, N, M = 3, 32, 16, 20
    counts = [6, 0, 11]  # 17 of 20 rows

    def close(got, want, dtype, what):
        got = got.cpu()
        assert got.dtype == dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.shape)
        if want.numel():
            err = (got.float() - want).abs().max().item()
            assert err <= {torch.float16: 1e-2, torch.bfloat16: 5e-2}[dtype] * max(1.0, want.abs().max().item()), (what, err)

    for dtype in (torch.float16, torch.bfloat16):
        x = torch.randn(M, K).to(dtype)
        w = torch.randint(-128, 128, (E, K, N), dtype=torch.int8)
        scale = (torch.rand(E, N) * 0.02 + 0.001).to(dtype)
        offset = torch.randint(-8, 8, (E, N)).to(dtype)
        bias = torch.randn(E, N).to(torch.float16 if dtype == torch.float16 else torch.float32)

        def dequantised(i, with_offset):
            return (w[i].float() + (offset[i].float() if with_offset else 0)) * scale[i].float()

        def reference(with_offset, with_bias):
            y, at = torch.zeros(M, N), 0
            for i, c in enumerate(counts):
                y[at:at + c] = x[at:at + c].float() @ dequantised(i, with_offset) + (bias[i].float() if with_bias else 0)
                at += c
            return y

        ends, sizes = torch.tensor(counts).cumsum(0), torch.tensor(counts)
        for list_type, values in ((0, ends), (1, sizes)):
            for with_offset in (False, True):
                for with_bias in (False, True):
                    what = (dtype, list_type, with_offset, with_bias)
                    y = gmm([x.npu()], [w.npu()], bias=[bias.npu()] if with_bias else None,
                            antiquant_scale=[scale.npu()], antiquant_offset=[offset.npu()] if with_offset else None,
                            group_list=values.npu(), split_item=3, group_type=0, group_list_type=list_type)
                    assert len(y) == 1, what
                    close(y[0], reference(with_offset, with_bias), dtype, what)
        # A weight, antiquant_scale and antiquant_offset [N] per group, an output per group (split_item 0).
        y = gmm([x.npu()], [wi.npu() for wi in w], antiquant_scale=[s.npu() for s in scale],
                antiquant_offset=[o.npu() for o in offset], group_list=ends.npu(), split_item=0, group_type=0)
        want = reference(True, False)
        assert [tuple(t.shape) for t in y] == [(c, N) for c in counts]
        for i, (got, start, c) in enumerate(zip(y, [0] + ends.tolist()[:-1], counts)):
            close(got, want[start:start + c], dtype, ("split 0", dtype, i))
        # No grouping (group_type -1): an x of 3 dimensions per weight.
        xs = [torch.randn(2, 3, K).to(dtype) for _ in range(E)]
        y = gmm([xi.npu() for xi in xs], [wi.npu() for wi in w], bias=[b.npu() for b in bias],
                antiquant_scale=[s.npu() for s in scale], antiquant_offset=[o.npu() for o in offset], split_item=0,
                group_type=-1)
        for i, (got, xi) in enumerate(zip(y, xs)):
            close(got, xi.float() @ dequantised(i, True) + bias[i].float(), dtype, ("group_type -1", dtype, i))
    # What the README rules out or leaves open: refused by name, never a value.
    x, w = torch.randn(M, K).half().npu(), torch.randint(-128, 128, (E, K, N), dtype=torch.int8).npu()
    scale, ends = torch.rand(E, N).half().npu(), torch.tensor(counts).cumsum(0).npu()
    calls = [
        (lambda: gmm([x], [w], group_list=ends, split_item=3, group_type=0), "antiquantScaleOptional"),
        (lambda: gmm([x], [w], antiquant_scale=[scale.float()], group_list=ends, split_item=3, group_type=0),
         "antiquantScaleOptional"),
        # Per group (the INT4 weights' mode): an INT8 weight is dequantised per channel only.
        (lambda: gmm([x], [w], antiquant_scale=[torch.rand(E, 2, N).half().npu()], group_list=ends, split_item=3,
                     group_type=0), "antiquantScaleOptional"),
        (lambda: gmm([x], [w], antiquant_scale=[scale], antiquant_offset=[torch.rand(E, N + 1).half().npu()],
                     group_list=ends, split_item=3, group_type=0), "antiquantOffsetOptional"),
        (lambda: gmm([x.float()], [w], antiquant_scale=[scale], group_list=ends, split_item=3, group_type=0), "weight"),
        (lambda: gmm([x.t().contiguous()], [w[0]], antiquant_scale=[scale[0]], group_list=torch.tensor([K]).npu(),
                     split_item=3, group_type=2), "groupType"),
    ]
    refused_by_name(calls)
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})


def test_grouped_matmul_of_int4pack_weights_equals_the_dequantised_product(run_npu):
    # A16W4: op-plugin passes the INT32 words npu_convert_weight_to_int4pack packs eight INT4 in
    # ([E, K, N / 8]) and shapes y N columns wide; the simulator reads the nibbles (element 8i in bits
    # 0-3) and dequantises them per column as it does an INT8 weight.
    run_npu("""
        torch.manual_seed(0)
        gmm = torch_npu.npu_grouped_matmul
        E, K, N, M = 3, 32, 16, 12
        counts = [4, 0, 6]  # 10 of 12 rows: the last two belong to no group
        for dtype in (torch.float16, torch.bfloat16):
            x = torch.randn(M, K).to(dtype)
            w = torch.randint(-8, 8, (E, K, N), dtype=torch.int32)
            packed = torch.stack([torch_npu.npu_convert_weight_to_int4pack(wi.npu()).cpu() for wi in w])
            assert tuple(packed.shape) == (E, K, N // 8)
            scale = (torch.rand(E, N) * 0.1 + 0.01).to(dtype)
            offset = torch.randint(-2, 2, (E, N)).to(dtype)
            bias = torch.randn(E, N).to(torch.float16 if dtype == torch.float16 else torch.float32)
            want, at = torch.zeros(M, N), 0
            for i, c in enumerate(counts):
                dequantised = (w[i].float() + offset[i].float()) * scale[i].float()
                want[at:at + c] = x[at:at + c].float() @ dequantised + bias[i].float()
                at += c
            y = gmm([x.npu()], [packed.npu()], bias=[bias.npu()], antiquant_scale=[scale.npu()],
                    antiquant_offset=[offset.npu()], group_list=torch.tensor(counts).cumsum(0).npu(), split_item=3,
                    group_type=0)
            got = y[0].cpu()
            assert got.dtype == dtype and got.shape == (M, N), (got.dtype, got.shape)
            tol = 2e-2 if dtype == torch.float16 else 1e-1
            err = (got.float() - want).abs().max().item()
            assert err <= tol * max(1.0, want.abs().max().item()), (dtype, err)
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})


def test_grouped_matmul_refuses_what_it_does_not_compute(run_npu):
    # Each refusal an exception of its own call (ASCEND_LAUNCH_BLOCKING=1): after a failure in
    # torch_npu's asynchronous task queue, later calls of the process do not compute.
    run_npu("""
        gmm = torch_npu.npu_grouped_matmul
        x, w = torch.randn(8, 16).half().npu(), torch.randn(2, 16, 4).half().npu()
        ends = torch.tensor([3, 8]).npu()

        def refused(what, **kw):
            args = dict(group_list=ends, split_item=3, group_type=0)
            args.update(kw)
            try:
                y = gmm([x], [w], **args)
                torch.npu.synchronize()
            except RuntimeError as e:
                assert what in str(e), (what, str(e)[:600])
                return
            raise AssertionError(f"{what}: computed {y[0].cpu()}")

        refused("scaleOptional", scale=[torch.ones(2, 4).npu()])
        refused("antiquantScaleOptional", antiquant_scale=[torch.ones(2, 4).half().npu()])  # a FLOAT16 weight
        refused("perTokenScaleOptional", per_token_scale=[torch.ones(8).npu()])
        refused("actType", act_type=1)
        refused("groupListType", group_list_type=2, group_list=torch.tensor([[0, 3], [1, 5]]).npu())
        # group_list's values are device data: groups past x's rows fail the call, not a value.
        refused("groupListOptional", group_list=torch.tensor([3, 9]).npu())
        # And a valid call after them computes.
        y = gmm([x], [w], group_list=ends, split_item=3, group_type=0)
        want = torch.cat([x.cpu().float()[:3] @ w.cpu().float()[0], x.cpu().float()[3:] @ w.cpu().float()[1]])
        assert (y[0].cpu().float() - want).abs().max().item() < 2e-2 * max(1.0, want.abs().max().item())
    """, env={"ASCEND_LAUNCH_BLOCKING": "1"})


def test_grouped_matmul_add_accumulates_each_k_group_product(run_npu):
    # npu_grouped_matmul_add(_) (aclnnGroupedMatmulAdd, a derived page): self[i] + x[rows of group i]^T @
    # weight[rows of group i], groups of x's K rows by group_list's cumulative ends: an empty group, rows
    # past the last end, the in-place form; the modes the API does not support and bad ends refused by name.
    run_npu(REFUSED_BY_NAME + """
    torch.manual_seed(0)
    for dtype in (torch.float16, torch.bfloat16):
        k, m, n = 10, 3, 4
        x, weight = torch.randn(k, m).to(dtype), torch.randn(k, n).to(dtype)
        ends = [2, 2, 7, 9]
        y = torch.randn(len(ends), m, n)
        want = y.clone()
        for i, (start, end) in enumerate(zip([0] + ends[:-1], ends)):
            want[i] += x[start:end].float().t() @ weight[start:end].float()
        group_list = torch.tensor(ends).npu()
        got = torch_npu.npu_grouped_matmul_add(y.npu(), x.npu(), weight.npu(), group_list)
        assert got.dtype == torch.float32 and torch.allclose(got.cpu(), want, rtol=1e-5, atol=1e-5), dtype
        inplace = y.npu()
        torch_npu.npu_grouped_matmul_add_(inplace, x.npu(), weight.npu(), group_list)
        assert torch.allclose(inplace.cpu(), want, rtol=1e-5, atol=1e-5), dtype
    y, x, weight = torch.zeros(2, 3, 4).npu(), torch.randn(6, 3).half().npu(), torch.randn(6, 4).half().npu()
    calls = [
        ({"transpose_x": False}, torch.tensor([2, 6]), "transposeX"),
        ({"transpose_weight": True}, torch.tensor([2, 6]), "transposeWeight"),
        ({"group_type": 0}, torch.tensor([2, 6]), "groupType"),
        ({}, torch.tensor([4, 2]), "groupList"),
        ({}, torch.tensor([2, 7]), "groupList"),
    ]
    refused_by_name([(lambda options=options, ends=ends: torch_npu.npu_grouped_matmul_add(
        y, x, weight, ends.npu(), **options), word) for options, ends, word in calls])
    """)


def test_grouped_matmul_with_a_list_group_list_is_matmul_per_group(run_npu):
    # npu_grouped_matmul's List overload (group_list a Python list: aclnnGroupedMatmul, a derived page):
    # x's rows grouped by cumulative ends (an empty group, rows past the last end in one output), one
    # output (split_item 3) or one per group (0) with a bias; a
    # group past x's rows refused by name. (Several x without group_list: whichever overload torch picks.)
    run_npu("""
        torch.manual_seed(0)
        gmm = torch_npu.npu_grouped_matmul
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            tolerance = 1e-4 if dtype == torch.float32 else 2e-2
            close = lambda a, b: a.dtype == dtype and torch.allclose(a.cpu().float(), b, rtol=tolerance, atol=tolerance)
            x = torch.randn(12, 8).to(dtype)
            ws = [torch.randn(8, 5).to(dtype) for _ in range(3)]
            ends = [4, 4, 10]
            parts = [x[s:e].float() @ w.float() for s, e, w in zip([0] + ends[:-1], ends, ws)]
            out = gmm([x.npu()], [w.npu() for w in ws], group_list=ends, split_item=3, group_type=0)
            want = torch.cat(parts + [torch.zeros(2, 5)])
            assert len(out) == 1 and close(out[0], want), dtype
            bias = [torch.randn(5).to(dtype if dtype == torch.float16 else torch.float32) for _ in range(3)]
            outs = gmm([x.npu()], [w.npu() for w in ws], bias=[b.npu() for b in bias], group_list=ends, split_item=0,
                       group_type=0)
            assert len(outs) == 3 and all(close(o, p + b.float()) for o, p, b in zip(outs, parts, bias)), dtype
            xs = [torch.randn(3, 8).to(dtype), torch.randn(6, 8).to(dtype)]
            outs = gmm([a.npu() for a in xs], [w.npu() for w in ws[:2]], split_item=0, group_type=0)
            assert all(close(o, a.float() @ w.float()) for o, a, w in zip(outs, xs, ws)), dtype
        try:
            out = gmm([torch.randn(6, 8).npu()], [torch.randn(8, 5).npu()] * 2, group_list=[4, 6], split_item=3,
                      group_type=0)
            gmm([torch.randn(6, 8).npu()], [torch.randn(8, 5).npu()] * 2, group_list=[4, 7], split_item=3, group_type=0)
            torch.npu.synchronize()
        except RuntimeError as error:
            assert "groupListOptional" in str(error), error
        else:
            raise AssertionError("a group past x's rows was not refused")
    """)
