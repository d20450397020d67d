"""The repository's own build (build/main: `make package`, `make build`), whose hand-written cores
(the simulator's libraries' and the extension's runtime, the same for every set of pages) the
tests' builds of other pages link instead of compiling them again: `-DACLNN_REUSE_CORES`
(runtime/sim/CMakeLists.txt). Without that build, or for a sanitized build (the cores are not),
a test build compiles everything itself, as before.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAIN_BUILD = ROOT / "build" / "main"
CORES = ("aclsim_ascendcl_core", "aclsim_nnopbase_core", "aclsim_opapi_core", "aclsim_op_compiler_core",
         "aclsim_hccl_core", "aclnn_binding_core")
EXPORTS = ("aclnn-sim-cores.cmake", "aclnn-binding-core.cmake")


def reuse_cores_arguments(*, sanitize: bool) -> list[str]:
    """CMake arguments that make a test build link build/main's cores, brought up to date first
    (pytest workers building at once take turns), or an empty value when they cannot be reused
    (a build directory configured before keeps a cache variable until told otherwise).
    ACLNN_TEST_REUSE_CORES=0 turns reuse off."""
    compile_them = ["-DACLNN_REUSE_CORES="]
    if sanitize or os.environ.get("ACLNN_TEST_REUSE_CORES") == "0":
        return compile_them
    if not all((MAIN_BUILD / name).is_file() for name in EXPORTS) or not (MAIN_BUILD / "build.ninja").is_file():
        return compile_them
    ninja = shutil.which("ninja", path=str(Path(sys.executable).parent)) or "ninja"
    with open(MAIN_BUILD / ".cores.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = subprocess.run([ninja, "-C", str(MAIN_BUILD), *CORES], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"bringing build/main's cores up to date failed:\n{result.stdout}\n{result.stderr}")
    return [f"-DACLNN_REUSE_CORES={MAIN_BUILD}"]
