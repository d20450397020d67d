"""`make asan`: the simulator and the extension under AddressSanitizer + UndefinedBehaviorSanitizer,
running the generated suites, both fuzzers, the reliability tests and the asynchronous runtime's.
Prints "asan: clean" or "asan: NOT clean" (exit 1), and the time of each step.

    python -m tests.support.asan [--cases N] [--edge-cases N] [--skip-build]

1. Builds the top-level CMake project (runtime/sim + runtime/binding over generated/) with
   -DACLNN_SANITIZE=ON in build/asan/cmake, the extension and the simulator's libraries going to
   build/asan/package/aclnn (-DACLNN_PACKAGE_DIR): generated/aclnn is never written.
2. Links the generated package's Python files (generated/aclnn/*.py, _apis.json, ...) next to them,
   so that PYTHONPATH=build/asan/package imports the sanitized aclnn before the .pth's generated/
   (checked: aclnn._C and the backend's libraries must come from build/asan).
3. Builds, sanitized too (ACLNN_SIM_SANITIZE=1), the seed/probe package of tests/support/bindings_build.py
   (build/test-bindings-asan) and the simulator of tests/sim/sim_lib.py (build/sim-asan), which the
   asynchronous runtime's tests load.
4. Runs, with libasan (then libstdc++, as runtime/sim/tests/asan.sh does for the same reason: ASan
   must find the real __cxa_throw when the uninstrumented interpreter loads torch) in LD_PRELOAD:
   the generated suites (generated/tests), the binding fuzzer's two campaigns on this package
   (ACLNN_OP_DOCS_PACKAGE_DIR), tests/runtime/test_reliability.py and test_runtime_reliability.py on
   it (integer extremes, exit with daemon threads, Ctrl-C; issue 25's faults, devices, views and
   forks), the asynchronous runtime's tests (tests/runtime/test_async_runtime.py,
   tests/sim/test_sim_streams.py, tests/runtime/test_threads.py,
   tests/runtime/test_descriptor_reuse.py) and the parser fuzzer (pure Python; run for completeness
   of `make asan`, it exercises no C++). allocator_may_return_null=1: a kernel that cannot have the
   host memory it asks for (the fuzzer's petabyte views) must fail as it does without the sanitizer,
   not abort; the warning ASan then writes ("failed to allocate 0x... bytes") is counted, not a
   report.
   ASAN_OPTIONS=detect_leaks=0: the interpreter is not instrumented, and LeakSanitizer would report
   CPython's and NumPy's own allocations kept until exit; leaks of ours are what tests/runtime/test_leaks.py
   and the fuzzer's live-object counts check (and runtime/sim/tests/asan.sh runs the simulator's
   C++ tests with detect_leaks=1). Reports go to build/asan/reports/; any file there, or any
   non-zero exit, makes the run not clean.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.sim.sim_lib import _tool

ROOT = Path(__file__).resolve().parents[2]
ASAN = ROOT / "build" / "asan"
CMAKE_DIR = ASAN / "cmake"
PACKAGE_ROOT = ASAN / "package"
PACKAGE = PACKAGE_ROOT / "aclnn"
REPORTS = ASAN / "reports"
GENERATED = ROOT / "generated"


def build() -> None:
    configure = [_tool("cmake"), "-G", "Ninja", "-S", str(ROOT), "-B", str(CMAKE_DIR),
                 f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}", f"-DPython_EXECUTABLE={sys.executable}",
                 "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DACLNN_SANITIZE=ON", f"-DACLNN_GENERATED_DIR={GENERATED}",
                 f"-DACLNN_PACKAGE_DIR={PACKAGE}", "-DACLNN_BUILD_EXAMPLES=OFF"]
    subprocess.run(configure, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([_tool("ninja"), "-C", str(CMAKE_DIR)], check=True)


def build_test_packages() -> None:
    """The sanitized seed/probe package and simulator that the asynchronous runtime's tests load,
    built before the runs (without libasan preloaded into the compilers)."""
    code = ("from tests.sim import sim_lib; from tests.support import bindings_build; "
            "bindings_build.build_package(); sim_lib.session_build()")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=dict(os.environ, ACLNN_SIM_SANITIZE="1"))


def link_python_files() -> None:
    """The generated package's files beside the sanitized _C and _sim/ (symlinks: a regenerated
    file is seen at once; stale links are removed)."""
    PACKAGE.mkdir(parents=True, exist_ok=True)
    for link in PACKAGE.iterdir():
        if link.is_symlink() and not link.exists():
            link.unlink()
    for source in (GENERATED / "aclnn").iterdir():
        if source.name.startswith("_C") or source.name in ("_sim", "__pycache__"):
            continue
        target = PACKAGE / source.name
        if target.is_symlink() or target.exists():
            if target.is_symlink() and target.resolve() == source.resolve():
                continue
            target.unlink()
        target.symlink_to(source)


def sanitizer_env() -> dict[str, str]:
    env = dict(os.environ)
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    libstdcxx = subprocess.run(["gcc", "-print-file-name=libstdc++.so"], capture_output=True, text=True).stdout.strip()
    REPORTS.mkdir(parents=True, exist_ok=True)
    env.update(
        LD_PRELOAD=f"{libasan} {libstdcxx}",
        ASAN_OPTIONS=f"detect_leaks=0:halt_on_error=1:abort_on_error=0:allocator_may_return_null=1:"
                     f"log_path={REPORTS}/asan",
        UBSAN_OPTIONS=f"print_stacktrace=1:halt_on_error=1:log_path={REPORTS}/ubsan",
        PYTHONPATH=os.pathsep.join([str(PACKAGE_ROOT), str(ROOT), env.get("PYTHONPATH", "")]),
        ACLNN_BACKEND="sim",
        ACLNN_OP_DOCS_PACKAGE_DIR=str(PACKAGE_ROOT),
        ACLNN_SIM_SANITIZE="1",
    )
    env.pop("ACLNN_SIM_DIR", None)
    return env


def check_package(env: dict[str, str]) -> str:
    """Which aclnn the runs import: must be the sanitized one."""
    code = ("import aclnn; print(aclnn._C.__file__); print(aclnn.backend().lib_dir); "
            "print(aclnn.leaky_relu_backward([1.0, -2.0], [1.0, -1.0], 0.5, False))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"the sanitized package does not import:\n{out.stderr[-3000:]}")
    c_file, lib_dir = out.stdout.splitlines()[:2]
    if not (c_file.startswith(str(ASAN)) and lib_dir.startswith(str(ASAN))):
        raise SystemExit(f"the runs would not use the sanitized build: _C {c_file}, libraries {lib_dir}")
    return out.stdout


_REFUSED = re.compile(r"==\d+==WARNING: AddressSanitizer failed to allocate 0x[0-9a-f]+ bytes")


def refused_allocations_only(report: Path) -> bool:
    """Whether a report holds nothing but ASan's warnings that it returned null for an allocation
    too large to make (allocator_may_return_null=1): the outcome the runs expect, no error."""
    lines = [line for line in report.read_text(errors="replace").splitlines() if line.strip()]
    return bool(lines) and all(_REFUSED.fullmatch(line.strip()) for line in lines)


def run(step: str, command: list[str], env: dict[str, str]) -> tuple[str, int, float]:
    print(f"== {step}: {' '.join(command)}", flush=True)
    start = time.perf_counter()
    code = subprocess.run(command, env=env, cwd=ROOT).returncode
    return step, code, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000, help="calls of the binding fuzzer's robustness campaign")
    parser.add_argument("--edge-cases", type=int, default=3000, help="calls of its edge-value campaign")
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    if not args.skip_build:
        build()
        build_test_packages()
    link_python_files()
    env = sanitizer_env()
    shutil.rmtree(REPORTS, ignore_errors=True)
    REPORTS.mkdir(parents=True)
    print(check_package(env), end="")
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    fuzz_env = dict(env, FUZZ_CASES=str(args.cases), FUZZ_EDGE_CASES=str(args.edge_cases))
    tests = ROOT / "tests"
    results = [
        run("generated suites", [*pytest, "-n", "2", str(GENERATED / "tests")], env),
        run("binding fuzzer", [*pytest, "-s", str(tests / "fuzz" / "test_fuzz_bindings.py")], fuzz_env),
        run("reliability", [*pytest, "-n", "2", str(tests / "runtime" / "test_reliability.py"),
                            str(tests / "runtime" / "test_runtime_reliability.py")], env),
        run("asynchronous runtime", [*pytest, "-n", "2", str(tests / "runtime" / "test_async_runtime.py"),
                                     str(tests / "sim" / "test_sim_streams.py"),
                                     str(tests / "runtime" / "test_threads.py"),
                                     str(tests / "runtime" / "test_descriptor_reuse.py")], env),
        run("parser fuzzer", [*pytest, "-n", "2", str(tests / "fuzz" / "test_fuzz_parser.py")], env),
    ]
    reports = [r for r in sorted(REPORTS.iterdir()) if not refused_allocations_only(r)]
    refused = len(list(REPORTS.iterdir())) - len(reports)
    print()
    for step, code, seconds in results:
        print(f"{step}: {'passed' if code == 0 else f'FAILED (exit {code})'} in {seconds:.0f} s")
    if refused:
        print(f"{refused} processes were refused an impossible allocation (allocator_may_return_null), as expected")
    for report in reports:
        print(f"sanitizer report {report}:\n{report.read_text()[:4000]}")
    clean = not reports and all(code == 0 for _, code, _ in results)
    print("asan: clean" if clean else "asan: NOT clean")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
