"""The benchmark's plumbing on tiny sizes (`python -m bench --quick`), so that it cannot rot
silently. Nothing here asserts a time: only that every section runs, measures what it says,
and writes results.json in the shape the table and README read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.common import Summary, interleaved, ratio
from bench.report import table, targets

ROOT = Path(__file__).resolve().parents[2]
SUMMARY_KEYS = {"median", "min", "max", "runs", "unit"}


@pytest.fixture(scope="module")
def quick_results(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    done = subprocess.run([sys.executable, "-m", "bench", "--quick", "--sections", "generation,calls,kernels",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    results["_stdout"] = done.stdout
    return results


def test_every_section_reports_without_error(quick_results):
    assert set(quick_results["sections"]) == {"generation", "calls", "kernels"}
    assert all("error" not in r for r in quick_results["sections"].values())


def test_generation_compares_with_the_floor_and_regenerates_after_an_edit(quick_results):
    gen = quick_results["sections"]["generation"]
    assert gen["pages"] > 0 and gen["apis"] > 0
    assert set(gen["pages_per_second"]) == {"floor", "parse_ir", "parse_ir_emit"}
    assert set(gen["ratio_to_floor"]["parse_ir_emit"]) == SUMMARY_KEYS
    # The edited page's IR file is among what the incremental run wrote.
    assert any(name.startswith("ir/") for name in gen["incremental"]["files_written"])
    # The commands a user runs: after one page changed, after none; wall and CPU seconds.
    commands = ("command_seconds", "command_cpu_seconds", "noop_command_seconds", "noop_command_cpu_seconds")
    assert all(gen["incremental"][name]["min"] > 0 for name in commands)


def test_calls_time_every_side_and_their_ratios(quick_results):
    calls = quick_results["sections"]["calls"]
    assert set(calls["seconds_per_call"]) == {"a_numpy", "b_chain", "b_out", "c_floor", "d_torch"}
    assert all(s["median"] > 0 for s in calls["seconds_per_call"].values())
    assert set(calls["ratios"]) == {"a/c", "b/c", "b_out/c", "b/d"}
    # The device-resident chain neither allocates device memory nor waits for the device.
    counters = calls["chain_counters"]
    assert (counters["malloc_calls"], counters["stream_syncs"], counters["device_syncs"]) == (0, 0, 0)
    assert counters["kernels_launched"] == calls["calls_per_chain"]


def test_kernels_cover_the_seed_ops_and_the_activations_in_three_dtypes(quick_results):
    rows = quick_results["sections"]["kernels"]["rows"]
    assert {(r["op"], r["dtype"]) for r in rows} == {
        (op, dtype) for op in ("leaky_relu_backward", "hardsigmoid_backward", "selu_backward", "silu", "sigmoid",
                               "tanh", "gelu_tanh", "gelu_erf", "softplus", "mish")
        for dtype in ("float32", "float16", "bfloat16")}
    assert all(r["gb_per_s"]["sim"]["median"] > 0 and r["gb_per_s"]["torch"]["median"] > 0 for r in rows)


def test_kernels_are_measured_on_every_path_this_cpu_runs(quick_results):
    from bench.run import kernel_paths

    kernels = quick_results["sections"]["kernels"]
    measured = [kernels["kernel_path"], *kernels["other_paths"]]
    assert measured == kernel_paths()
    for result in kernels["other_paths"].values():
        assert "error" not in result and len(result["rows"]) == len(kernels["rows"])
    assert all(f"[{path} path]" in quick_results["_stdout"] for path in measured)


def test_a_run_whose_engines_took_another_path_than_asked_is_an_error():
    from bench.run import engines_off_path

    assert engines_off_path("avx512", {"elementwise": "avx512", "softmax": "avx512"}) == []
    assert engines_off_path("avx512", {"elementwise": "avx2", "softmax": "avx512"}) == ["elementwise ran avx2"]
    assert engines_off_path("avx2", {"elementwise": "avx2", "softmax": "baseline"}) == ["softmax ran baseline"]
    assert engines_off_path("baseline", {"elementwise": "avx2"}) == ["elementwise ran avx2"]
    # A library route by the ISA it ran (oneDNN's, capped by the path).
    assert engines_off_path("avx512", {"matmul.bfloat16": "onednn:brg:avx512_core_amx"}) == []
    assert engines_off_path("avx2", {"matmul.bfloat16": "onednn:brg:avx512_core_amx"}) == \
        ["matmul.bfloat16 ran onednn:brg:avx512_core_amx"]
    assert engines_off_path("avx2", {"matmul.bfloat16": "openblas", "softmax": "avx2"}) == []
    # OpenBLAS by its core: the path's, or a narrower one; never a wider one.
    assert engines_off_path("avx2", {"blas": "openblas:Haswell", "matmul.float16": "openblas:Haswell"}) == []
    assert engines_off_path("avx512", {"blas": "openblas:Haswell"}) == []
    assert engines_off_path("baseline", {"blas": "openblas:Katmai"}) == []  # Prescott's kernels, by OpenBLAS's name
    assert engines_off_path("avx2", {"blas": "openblas:SkylakeX"}) == ["blas ran openblas:SkylakeX"]
    assert engines_off_path("baseline", {"blas": "openblas:Bogus"}) == ["blas ran openblas:Bogus"]


def test_the_table_says_which_cpu_it_was_measured_on(quick_results):
    # With the paths' rows, the CPU's model says which vector units each path had.
    model = quick_results["machine"]["cpu_model"]
    assert model is None or model in table(quick_results).splitlines()[0]


def test_every_section_reports_its_peak_memory(quick_results):
    assert all(r["peak_rss_mb"] > 0 for r in quick_results["sections"].values())


def test_the_table_is_printed_with_the_targets(quick_results):
    assert "| call (b)/(c) |" in quick_results["_stdout"]
    assert "| target | measured | met |" in quick_results["_stdout"]
    assert [t["target"] for t in quick_results["targets"]][:1] == ["generation time <= 3x the parse floor"]


def test_interleaved_discards_warmup_and_rotates_the_order():
    order: list[str] = []
    values = interleaved({"a": lambda: order.append("a") or 1.0, "b": lambda: order.append("b") or 2.0},
                         rounds=2, warmup=1)
    assert values == {"a": [1.0, 1.0], "b": [2.0, 2.0]}
    assert order == ["a", "b", "b", "a", "a", "b"]


def test_ratios_pair_runs_round_by_round():
    assert ratio([2.0, 9.0], [1.0, 3.0]) == Summary(2.5, 2.0, 3.0, 2, "x")


def test_a_missed_target_is_reported_as_missed():
    row = {"op": "selu_backward", "dtype": "bfloat16", "elements": 16 << 20, "sim_speed_vs_torch": {"median": 0.5}}
    found = targets({"kernels": {"rows": [row]}})
    assert found == [{"target": "kernels at 16M at least as fast as PyTorch CPU (worst op/dtype)", "value": 0.5,
                      "met": False, "worst": "selu_backward bfloat16"}]


def test_the_dense_section_holds_softmax_and_the_reduction_to_their_targets():
    rows = [{"op": "softmax [4096, 4096] dim -1", "dtype": "float32", "sim_speed_vs_torch": {"median": 1.1}},
            {"op": "reduce_sum [4096, 4096] dim -1", "dtype": "float32", "sim_speed_vs_torch": {"median": 0.7}},
            {"op": "reduce_sum [4096, 4096] dim 0", "dtype": "float32", "sim_speed_vs_torch": {"median": 2.0}}]
    found = {t["target"]: (t["value"], t["met"]) for t in targets({"dense": {"rows": rows}})}
    assert found == {"softmax GB/s at 16M float32 >= 0.8x PyTorch CPU": (1.1, True),
                     "reduction (sum along the last dimension) GB/s at 16M float32 >= 0.8x PyTorch CPU": (0.7, False)}


def test_a_failed_section_is_a_row_of_the_table_not_a_crash():
    results = {"mode": "quick", "date": "-", "machine": {"cpus": 2, "load_average": [0.0], "torch": "-"},
               "sections": {"calls": {"error": "bench.calls exited with status 1"}}, "targets": []}
    assert "| **calls** | – | – | – | bench.calls exited with status 1 |" in table(results)


def test_a_path_measured_against_pytorchs_own_build_for_it_says_so():
    # --torch-kernels matched: the baseline path against PyTorch's "default" kernels (a CPU without
    # AVX2 runs those), so its lines and targets name them; every path has such a build.
    from bench.run import KERNEL_PATHS, TORCH_CAPABILITY

    assert set(TORCH_CAPABILITY) == set(KERNEL_PATHS)
    row = {"op": "selu_backward", "dtype": "float16", "elements": 16 << 20, "sim_speed_vs_torch": {"median": 4.0}}
    section = {"kernel_path": "baseline", "torch_kernels_matched": True, "torch_capability": "DEFAULT", "rows": [row]}
    assert targets({"kernels": section})[0]["target"] == (
        "kernels at 16M at least as fast as PyTorch CPU (worst op/dtype) [baseline path, PyTorch's DEFAULT kernels]")
    # PyTorch's oneDNN and MKL are held to the path too (they ignore ATEN_CPU_CAPABILITY), and the lines say so.
    from bench.run import TORCH_LIBRARY_CAPS, torch_kernels_for

    assert set(TORCH_LIBRARY_CAPS) == set(KERNEL_PATHS) and TORCH_LIBRARY_CAPS["avx512"] == {}
    assert torch_kernels_for("avx2") == {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
                                         "DNNL_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}
    capped = {**section, "torch_library_caps": TORCH_LIBRARY_CAPS["baseline"]}
    assert targets({"kernels": capped})[0]["target"].endswith(
        "[baseline path, PyTorch's DEFAULT kernels, its oneDNN at SSE41, MKL at SSE4_2]")
