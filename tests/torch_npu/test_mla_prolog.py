"""torch_npu's MLA prolog through op-plugin on the simulator: npu_mla_prolog_v2 and npu_mla_prolog_v3 reach
aclnnMlaPrologV2WeightNz and aclnnMlaPrologV3WeightNz with the three weights npu_format_cast to FRACTAL_NZ (29), as
torch_npu's documentation calls them; query, query_rope and the caches they update in place equal the pages' formula
written with torch ops on the CPU (exact.mla_prolog, the generated suites' golden) in both cache modes, with (B, S) and
(T) tokens, several heads and V3's qc_qr_scale and kc_scale. What the simulator does not model is refused naming it:
the quantised scenarios (an INT8 weight_uq_qr with its scale), a cache index outside the cache, the pages' fixed sizes,
V3's reserved modes. npu_mla_prolog runs the aclop operator MlaProlog, which the aclop bridge computes with
aclnnMlaProlog, its weights read in FRACTAL_NZ as they arrive."""

import textwrap

from tests.torch_npu.conftest import ROOT
from tests.torch_npu.npu_scripts import REFUSED_BY_NAME

SETUP = textwrap.dedent(REFUSED_BY_NAME) + textwrap.dedent(f"""
    import sys
    import torch_npu
    sys.path.insert(0, {str(ROOT / "runtime" / "python" / "tests")!r})
    from _goldens import exact

    g = torch.Generator().manual_seed(21)
    He, Hcq, D, Dr, Hckv = 7168, 1536, 128, 64, 512
    torch.npu.config.allow_internal_format = True

    def uniform(*shape, low=-1.0, high=1.0):
        return (torch.rand(*shape, generator=g) * (high - low) + low).to(torch.bfloat16)

    def inputs(lead, heads, blocks, block_size):
        x = uniform(*lead, He)
        weights = (uniform(He, Hcq, low=-0.05, high=0.05), uniform(Hcq, heads * (D + Dr), low=-0.05, high=0.05),
                   uniform(heads, D, Hckv, low=-0.1, high=0.1), uniform(He, Hckv + Dr, low=-0.05, high=0.05))
        gammas = uniform(Hcq, low=0.5, high=1.5), uniform(Hckv, low=0.5, high=1.5)
        sin, cos = uniform(*lead, Dr), uniform(*lead, Dr)
        tokens = 1
        for d in lead:
            tokens *= d
        index = torch.randperm(blocks * block_size, generator=g)[:tokens].reshape(lead)
        caches = uniform(blocks, block_size, 1, Hckv), uniform(blocks, block_size, 1, Dr)
        return x, weights, gammas, sin, cos, index, caches

    def nz(w):
        return torch_npu.npu_format_cast(w.npu().contiguous(), 29)

    def on_npu(x, weights, gammas, sin, cos, index, caches):
        w_dq, w_uq_qr, w_uk, w_dkv_kr = weights
        return (x.npu(), nz(w_dq), nz(w_uq_qr), w_uk.npu(), nz(w_dkv_kr), gammas[0].npu(), gammas[1].npu(), sin.npu(),
                cos.npu(), index.npu(), caches[0].npu(), caches[1].npu())
""")


def test_npu_mla_prolog_v2_equals_the_formula(run_npu):
    out = run_npu(SETUP + textwrap.dedent("""
        # T 0: empty outputs, the caches not updated; Skv 0 (BlockNum 0, the last): the query computed, the caches
        # not updated (the pages' constraints).
        for lead, heads, blocks, block_size, mode in (((2, 1), 2, 2, 16, "PA_BSND"), ((3,), 4, 1, 16, "PA_NZ"),
                                                     ((1, 2), 1, 2, 128, "PA_NZ"), ((4,), 1, 1, 128, "PA_BSND"),
                                                     ((0,), 2, 1, 16, "PA_BSND"), ((2,), 1, 0, 16, "PA_BSND")):
            args = inputs(lead, heads, blocks, block_size) if blocks else inputs(lead, heads, 1, 16)[:5] + (
                torch.zeros(lead, dtype=torch.int64), (uniform(0, 16, 1, Hckv), uniform(0, 16, 1, Dr)))
            npu = on_npu(*args)
            query, query_rope, kv_out, kr_out, dequant = torch_npu.npu_mla_prolog_v2(*npu, rmsnorm_epsilon_cq=1e-5,
                                                                                     rmsnorm_epsilon_ckv=1e-6,
                                                                                     cache_mode=mode)
            x, weights, gammas, sin, cos, index, caches = args
            want = exact.mla_prolog(x, *weights, *gammas, sin, cos, index, *caches, 1e-5, 1e-6, mode)
            got = (kv_out, kr_out, query, query_rope)
            for name, a, b in zip(("kv_cache", "kr_cache", "query", "query_rope"), got, want):
                assert a.shape == b.shape and a.dtype == torch.bfloat16, (name, a.shape, b.shape, a.dtype)
                if b.numel() == 0:
                    continue
                diff = (a.cpu().float() - b.float()).abs().max().item()
                assert diff <= 0.02 * max(1.0, b.float().abs().max().item()), (lead, heads, mode, name, diff)
            # The caches are updated in place; the slots no token names keep what they held.
            assert torch.equal(npu[10].cpu(), kv_out.cpu()) and torch.equal(npu[11].cpu(), kr_out.cpu())
            untouched = torch.ones(blocks * block_size, dtype=torch.bool)
            untouched[index.reshape(-1)[:blocks * block_size]] = False
            if mode == "PA_BSND":
                assert torch.equal(kv_out.cpu().reshape(-1, Hckv)[untouched], caches[0].reshape(-1, Hckv)[untouched])
        print("mla prolog v2 ok")
    """))
    assert "mla prolog v2 ok" in out


def test_npu_mla_prolog_v3_equals_the_formula(run_npu):
    out = run_npu(SETUP + textwrap.dedent("""
        for lead, heads, mode, qc_qr_scale, kc_scale in (((2, 1), 2, "PA_BSND", 1.0, 1.0), ((3,), 1, "PA_NZ", 0.25, 3.0)):
            args = inputs(lead, heads, 2, 16)
            npu = on_npu(*args)
            query, query_rope, dequant, query_norm, dequant_norm = torch_npu.npu_mla_prolog_v3(
                *npu[:9], npu[10], npu[11], cache_index=npu[9], cache_mode=mode, qc_qr_scale=qc_qr_scale,
                kc_scale=kc_scale)
            x, weights, gammas, sin, cos, index, caches = args
            want = exact.mla_prolog(x, *weights, *gammas, sin, cos, index, *caches, 1e-5, 1e-5, mode, qc_qr_scale,
                                    kc_scale)
            # The caches are updated in place (Tensor(a!)): npu[10] and npu[11] hold k^C and k^R.
            for name, a, b in zip(("kv_cache", "kr_cache", "query", "query_rope"), (npu[10], npu[11], query, query_rope),
                                  want):
                assert a.shape == b.shape, (name, a.shape, b.shape)
                diff = (a.cpu().float() - b.float()).abs().max().item()
                assert diff <= 0.02 * max(1.0, b.float().abs().max().item()), (lead, mode, name, diff)
            assert query_norm.numel() == 0 and dequant_norm.numel() == 0
        print("mla prolog v3 ok")
    """))
    assert "mla prolog v3 ok" in out


def test_npu_mla_prolog_equals_the_formula_and_leaves_its_caches_alone(run_npu):
    # torch_npu sends npu_mla_prolog to the aclop operator MlaProlog (its weights in FRACTAL_NZ, absent
    # quantisation tensors undefined), which the bridge computes with aclnnMlaProlog; its schema returns
    # the updated caches as new tensors, the caches given unchanged.
    out = run_npu(SETUP + textwrap.dedent("""
        for lead, heads, blocks, block_size, mode in (((2, 1), 2, 2, 16, "PA_BSND"), ((3,), 4, 1, 16, "PA_NZ")):
            args = inputs(lead, heads, blocks, block_size)
            npu = on_npu(*args)
            query, query_rope, kv_out, kr_out = torch_npu.npu_mla_prolog(*npu, rmsnorm_epsilon_cq=1e-5,
                                                                         rmsnorm_epsilon_ckv=1e-6, cache_mode=mode)
            x, weights, gammas, sin, cos, index, caches = args
            want = exact.mla_prolog(x, *weights, *gammas, sin, cos, index, *caches, 1e-5, 1e-6, mode)
            for name, a, b in zip(("kv_cache", "kr_cache", "query", "query_rope"), (kv_out, kr_out, query, query_rope),
                                  want):
                assert a.shape == b.shape and a.dtype == torch.bfloat16, (name, a.shape, b.shape, a.dtype)
                diff = (a.cpu().float() - b.float()).abs().max().item()
                assert diff <= 0.02 * max(1.0, b.float().abs().max().item()), (lead, heads, mode, name, diff)
            assert torch.equal(npu[10].cpu(), caches[0]) and torch.equal(npu[11].cpu(), caches[1])
        print("mla prolog ok")
    """), env={"ACLNN_SIM_SOC": "Ascend910B"})
    assert "mla prolog ok" in out


def test_what_the_simulator_does_not_model_is_refused_by_name(run_npu):
    out = run_npu(SETUP + textwrap.dedent("""
        def refused(words, f):
            refused_by_name([(f, words)])
        args = inputs((2,), 1, 1, 16)
        npu = on_npu(*args)
        call = torch_npu.npu_mla_prolog_v2
        # The partly quantised scenario: an INT8 weight_uq_qr with its per-channel dequantisation scale.
        w_int8 = torch.randint(-8, 8, (Hcq, D + Dr), generator=g, dtype=torch.int8)
        quantised = npu[:2] + (nz(w_int8),) + npu[3:]
        refused(["weightUqQr", "quantised"], lambda: call(*quantised, dequant_scale_w_uq_qr=torch.ones(1, D + Dr).npu(),
                                                          smooth_scales_cq=torch.ones(1, Hcq).npu()))
        # A cache index outside BlockNum * BlockSize (device data: phase 2, named).
        outside = npu[:9] + (torch.tensor([0, 16]).npu(),) + npu[10:]
        refused(["cacheIndex", "outside"], lambda: call(*outside))
        refused(["cacheModeOptional", "PA_BSND"], lambda: call(*npu, cache_mode="BSND"))
        # The pages' fixed sizes: Hckv 512.
        small_uk = npu[:3] + (torch.zeros(1, D, 256, dtype=torch.bfloat16).npu(),) + npu[4:]
        refused(["weightUk", "Hckv 512"], lambda: call(*small_uk))
        # npu_mla_prolog (the aclop operator MlaProlog, computed by aclnnMlaProlog): the same refusals.
        refused(["weightUk", "Hckv 512"], lambda: torch_npu.npu_mla_prolog(*small_uk))
        # V3's reserved modes, and its cache index (optional in its schema) that the paged caches index by.
        v3 = torch_npu.npu_mla_prolog_v3
        refused(["tileSize"], lambda: v3(*npu[:9], npu[10], npu[11], cache_index=npu[9], tile_size=64))
        refused(["cacheIndexOptional"], lambda: v3(*npu[:9], npu[10], npu[11]))
        print("refusals ok")
    """), env={"ASCEND_LAUNCH_BLOCKING": "1"})  # phase 2's refusal raised by the call itself
    assert "refusals ok" in out
