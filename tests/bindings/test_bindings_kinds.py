"""Every parameter kind reaches the library as the page's C type says, checked on the fake
backend's probe ops (tests/support/fake_backend), which record what they receive: int/float/bool arrays,
tensor and scalar lists, strings, dtypes, int attributes with their ranges, in-place tensors and
output lists."""

import json
import os
import subprocess
import sys

import pytest

from tests.support import bindings_build

PRELUDE = """
import aclnn, ctypes, json, numpy as np, ml_dtypes
_lib = ctypes.CDLL(aclnn.backend().lib_dir + "/libascendcl.so")
_lib.fakeLastProbe.restype = ctypes.c_char_p
def last():
    return json.loads(_lib.fakeLastProbe())
x = np.arange(6, dtype=np.float32).reshape(2, 3)
def probe(**kw):
    args = dict(self=x, dims=[1, 2], weights=[0.5], mask=[True], tensors=[x], scalars=[1.5], mode="m",
                dtype=np.float16, groups=1, small=1, eps=0.0, flag=False)
    args.update(kw)
    aclnn.bindings_probe(**args)
    return last()
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    package = bindings_build.build_package()
    home = bindings_build.fake_cann_install(tmp_path_factory.mktemp("cann"))
    clean = {k: v for k, v in os.environ.items() if k not in ("ACLNN_BACKEND", "ACLNN_SIM_DIR")}
    clean.update(ASCEND_HOME_PATH=str(home), PYTHONPATH=str(package))
    return clean


def run(env, code):
    result = subprocess.run([sys.executable, "-c", PRELUDE + code], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def probed(env, **kwargs):
    args = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    return json.loads(run(env, f"print(json.dumps(probe({args})))"))


def raises(env, call):
    return run(env, f"try:\n    {call}\nexcept Exception as e:\n    print(type(e).__name__ + ': ' + str(e))")


def test_arrays_lists_string_dtype_and_attributes(env):
    got = probed(env, dims="(3, -1, 2**40)", weights="np.array([0.25, 2])", mask="[True, np.bool_(False)]",
                 scalars="[1.5, 7, np.int64(3)]", mode="'bilinear'", dtype="'BFLOAT16'", groups="-(2**31)",
                 small="127", eps="1e-5", flag="True")
    assert got["dims"] == [3, -1, 2**40] and got["weights"] == [0.25, 2.0] and got["mask"] == [True, False]
    assert [s["dtype"] for s in got["scalars"]] == [0, 9, 9] and got["scalars"][0]["value"] == 1.5
    assert (got["mode"], got["dtype"], got["groups"], got["small"], got["eps"], got["flag"]) == \
        ("bilinear", 27, -(2**31), 127, 1e-5, True)


def test_optional_attributes_of_value_kinds_stay_required(env):
    out = run(env, "import inspect; print(inspect.signature(aclnn.bindings_probe))")
    assert out == "(self, dims, weights, mask, tensors, scalars, mode, dtype, groups, small, eps, flag, *, out=None)"


def test_tensor_list_members_keep_their_strides(env):
    got = probed(env, tensors="[x.T, x[:, ::2], aclnn.to_device(x)]")
    first, second, third = got["tensors"]
    assert (first["shape"], first["strides"], first["storage"]) == ([3, 2], [1, 3], [6])
    assert (second["shape"], second["strides"], second["storage"]) == ([2, 2], [3, 2], [6])
    assert third["strides"] == [3, 1]


def test_output_is_allocated_with_the_related_shape_and_dtype(env):
    got = probed(env, self="np.ones((4, 5), ml_dtypes.bfloat16)")
    assert (got["out"]["shape"], got["out"]["dtype"]) == ([4, 5], 27)


def test_dtype_names_and_objects(env):
    out = run(env, "print([probe(dtype=d)['dtype'] for d in (np.float32, 'float16', np.dtype('int64'), 'ACL_BOOL', "
                   "ml_dtypes.bfloat16, 'complex64', 'FLOAT', 'float', 'DOUBLE', 'BF16')])")
    assert out == "[0, 1, 9, 12, 27, 16, 0, 11, 11, 27]"  # 'float' is NumPy's float64, 'FLOAT' the pages' float32


@pytest.mark.parametrize("kwargs,message", [
    ("groups=2**31", "'groups': 2147483648 is out of range [-2147483648, 2147483647]"),
    ("small=128", "'small': 128 is out of range [-128, 127]"),
    ("groups=1.5", "'groups': expected an integer, got float"),
    ("dims=[1, 2.5]", "'dims': expected an integer, got float"),
    ("dims=5", "'dims': expected a sequence of integers, got int"),
    ("weights=['a']", "'weights': expected a real number, got str"),
    ("mask=[1]", "'mask'[0]: expected a bool, got int"),
    ("tensors=x", "'tensors': expected a list of arrays, got ndarray"),
    ("scalars=[x]", "'scalars'[0]: expected a scalar, got an array of 2 dimensions"),
    ("mode=3", "'mode': expected a str, got int"),
    ("dtype='float128x'", "'dtype': 'float128x' is not a dtype"),
    ("dtype=np.dtype('U3')", "'dtype': <U3 has no aclDataType"),
    ("flag=1", "'flag': expected a bool, got int"),
])
def test_unconvertible_arguments_name_the_parameter(env, kwargs, message):
    out = raises(env, f"probe({kwargs})")
    assert out.split(": ", 1)[0] in ("TypeError", "ValueError") and message in out, out


def test_none_for_pointer_kinds_reaches_the_library(env):
    got = probed(env, dims="None", weights="None", mask="None", tensors="None", scalars="None", mode="None")
    assert [got[k] for k in ("dims", "weights", "mask", "tensors", "scalars", "mode")] == [None] * 6


def test_inplace_api_writes_the_given_strided_array_and_returns_it(env):
    out = run(env, "base = np.zeros((3, 4), np.float32)\nview = base[:, 1::2]\n"
                   "r = aclnn.inplace_probe_fill(view, 2.0)\nprint(r is view, base.tolist())")
    assert out == "True [[0.0, 2.0, 0.0, 2.0], [0.0, 2.0, 0.0, 2.0], [0.0, 2.0, 0.0, 2.0]]"


def test_inplace_api_with_negative_strides_writes_back(env):
    out = run(env, "a = np.arange(4, dtype=np.float32)\nr = aclnn.inplace_probe_fill(a[::-1], 1.0)\n"
                   "print(r.base is a, a.tolist())")
    assert out == "True [1.0, 2.0, 3.0, 4.0]"


def test_read_only_inplace_argument_is_a_value_error(env):
    out = raises(env, "aclnn.inplace_probe_fill(np.broadcast_to(np.float32(1), (3,)), 1.0)")
    assert out.startswith("ValueError") and "'self_ref'" in out and "read-only" in out


def test_output_list_needs_out_and_fills_each_array(env):
    out = run(env, "a, b = np.zeros(3, np.float32), np.zeros((6,), np.float32)[::2]\n"
                   "r = aclnn.probe_split(np.array([1, 2, 3], np.float32), out=[a, b])\n"
                   "print(r[0] is a, r[1] is b, a.tolist(), b.tolist())")
    assert out == "True True [1.0, 2.0, 3.0] [2.0, 4.0, 6.0]"
    assert "pass out=" in raises(env, "aclnn.probe_split(np.ones(3, np.float32))")


@pytest.mark.parametrize("phase", [1, 2])
def test_the_gil_is_released_while_the_library_works(env, phase):
    # The fake's phase waits until this thread opens a gate; holding the GIL would starve us
    # and the call would fail with 361001 after two seconds.
    code = f"""
import threading, time
_lib.fakeGateWaiting.restype = ctypes.c_int
_lib.fakeArmGate({phase})
a = np.zeros(3, np.float32)
errors = []
def call():
    try:
        aclnn.inplace_probe_fill(a, 1.0)
    except Exception as e:
        errors.append(e)
t = threading.Thread(target=call)
t.start()
deadline = time.time() + 5
while not _lib.fakeGateWaiting() and time.time() < deadline and t.is_alive():
    time.sleep(0.001)
_lib.fakeOpenGate()
t.join()
print(errors, a.tolist())
"""
    assert run(env, code) == "[] [1.0, 1.0, 1.0]"


def test_several_outputs_are_a_tuple_and_out_takes_one_per_output(env):
    out = run(env, "s = np.array([1, 2], np.float32)\nb = np.zeros(2, np.float32)\n"
                   "r = aclnn.probe_two(s, out=(None, b))\nprint(type(r).__name__, r[0].tolist(), r[1] is b, b.tolist())")
    assert out == "tuple [1.0, 2.0] True [2.0, 4.0]"


@pytest.mark.parametrize("call,message", [
    ("aclnn.probe_two(np.ones(2, np.float32))", "output 'out2' cannot be allocated: the page does not say how the "
                                                 "shape of out2 follows from the inputs; pass out="),
    ("aclnn.probe_two(np.ones(2, np.float32), out=np.ones(2, np.float32))", "out= takes a tuple of 2 arrays"),
    ("aclnn.probe_two(np.ones(2, np.float32), out=(None,))", "out= takes a tuple of 2 arrays"),
])
def test_out_errors_of_several_outputs(env, call, message):
    out = raises(env, call)
    assert out.startswith("TypeError") and message in out, out
