"""Builds the aclnn package once per test session, for tests/test_bindings_*.py.

The seed pages (`tests.support.bindings_ir.seed_pages`: the parser's IR, or the hand-made one) go
through the generator's emitters into build/test-bindings/generated/ (written only when changed),
and CMake + Ninja build it in build/test-bindings/cmake/ (kept between runs: a second session
rebuilds nothing). With the real simulator (runtime/sim) the whole repository is configured;
until it builds, tests/support/fake_backend stands in for it. A file lock keeps parallel pytest workers
from building at the same time.
"""

from __future__ import annotations

import fcntl
import functools
import importlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from gen.emit.files import FileManager
from gen.model import build_model
from gen import pipeline
from tests.support import main_build
from tests.support.bindings_ir import probe_pages, seed_pages

ROOT = Path(__file__).resolve().parents[2]
# ACLNN_SIM_SANITIZE=1 (make asan, as for tests/sim/sim_lib.py): an ASan + UBSan build of its own.
SANITIZE = os.environ.get("ACLNN_SIM_SANITIZE") == "1"
BUILD = ROOT / "build" / ("test-bindings-asan" if SANITIZE else "test-bindings")
PYTHON = sys.executable
SIM_FILES = ("runtime/sim/CMakeLists.txt", "gen/emit/sim.py")


@functools.lru_cache(maxsize=1)
def real_simulator() -> bool:
    """Whether to build on the real simulator: ACLNN_TEST_BACKEND=sim|fake says so, else whether
    runtime/sim and its op emitter are committed (a simulator still being written in the work
    tree would break every bindings test)."""
    choice = os.environ.get("ACLNN_TEST_BACKEND", "")
    if choice in ("sim", "fake"):
        return choice == "sim"
    try:
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", *SIM_FILES], cwd=ROOT,
                                 capture_output=True).returncode == 0
    except OSError:
        tracked = all((ROOT / f).exists() for f in SIM_FILES)
    return tracked


def generated_dir() -> Path:
    # Separate trees: the fake's _sim/ holds symlinks the real simulator's build must not meet.
    return BUILD / ("generated" if real_simulator() else "generated-fake")


def emitters() -> list[str]:
    from gen.pipeline import EMITTERS

    mine = ["gen.emit.bindings", "gen.emit.package"]
    extra = ["gen.emit.sim"] if real_simulator() else []
    return list(dict.fromkeys([*EMITTERS, *extra, *mine]))


def generate() -> FileManager:
    pages = [*seed_pages(), *probe_pages()]
    semantics = pipeline.semantics((), pipeline.declared_apis(pages)).ops
    model = build_model(pages, semantics)
    files = FileManager(generated_dir())
    for module in emitters():
        importlib.import_module(module).emit(model, files)
    return files


def configure_and_build(log) -> float:
    source = ROOT if real_simulator() else ROOT / "tests" / "support" / "fake_backend"
    cmake_dir = BUILD / ("cmake" if real_simulator() else "cmake-fake")
    start = time.perf_counter()
    # Configured every session (about a second; it rebuilds nothing) so that the cache follows
    # changes of the generated directory.
    # One ninja for CMake's own runs and ours: two versions rewrite each other's .ninja_log
    # format, and a log "too old" for the other makes it rebuild everything.
    ninja = shutil.which("ninja", path=str(Path(PYTHON).parent)) or shutil.which("ninja") or "ninja"
    subprocess.run([shutil.which("cmake", path=str(Path(PYTHON).parent)) or "cmake", "-G", "Ninja",
                    "-S", str(source), "-B", str(cmake_dir), f"-DPython_EXECUTABLE={PYTHON}",
                    f"-DCMAKE_MAKE_PROGRAM={ninja}", f"-DACLNN_GENERATED_DIR={generated_dir()}",
                    "-DCMAKE_BUILD_TYPE=Release",
                    *(["-DACLNN_SANITIZE=ON", "-DACLNN_BUILD_EXAMPLES=OFF"] if SANITIZE else []),
                    *(main_build.reuse_cores_arguments(sanitize=SANITIZE) if real_simulator() else [])],
                   check=True, stdout=log, stderr=subprocess.STDOUT)
    subprocess.run([ninja, "-C", str(cmake_dir)], check=True, stdout=log, stderr=subprocess.STDOUT)
    return time.perf_counter() - start


# What this process built (real_simulator() is fixed for the process): the sources do not change during a
# test run, and generating and asking Ninja again cost each call 0.35 s (44 of them in test_settings alone).
_built: Path | None = None


def build_package() -> Path:
    """Generates and builds (once per process); returns the directory to put on sys.path (it holds aclnn/)."""
    global _built
    if _built is not None:
        return _built
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        generate()
        with open(BUILD / "build.log", "w") as log:
            try:
                configure_and_build(log)
            except subprocess.CalledProcessError as exc:
                raise RuntimeError(f"building the aclnn package failed; see {BUILD / 'build.log'}") from exc
    _built = generated_dir()
    return _built


def fake_cann_install(home: Path) -> Path:
    """A CANN install layout (home/lib64) of tests/support/fake_backend: libascendcl.so (libnnopbase.so
    and libopapi.so link to it) and the split libopapi_split.so. Returns `home`."""
    lib64 = home / "lib64"
    lib64.mkdir(parents=True, exist_ok=True)
    fake, include = ROOT / "tests" / "support" / "fake_backend", f"-I{ROOT / 'runtime/include'}"
    subprocess.run(["g++", "-std=c++17", "-shared", "-fPIC", "-O1", include, str(fake / "fake_acl.cpp"),
                    "-o", str(lib64 / "libascendcl.so")], check=True)
    subprocess.run(["g++", "-std=c++17", "-shared", "-fPIC", include, str(fake / "split_op.cpp"),
                    "-o", str(lib64 / "libopapi_split.so")], check=True)
    for name in ("libnnopbase.so", "libopapi.so"):
        if not (lib64 / name).exists():
            (lib64 / name).symlink_to("libascendcl.so")
    return home


def import_aclnn():
    """Builds, then imports the package in this process, on the simulator (or its fake)."""
    path = str(build_package())
    os.environ["ACLNN_BACKEND"] = "sim"
    os.environ.pop("ACLNN_SIM_DIR", None)
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module("aclnn")
