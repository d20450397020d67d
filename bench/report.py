"""The table of bench/results.json, and the targets the figures are held against."""

from __future__ import annotations


def _range(s: dict, scale: float = 1.0, digits: int = 2) -> str:
    return f"{s['min'] * scale:.{digits}f}–{s['max'] * scale:.{digits}f}"


def _row(what: str, s: dict | None, unit: str, scale: float = 1.0, digits: int = 2, note: str = "") -> str:
    if s is None:
        return f"| {what} | – | – | {unit} | {note} |"
    return f"| {what} | {s['median'] * scale:.{digits}f} | {_range(s, scale, digits)} | {unit} | {note} |"


def _plain(what: str, value: float, unit: str, digits: int = 2, note: str = "") -> str:
    return f"| {what} | {value:.{digits}f} | (1 run) | {unit} | {note} |"


def targets(sections: dict) -> list[dict]:
    """The issue's targets, each with the measured median and whether it is met."""
    found: list[dict] = []
    gen = sections.get("generation", {})
    if "ratio_to_floor" in gen:
        value = gen["ratio_to_floor"]["parse_ir_emit"]["median"]
        found.append({"target": "generation time <= 3x the parse floor", "value": value, "met": value <= 3})
    if "cold_both_cores" in gen.get("ratio_to_floor", {}):
        value = gen["ratio_to_floor"]["cold_both_cores"]["median"]
        found.append({"target": "cold generation on both cores <= 1.0x the one-core parse floor", "value": value,
                      "met": value <= 1.0})
    if (gen.get("incremental") or {}).get("seconds"):
        value = gen["incremental"]["seconds"]["median"]
        found.append({"target": "regenerate after one page changed <= 0.5 s", "value": value, "met": value <= 0.5})
    if (gen.get("incremental") or {}).get("command_seconds"):
        value = gen["incremental"]["command_seconds"]["min"]
        found.append({"target": "regenerate after one page changed, as a command, <= 0.5 s (best run: a shared machine)",
                      "value": value, "met": value <= 0.5})
    calls = sections.get("calls", {})
    if "ratios" in calls:
        value = calls["ratios"]["b/c"]["median"]
        found.append({"target": "device-resident chain call <= 1.25x the C++ floor", "value": value, "met": value <= 1.25})
        value = calls["ratios"]["b/d"]["median"]
        found.append({"target": "device-resident chain <= 1.0x PyTorch CPU eager", "value": value, "met": value <= 1.0})
        counters = calls.get("chain_counters", {})
        value = sum(counters.get(k, 0) for k in ("malloc_calls", "stream_syncs", "device_syncs"))
        found.append({"target": "chain of 10,000 device calls: 0 mallocs, 0 stream or device syncs", "value": value,
                      "met": value == 0})
    for path, kernels in by_path(sections.get("kernels", {})):
        found += _kernel_targets(kernels, _on(path, kernels))
    for path, dense in by_path(sections.get("dense", {})):
        found += _dense_targets(dense, _on(path, dense))
    npu = sections.get("torch_npu", {})
    if "layer_ratio" in npu:
        value = npu["layer_ratio"]["median"]
        found.append({"target": "Llama decoder layer through torch_npu on the simulator <= 1.5x PyTorch CPU eager",
                      "value": value, "met": value <= 1.5})
    return found


def by_path(section: dict) -> list[tuple[str, dict]]:
    """(kernel path, result) of a section bench.run measures per path (bench.run.PER_PATH): its
    own path's first, then the others'; one ("", section) for a result without paths."""
    if not section:
        return []
    return [(section.get("kernel_path", ""), section), *section.get("other_paths", {}).items()]


def _on(path: str, result: dict | None = None) -> str:
    """" [avx2 path]"; " [avx2 path, PyTorch's avx2 kernels, its oneDNN at AVX2, MKL at AVX2]" where
    PyTorch ran its build for that path's CPUs, its libraries capped to them (bench.run --torch-kernels
    matched), rather than this CPU's widest."""
    if result and result.get("torch_kernels_matched"):
        caps = result.get("torch_library_caps") or {}
        capped = (f", its oneDNN at {caps['ONEDNN_MAX_CPU_ISA']}, MKL at {caps['MKL_ENABLE_INSTRUCTIONS']}"
                  if caps else "")
        return f" [{path} path, PyTorch's {result.get('torch_capability')} kernels{capped}]"
    return f" [{path} path]" if path else ""


def _kernel_targets(kernels: dict, on: str) -> list[dict]:
    found: list[dict] = []
    big = [r for r in kernels.get("rows", []) if r["elements"] >= 16 << 20]
    if big:
        worst = min(big, key=lambda r: r["sim_speed_vs_torch"]["median"])
        value = worst["sim_speed_vs_torch"]["median"]
        found.append({"target": f"kernels at 16M at least as fast as PyTorch CPU (worst op/dtype){on}",
                      "value": value, "met": value >= 1, "worst": f"{worst['op']} {worst['dtype']}"})
    return found


def _dense_targets(dense_section: dict, on: str) -> list[dict]:
    found: list[dict] = []
    # The target rows by op and dtype: the first row of an op (reduce_sum along the last dimension).
    dense: dict = {}
    for r in dense_section.get("rows", []):
        dense.setdefault((r["op"].split()[0], r["dtype"]), r)
    if ("mm", "float32") in dense:
        row = dense[("mm", "float32")]
        value = row["sim_speed_vs_torch"]["median"]
        found.append({"target": f"matmul GFLOP/s at {row['op'].split()[1]} float32 >= 0.5x PyTorch CPU{on}",
                      "value": value, "met": value >= 0.5})
    if ("conv2d", "float32") in dense:  # issue 23: a ResNet-50 3x3 layer
        value = dense[("conv2d", "float32")]["sim_speed_vs_torch"]["median"]
        found.append({"target": f"convolution (ResNet-50 3x3 layer) float32 >= 0.5x PyTorch CPU{on}", "value": value,
                      "met": value >= 0.5})
    # Issue 12: reduction and softmax GB/s at 16M elements >= 0.8x PyTorch's.
    for op, what in (("softmax", "softmax"), ("reduce_sum", "reduction (sum along the last dimension)")):
        if (op, "float32") in dense:
            value = dense[(op, "float32")]["sim_speed_vs_torch"]["median"]
            found.append({"target": f"{what} GB/s at 16M float32 >= 0.8x PyTorch CPU{on}", "value": value,
                          "met": value >= 0.8})
    # Issue 23: the families' lines >= 0.8x PyTorch's.
    notes = {"cross_entropy": " (log_softmax + nll_loss, torch_npu's path)"}
    for op in ("max_pool2d", "cross_entropy", "upsample_bilinear2d", "upsample_bilinear2d_backward", "sort"):
        if (op, "float32") in dense:
            row = dense[(op, "float32")]
            value = row["sim_speed_vs_torch"]["median"]
            found.append({"target": f"{row['op']} float32{notes.get(op, '')} >= 0.8x PyTorch CPU{on}",
                          "value": value, "met": value >= 0.8})
    return found


def table(results: dict) -> str:
    s = results["sections"]
    # The CPU's model says which vector units the paths had (older results do not name it).
    model = results["machine"].get("cpu_model")
    lines = [f"mode {results['mode']}, {results['date']}, {results['machine']['cpus']} CPUs"
             + (f" of an {model}" if model else "")
             + f" (load average at start {results['machine']['load_average'][0]:.1f}), torch {results['machine']['torch']}",
             "", "| measure | median | min–max | unit | note |", "|---|---|---|---|---|"]
    for name, r in s.items():
        for path, result in by_path(r):
            if "error" in result:
                lines.append(f"| **{name}{_on(path)}** | – | – | – | {result['error']} |")
    gen = s.get("generation", {})
    if "seconds" in gen:
        sample = "" if gen["step"] == 1 else f" (every {gen['step']}th)"
        n = f"{gen['pages']} of {gen['corpus_pages']} pages of {gen['source']}{sample}, {gen['apis']} APIs"
        pps = gen["pages_per_second"]
        inc = gen["incremental"]
        lines += [
            _row("generation: floor (markdown-it-py + BeautifulSoup/lxml), one core", pps["floor"], "pages/s", note=n),
            _row("generation: parse + IR, one core", pps["parse_ir"], "pages/s"),
            _row("generation: parse + IR + emit, one core", pps["parse_ir_emit"], "pages/s"),
            _row("generation: (parse + IR + emit) / floor", gen["ratio_to_floor"]["parse_ir_emit"], "x",
                 note="target ≤ 3"),
            _row("generation: emit's share of the time", gen["emit_share"], "%", scale=100, digits=0),
        ]
        if "cold_both_cores" in gen:
            lines += [
                _row(f"generation: cold, {gen['cold_both_cores']['jobs']} processes", gen["cold_both_cores"]["seconds"],
                     "s", note="empty cache: every page parsed, every file rendered"),
                _row("generation: cold on both cores / one-core floor", gen["ratio_to_floor"]["cold_both_cores"], "x",
                     note="target ≤ 1.0"),
            ]
        lines += [
            _row("generation: regenerate after one page changed", inc["seconds"], "s",
                 note=f"target ≤ 0.5; {inc.get('pages_reparsed', '?')} page re-parsed, "
                      f"{inc.get('files_rendered', '?')} files rendered, {len(inc['files_written'])} written"),
        ]
    if gen.get("incremental"):
        inc = gen["incremental"]
        lines += [
            _row("generation: one page changed, as a command (python -m gen generate)", inc.get("command_seconds"), "s",
                 note=f"a new interpreter, --jobs 2; {gen['pages']} pages of {gen['source']}"),
            _row("generation: the same, CPU (user + system, workers included)", inc.get("command_cpu_seconds"), "CPU s"),
            _row("generation: nothing changed, as a command", inc.get("noop_command_seconds"), "s"),
            _row("generation: nothing changed, CPU", inc.get("noop_command_cpu_seconds"), "CPU s"),
        ]
    if "seconds" in gen:
        lines += [
            f"| generation: peak memory (tracemalloc, {gen['tracemalloc_peak_mb']['pages']} pages) | "
            f"{gen['tracemalloc_peak_mb']['parse_ir_emit']:.1f} | floor {gen['tracemalloc_peak_mb']['floor']:.1f} | MiB | "
            f"process RSS {gen['peak_rss_mb']:.0f} MiB |",
        ]
    build = s.get("build", {})
    if "cpu_s_per_api" in build:
        c = build["set"]
        inc = build["incremental"]
        name = "op_docs/" if c["name"] == "op_docs" else f"every {c['step']}th corpus page"
        failed = f"; {c['units_failed']} unit(s) failed to compile" if c["units_failed"] else ""
        lines += [
            _plain("build: CPU s per API binding (cold, marginal)", build["cpu_s_per_api"], "CPU s",
                   note=f"{c['apis']} APIs ({name}) vs 1 API; aclnn._C only{failed}"),
            _plain("build: CPU s per API binding (its unit's share, recompiled)", build["cpu_s_per_api_from_units"],
                   "CPU s", note=f"the bindings units + link: {build['units_cpu_s']:.1f} CPU s / {c['apis']} APIs")
            if build["units_cpu_s"] is not None else f"| build: bindings units | – | – | CPU s | not run{failed} |",
            _plain("build: fixed cost (runtime, PCH, link)", build["fixed_cpu_s"], "CPU s",
                   note=f"+ configure {build['seed']['configure_cpu_s']:.1f} CPU s"),
            _plain(f"build: cold, {c['apis']} APIs", c["cpu_s"], "CPU s", note=f"{c['wall_s']:.0f} s wall, -j{build['jobs']}"),
            _row("build: incremental, one page changed", inc["build_cpu_s"], "CPU s",
                 note=(f"{inc['runs'][0]['units_compiled']} unit(s) recompiled + link; regenerate "
                       f"{inc['runs'][0]['generate_s']:.1f} s") if inc["runs"] else "not run"),
            f"| build: compiler peak RSS | {build['compiler_peak_rss_mb']:.0f} | (max) | MiB | |",
        ]
    calls = s.get("calls", {})
    if "seconds_per_call" in calls:
        t = calls["seconds_per_call"]
        us = 1e6
        chain = f"chains of {calls['calls_per_chain']} calls, {calls['elements']} × fp32, last sync included"
        counters = calls.get("chain_counters", {})
        lines += [
            _row("call (a): NumPy inputs", t["a_numpy"], "µs", us, 1, "aclnn.leaky_relu_backward: upload, kernel, "
                 "download, one sync per call"),
            _row("call (b): device-resident chain", t["b_chain"], "µs", us, 2, chain),
            _row("call (b'): device-resident chain, out= device", t["b_out"], "µs", us, 2),
            _row("call (c): C++ floor, every object made per call", t["c_floor"], "µs", us, 2, "bench/call_floor.cpp"),
            _row("call (d): PyTorch eager, same chain", t["d_torch"], "µs", us, 2,
                 "torch.ops.aten.leaky_relu_backward, CPU tensors"),
            _row("call (a)/(c)", calls["ratios"]["a/c"], "x"),
            _row("call (b)/(c)", calls["ratios"]["b/c"], "x", note="target ≤ 1.25"),
            _row("call (b')/(c)", calls["ratios"]["b_out/c"], "x"),
            _row("call (b)/(d)", calls["ratios"]["b/d"], "x", note="target ≤ 1"),
            f"| chain (b): simulator counters during the chain | {counters.get('malloc_calls', '–')} mallocs, "
            f"{counters.get('stream_syncs', '–')} stream syncs, {counters.get('device_syncs', '–')} device syncs | "
            f"(max over rounds) | | {counters.get('kernels_launched', '–')} kernels launched |",
            f"| calls: peak RSS | {calls['peak_rss_mb']:.0f} | | MiB | process |",
        ]
    for path, kernels in by_path(s.get("kernels", {})):
        for row in kernels.get("rows", []):
            sim, torch = row["gb_per_s"]["sim"], row["gb_per_s"]["torch"]
            lines.append(_row(f"kernel {row['op']} {row['dtype']} {row['size']}{_on(path, kernels)}: simulator", sim, "GB/s",
                              note=f"PyTorch {torch['median']:.2f} ({_range(torch)}) GB/s; simulator's speed / "
                                   f"PyTorch's {row['sim_speed_vs_torch']['median']:.2f} "
                                   f"({_range(row['sim_speed_vs_torch'])})"))
        if kernels.get("rows"):
            lines.append(f"| kernels{_on(path, kernels)}: peak RSS | {kernels['peak_rss_mb']:.0f} | | MiB | process; "
                         f"threads: torch {kernels['torch_threads']}, simulator {kernels['sim_threads']} |")
    for path, dense in by_path(s.get("dense", {})):
        for row in dense.get("rows", []):
            sim, torch = row["rate"]["sim"], row["rate"]["torch"]
            lines.append(_row(f"{row['op']} {row['dtype']}{_on(path, dense)}: simulator", sim, row["unit"],
                              note=f"PyTorch {torch['median']:.2f} ({_range(torch)}) {row['unit']}; simulator's speed / "
                                   f"PyTorch's {row['sim_speed_vs_torch']['median']:.2f} "
                                   f"({_range(row['sim_speed_vs_torch'])})"))
        if dense.get("rows"):
            lines.append(f"| dense{_on(path, dense)}: peak RSS | {dense['peak_rss_mb']:.0f} | | MiB | process; "
                         f"threads: torch {dense['torch_threads']}, simulator {dense['sim_threads']} "
                         "(its OpenBLAS products split over them) |")
    npu = s.get("torch_npu", {})
    if "chain_us" in npu:
        lines += [
            _row(f"torch_npu on the simulator: chain of {npu['calls']} small calls, per call", npu["chain_us"]["npu"], "µs",
                 note=f"PyTorch CPU eager {npu['chain_us']['cpu']['median']:.2f} µs; ratio {npu['chain_ratio']['median']:.2f} "
                      f"({_range(npu['chain_ratio'])}); {npu['device']}, torch_npu {npu['torch_npu']}"),
            _row(f"torch_npu on the simulator: Llama decoder layer (sequence {npu['seq']})", npu["layer_ms"]["npu"], "ms",
                 note=f"PyTorch CPU eager {npu['layer_ms']['cpu']['median']:.2f} ms; ratio {npu['layer_ratio']['median']:.2f} "
                      f"({_range(npu['layer_ratio'])}); target ≤ 1.5"),
        ]
    if results.get("targets"):
        lines += ["", "| target | measured | met |", "|---|---|---|"]
        for t in results["targets"]:
            extra = f" ({t['worst']})" if "worst" in t else ""
            lines.append(f"| {t['target']} | {t['value']:.2f}{extra} | {'yes' if t['met'] else '**no**'} |")
    return "\n".join(lines)
