"""Every environment variable the package and the simulator read: listed in the README with the
values it accepts, and a value outside those refused with a message naming the variable (issue 15:
ACLNN_SIM_DEVICE_MEMORY=1G was 64 GiB, abc silently the default, ACLNN_SIM_THREADS=abc ignored).
Each case runs in a fresh process: the settings are read once, at the runtime's start."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import bindings_build

ROOT = Path(__file__).resolve().parents[2]
real_sim = pytest.mark.skipif(not bindings_build.real_simulator(), reason="needs the real simulator (runtime/sim)")

CALL = """
import aclnn, numpy as np
try:
    print("ok", aclnn.leaky_relu_backward(np.ones(2, np.float32), np.ones(2, np.float32), 0.5, False).tolist())
except Exception as e:
    print(type(e).__name__, e)
"""


def run(code: str, **env: str) -> str:
    package = bindings_build.build_package()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_")}
    clean.update(PYTHONPATH=str(package), ACLNN_BACKEND="sim")
    clean.update(env)
    done = subprocess.run([sys.executable, "-c", code], env=clean, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


BAD = [
    ("ACLNN_BACKEND", "npu"), ("ACLNN_LAUNCH_BLOCKING", "2"), ("ACLNN_LAUNCH_BLOCKING", "yes"),
    ("ACLNN_SIM_SOC", "Ascend999"), ("ACLNN_SIM_DEVICE_COUNT", "0"), ("ACLNN_SIM_DEVICE_COUNT", "x"),
    ("ACLNN_SIM_SYNC", "2"), ("ACLNN_SIM_FAULT", "bogus"), ("ACLNN_SIM_FAULT", "aclnnAbs:0"),
    ("ACLNN_SIM_DEVICE_MEMORY", "abc"), ("ACLNN_SIM_DEVICE_MEMORY", "0"), ("ACLNN_SIM_DEVICE_MEMORY", "-1"),
    ("ACLNN_SIM_DEVICE_MEMORY", "99999999999999999999"), ("ACLNN_SIM_DEVICE_MEMORY", "1X"),
    ("ACLNN_SIM_DEVICE_MEMORY", "1.5G"), ("ACLNN_SIM_THREADS", "abc"), ("ACLNN_SIM_THREADS", "-5"),
    ("ACLNN_SIM_THREADS", "0"), ("ACLNN_SIM_THREADS", "257"), ("ACLNN_SIM_ISA", "bogus"), ("ACLNN_SIM_LOG", "yes"),
    ("ACLNN_SIM_ONEDNN", "no"),
    ("ACLNN_SIM_STALL_MS", "0"), ("ACLNN_SIM_STALL_MS", "1s"), ("ACLNN_SIM_STALL_MS", "86400001"),
    ("ACLNN_SIM_CANN_VERSION", "nine"), ("ACLNN_SIM_CANN_VERSION", "9.0"), ("ACLNN_SIM_CANN_VERSION", "9.0.RC"),
    ("ACLNN_SIM_DIR", "/nonexistent"),
    # Read by the automatic choice of the backend (ACLNN_BACKEND unset): a directory that holds no
    # CANN install is refused, not taken as a request for the simulator.
    ("ASCEND_HOME_PATH", "/nonexistent"), ("ASCEND_TOOLKIT_HOME", "/nonexistent"),
]
AUTOMATIC_BACKEND = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
# Read by the generator's tools: ACLNN_CORPUS by `make corpus` (python -m gen.corpus).
GENERATOR_BAD = [("ACLNN_CORPUS", "/nonexistent"), ("ACLNN_CORPUS", "README.md")]


@real_sim
@pytest.mark.parametrize("name, value", BAD)
def test_a_value_a_variable_does_not_accept_is_refused_naming_it(name, value):
    out = run(CALL, **{name: value}, **({"ACLNN_BACKEND": ""} if name in AUTOMATIC_BACKEND else {}))
    assert not out.startswith("ok"), out
    assert f"{name}={value}" in out or (f"{name}" in out and value in out), out


@real_sim
@pytest.mark.parametrize("name, value", [
    ("ACLNN_SIM_DEVICE_MEMORY", "1G"), ("ACLNN_SIM_DEVICE_MEMORY", "512m"), ("ACLNN_SIM_DEVICE_MEMORY", "2GiB"),
    ("ACLNN_SIM_DEVICE_MEMORY", "1073741824"), ("ACLNN_SIM_THREADS", "1"), ("ACLNN_SIM_THREADS", "3"),
    ("ACLNN_SIM_ISA", "baseline"), ("ACLNN_SIM_ISA", "auto"), ("ACLNN_SIM_ISA", "avx2"), ("ACLNN_SIM_ISA", "avx512"), ("ACLNN_SIM_LOG", "0"),
    ("ACLNN_SIM_ONEDNN", "0"), ("ACLNN_SIM_ONEDNN", "1"),
    ("ACLNN_SIM_SYNC", "0"), ("ACLNN_SIM_SYNC", "1"), ("ACLNN_LAUNCH_BLOCKING", "1"), ("ACLNN_SIM_SOC", "Ascend910B4"),
    ("ACLNN_SIM_CANN_VERSION", "8.3.RC1"), ("ACLNN_SIM_CANN_VERSION", "8.5.0.alpha003"),
])
def test_documented_values_are_accepted(name, value):
    assert run(CALL, **{name: value}) == "ok [1.0, 1.0]"


@real_sim
def test_the_device_memory_size_is_read_with_its_suffix():
    # 4M is 4 MiB (a reading that drops the suffix takes the 64 GiB default): 6 MiB cannot be had. The
    # suffixes share one reading; mebibytes keep the host's copy small (a gibibyte cost seconds).
    code = ("import aclnn, numpy as np\ntry:\n    aclnn.to_device(np.zeros(3 << 19, np.float32))\n    print('allocated')\n"
            "except aclnn.AclError as e:\n    print(e.status_name)")
    assert run(code, ACLNN_SIM_DEVICE_MEMORY="4M") == "ACL_ERROR_RT_MEMORY_ALLOCATION"
    assert run(code, ACLNN_SIM_DEVICE_MEMORY="8M") == "allocated"


@pytest.mark.parametrize("name, value", GENERATOR_BAD)
def test_a_corpus_that_is_no_directory_is_refused_naming_it(name, value, tmp_path):
    clean = {k: v for k, v in os.environ.items() if k != name}
    done = subprocess.run([sys.executable, "-m", "gen.corpus", "--build", str(tmp_path), "--report-dir", str(tmp_path)],
                          env={**clean, name: value}, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and f"{name}={value}" in done.stderr, done.stdout[-2000:] + done.stderr[-2000:]


# How a variable's name is read: getenv("X"), the simulator's ReadFlag("X", ...), the loader's
# env("X"), Python's os.environ["X"] / os.environ.get("X").
READS = (r'getenv\("([A-Z0-9_]+)"\)', r'\bReadFlag\("([A-Z0-9_]+)"', r'\benv\("([A-Z0-9_]+)"\)',
         r'environ(?:\.get)?[\[(]"([A-Z0-9_]+)"')


def variables_read() -> set[str]:
    """The variables the runtime's C++, the package's Python and the generator's tools read."""
    names: set[str] = set()
    sources = [*ROOT.glob("runtime/**/*.cpp"), *ROOT.glob("runtime/**/*.h"), *ROOT.glob("runtime/python/**/*.py"),
               *ROOT.glob("templates/package/*.j2"), *ROOT.glob("gen/**/*.py")]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        for pattern in READS:
            names.update(re.findall(pattern, text))
    # The loader reads these two through a loop over their names.
    names.update(re.findall(r'"(ASCEND_[A-Z_]+)"', (ROOT / "runtime/loader/loader.cpp").read_text(encoding="utf-8")))
    return names


def test_the_scan_finds_each_form_of_reading_a_variable():
    found = variables_read()
    # One of each form: getenv, ReadFlag (ACLNN_SIM_SYNC), env() in a loop (ASCEND_*), os.environ (gen/).
    assert {"ACLNN_LAUNCH_BLOCKING", "ACLNN_SIM_SYNC", "ACLNN_SIM_LOG", "ASCEND_TOOLKIT_HOME", "ACLNN_CORPUS"} <= found


# Variables of other libraries the runtime reads only to leave a user's value in place: not settings
# of this project (the README says where each is honoured).
OTHER_LIBRARIES = {
    # OpenBLAS's core, which the simulator sets for ACLNN_SIM_ISA's path unless the user set it
    # (runtime/sim/src/opapi/blas.cpp; README, ACLNN_SIM_ISA's row).
    "OPENBLAS_CORETYPE",
}


def test_every_variable_read_is_in_the_readme_and_has_a_bad_value_test():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([A-Z0-9_]+)` \|", readme, re.M))
    read = variables_read() - OTHER_LIBRARIES
    assert read, "no variable found: the scan is broken"
    assert read <= listed, f"read but not in README's table: {sorted(read - listed)}"
    tested = {name for name, _ in BAD + GENERATOR_BAD}
    assert read <= tested, f"read but given no bad value here: {sorted(read - tested)}"
