"""runtime/loader: which backend is opened, from where, and what happens when something is missing.

Each case runs a fresh interpreter (the backend is chosen once per process). A "CANN install" is
faked with tests/support/fake_backend (libascendcl.so, libnnopbase.so, libopapi.so in lib64/, plus a split
libopapi_split.so that alone exports aclnnOnlyInSplitGetWorkspaceSize).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import bindings_build

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def package_dir():
    return bindings_build.build_package()


@pytest.fixture(scope="module")
def cann_home(tmp_path_factory):
    return bindings_build.fake_cann_install(tmp_path_factory.mktemp("cann"))


def run(package_dir, code, **env):
    clean = {k: v for k, v in os.environ.items() if k not in ("ACLNN_BACKEND", "ACLNN_SIM_DIR", "ASCEND_HOME_PATH",
                                                              "ASCEND_TOOLKIT_HOME")}
    clean.update(env)
    clean["PYTHONPATH"] = str(package_dir)
    result = subprocess.run([sys.executable, "-c", "import aclnn, json\n" + code], env=clean, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


BACKEND = "b = aclnn.backend(); print(json.dumps([str(b), b.lib_dir, b.reason]))"
ERROR = ("try:\n    aclnn.backend()\nexcept aclnn.BackendError as e:\n    print('BackendError:', e)")


def test_automatic_choice_is_the_simulator_without_cann(package_dir):
    name, lib_dir, reason = json.loads(run(package_dir, BACKEND))
    assert name == "sim" and lib_dir == str(package_dir / "aclnn" / "_sim") and "no CANN install" in reason


def test_automatic_choice_is_cann_when_installed(package_dir, cann_home):
    name, lib_dir, _ = json.loads(run(package_dir, BACKEND, ASCEND_HOME_PATH=str(cann_home)))
    assert (name, lib_dir) == ("cann", str(cann_home / "lib64"))


def test_forced_simulator_despite_cann(package_dir, cann_home):
    name, _, reason = json.loads(run(package_dir, BACKEND, ASCEND_HOME_PATH=str(cann_home), ACLNN_BACKEND="sim"))
    assert (name, reason) == ("sim", "ACLNN_BACKEND=sim")


def test_forced_cann_without_an_install_names_the_directories_searched(package_dir, tmp_path):
    out = run(package_dir, ERROR, ACLNN_BACKEND="cann", ASCEND_HOME_PATH=str(tmp_path))
    assert out.startswith("BackendError: ACLNN_BACKEND=cann, but no CANN install was found")
    assert str(tmp_path / "lib64") in out


def test_unknown_backend_name(package_dir):
    assert "must be 'cann', 'sim' or unset" in run(package_dir, ERROR, ACLNN_BACKEND="npu")


def test_missing_simulator_directory(package_dir, tmp_path):
    out = run(package_dir, ERROR, ACLNN_SIM_DIR=str(tmp_path))
    assert f"{tmp_path}/libascendcl.so, which does not exist" in out


def test_op_symbol_found_in_a_split_library(package_dir, cann_home):
    out = run(package_dir, "print(aclnn._C._resolve('aclnnOnlyInSplit', 'aclnnOnlyInSplitGetWorkspaceSize') != 0);"
                           "print(aclnn.backend().libraries[-1])", ASCEND_HOME_PATH=str(cann_home))
    assert out.splitlines() == ["True", str(cann_home / "lib64" / "libopapi_split.so")]


def test_missing_op_symbol_names_the_api_and_the_libraries(package_dir, cann_home):
    code = ("try:\n    aclnn._C._resolve('aclnnNowhere', 'aclnnNowhereGetWorkspaceSize')\n"
            "except aclnn.BackendError as e:\n    print(e)")
    out = run(package_dir, code, ASCEND_HOME_PATH=str(cann_home))
    assert out.startswith("aclnnNowhere: symbol aclnnNowhereGetWorkspaceSize not found in the cann backend")
    assert "libopapi.so" in out and "libopapi_split.so" in out


def test_calls_run_on_the_chosen_cann_install(package_dir, cann_home):
    code = ("import numpy as np\n"
            "print(aclnn.leaky_relu_backward(np.array([2, 3], np.float32), np.array([1, -1], np.float32), 0.5, False))")
    assert run(package_dir, code, ASCEND_HOME_PATH=str(cann_home)) == "[2.  1.5]"


def test_exit_finalises_with_live_tensors_without_crashing(package_dir):
    code = ("import numpy as np\nt = aclnn.to_device(np.ones(4, np.float32))\n"
            "r = aclnn.leaky_relu_backward(t, t, 0.5, False)\nprint('ok')")
    assert run(package_dir, code) == "ok"


# --- a device fault on CANN: attributed by the API its message names -------------------------------

FAULT_AFTER = """
import numpy as np
g = aclnn.to_device(np.ones(4, np.float32))
numbers = []
for _ in range({calls}):
    aclnn.leaky_relu_backward(g, g, 0.5, False)
    numbers.append(aclnn.call_count())
try:
    aclnn.synchronize()
    print("no error")
except aclnn.AclnnRuntimeError as e:
    print(json.dumps([e.api, e.call, numbers, e.status, e.message]))
"""


def test_on_cann_a_fault_names_the_one_call_of_the_api_its_message_names(package_dir, cann_home):
    out = run(package_dir, FAULT_AFTER.format(calls=1), ASCEND_HOME_PATH=str(cann_home), FAKE_ACL_FAULT="1")
    api, call, numbers, status, message = json.loads(out)
    assert (api, call, status) == ("aclnnLeakyReluBackward", numbers[0], 507015)
    assert "AI Core raised an exception" in message and "aclnn.synchronize()" in message


def test_on_cann_a_fault_among_several_calls_of_its_api_names_the_api_not_a_guessed_call(package_dir, cann_home):
    # CANN's message names the op, not the launch: with three candidates, .call stays unknown rather
    # than pointing at the oldest (the fault was the second's).
    out = run(package_dir, FAULT_AFTER.format(calls=3), ASCEND_HOME_PATH=str(cann_home), FAKE_ACL_FAULT="2")
    api, call, numbers, status, message = json.loads(out)
    assert (api, call, status) == ("aclnnLeakyReluBackward", None, 507015)
    assert f"one of 3 calls of aclnnLeakyReluBackward, numbers {numbers[0]} to {numbers[2]}" in message
    assert "ACLNN_LAUNCH_BLOCKING=1" in message


LAUNCH_BLOCKING_CHAIN = """
import numpy as np
g = aclnn.to_device(np.ones(4, np.float32))
numbers = []
try:
    for _ in range(3):
        aclnn.leaky_relu_backward(g, g, 0.5, False)
        numbers.append(aclnn.call_count())
except aclnn.AclnnRuntimeError as e:
    print(json.dumps([e.api, e.call, numbers, e.status]))
"""


def test_on_cann_launch_blocking_names_the_call_that_faulted(package_dir, cann_home):
    out = run(package_dir, LAUNCH_BLOCKING_CHAIN, ASCEND_HOME_PATH=str(cann_home), FAKE_ACL_FAULT="2",
              ACLNN_LAUNCH_BLOCKING="1")
    api, call, numbers, status = json.loads(out)
    # The second call synchronised after its launch and raised: only the first had returned.
    assert (api, status, call) == ("aclnnLeakyReluBackward", 507015, numbers[0] + 1)
    assert len(numbers) == 1
