"""Issue 15's findings on the runtime, one regression test each: the crash at interpreter exit,
integer kernels that wrap (make asan runs them under UBSan too), values that now equal PyTorch's,
and the small ones (copy=False, copy/deepcopy/pickle, messages for None and huge ints, DLPack
with a negative dimension, exception causes, writing into a stride-0 view, calls after exit).
On the package built from op_docs/ (the 40 APIs with kernels), each test in a process of its own:
the test session's own package (tests/support/bindings_build.py) is another `aclnn`. The environment's
settings are tests/runtime/test_settings.py's."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.support.op_docs_process import GENERATED, PACKAGE, ROOT, built, run

pytestmark = pytest.mark.skipif(not built(), reason="make build first")


PRELUDE = """
import copy, ctypes, pickle
import numpy as np, pytest
import aclnn
def bitwise_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()
"""


def check(body: str) -> str:
    """Runs `body` (asserts included) against the op_docs package in a fresh process."""
    done = run(PRELUDE + textwrap.dedent(body))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


# --- 1: a daemon thread inside a call while the interpreter finalises ------------------------------

@pytest.mark.parametrize("work", [
    "x = np.ones(10**6, np.float32)\nf = lambda: [aclnn.abs(x) for _ in iter(int, 1)]",  # the issue's
    "x = aclnn.to_device(np.ones(10**5, np.float32))\nf = lambda: [aclnn.abs(x).numpy() for _ in iter(int, 1)]",
    "s = aclnn.Stream()\nx = aclnn.to_device(np.ones(10**6, np.float32))\n"
    "f = lambda: [(aclnn.abs(x), s.synchronize(), aclnn.synchronize()) for _ in iter(int, 1)]",
    # Views of foreign-owned memory (a framework's tensor as owner): the buffer's release of its
    # owner never takes the GIL, which a daemon thread at exit would be ended in (~DeviceBuffer).
    "x = aclnn.to_device(np.ones(10**5, np.float32))\nowner = np.ones(3)\n"
    "view = lambda: aclnn.Tensor.from_pointer(x.data_ptr(), (10**5,), 'FLOAT', owner=owner)\n"
    "f = lambda: [(aclnn.abs(view()), aclnn.abs(view(), out=view()).numpy()) for _ in iter(int, 1)]",
])
def test_a_daemon_thread_in_a_call_at_exit_does_not_abort_the_process(work):
    code = f"import threading, time, numpy as np, aclnn\n{work}\n" \
           "threading.Thread(target=f, daemon=True).start()\ntime.sleep(0.2)\n"
    for _ in range(3):
        done = run(code)
        assert done.returncode == 0, done.stderr[-2000:]


# --- 3: integer arithmetic wraps ---------------------------------------------------------------------

def test_int64_kernels_wrap_as_pytorch():
    check("""
    big = np.array([2**62, -(2**63), 2**63 - 1], np.int64)
    t = torch.tensor(big)
    assert np.array_equal(aclnn.mul(big, np.array([4, 1, 2], np.int64)), (t * torch.tensor([4, 1, 2])).numpy())
    assert np.array_equal(aclnn.add(big, np.array([2**62, -1, 1], np.int64), 1), (t + torch.tensor([2**62, -1, 1])).numpy())
    minimum = np.array([-(2**63)], np.int64)
    assert np.array_equal(aclnn.abs(minimum), torch.abs(torch.tensor(minimum)).numpy())
    assert np.array_equal(aclnn.neg(minimum), torch.neg(torch.tensor(minimum)).numpy())
    """)


# --- 4: values the ops' goldens give ---------------------------------------------------------------

def test_special_values_equal_pytorch_bit_for_bit():
    check("""
    t = torch.tensor
    x = np.array([np.nan, -0.0, 0.0, -1.0, 2.0], np.float32)
    assert bitwise_equal(aclnn.relu(x), torch.relu(t(x)).numpy())  # NaN and -0.0 pass
    assert bitwise_equal(aclnn.abs(x), torch.abs(t(x)).numpy())  # abs(-0.0) is +0.0
    for dtype in (np.float16, np.float32, np.float64):
        both = -np.array([np.nan, -np.nan, 0.0], dtype)  # -NaN, +NaN, -0.0 (negation flips the sign bit)
        assert bitwise_equal(aclnn.abs(both), torch.abs(t(both)).numpy()), dtype  # abs(-NaN) is +NaN
        assert bitwise_equal(aclnn.neg(both), torch.neg(t(both)).numpy()), dtype
        if dtype != np.float64:  # the page of relu does not list DOUBLE
            assert bitwise_equal(aclnn.relu(both), torch.relu(t(both)).numpy()), dtype
    g, s = np.array([1.0, 2.0], np.float32), np.array([np.nan, -1.0], np.float32)
    assert bitwise_equal(aclnn.threshold_backward(g, s, 0.0), torch.ops.aten.threshold_backward(t(g), t(s), 0.0).numpy())
    g, s = np.ones(3, np.float32), np.array([1e8, 1e9, -1e8], np.float32)
    assert bitwise_equal(aclnn.silu_backward(g, s), torch.ops.aten.silu_backward(t(g), t(s)).numpy())
    g, s = np.ones(2, np.float32), np.array([-100.0, -80.0], np.float32)
    ours = aclnn.softplus_backward(g, s, 1.0, 20.0)
    theirs = torch.ops.aten.softplus_backward(t(g), t(s), 1.0, 20.0).numpy()
    assert ours[0] > 0 and np.allclose(ours, theirs, rtol=1e-5, atol=0)  # no flush to 0 (3.8e-44)
    """)


def test_the_suites_compare_exact_results_bit_for_bit_and_round_the_golden_to_the_result():
    check(f"""
    import sys
    sys.path.insert(0, {str(GENERATED / "tests")!r})
    import _aclnn_testing as t
    nan = float("nan")
    with pytest.raises(AssertionError, match="bits"):  # -NaN is not NaN's bits
        t.assert_bitwise_equal(np.array([nan], np.float32), torch.tensor([-nan]), "abs")
    with pytest.raises(AssertionError, match="bits"):
        t.assert_bitwise_equal(np.array([0.0], np.float16), torch.tensor([-0.0]), "abs")
    t.assert_bitwise_equal(np.array([[1.5, -nan]], np.float16), torch.tensor([[1.5, -nan]]), "abs")
    t.assert_bitwise_equal(np.zeros((0, 3), np.int8), torch.zeros((0, 3)), "abs")
    t.assert_bitwise_equal(np.array([-0.0 + 1j], np.complex64), torch.tensor([0.0 + 1j]), "neg")  # zeros' signs
    with pytest.raises(AssertionError, match="bits"):
        t.assert_bitwise_equal(np.array([1 + 1j], np.complex64), torch.tensor([1 - 1j]), "neg")
    # An integral result of a float golden beyond its range: saturated, NaN 0 (C++ leaves it undefined).
    assert t.rounded(torch.tensor([1e10, -1e10, nan, 3.7, 127.5]), "INT8").tolist() == [127, -128, 0, 3, 127]
    assert t.rounded(torch.tensor([1e19, -1e19], dtype=torch.float64), "INT64").tolist() == [2**63 - 1, -2**63]
    # An op giving a floating result of integers computes it in float, as PyTorch (exp2(254) is inf
    # even into a DOUBLE out); others compute integers in double.
    op = t.Op(api="aclnnX", function="x", source="x.md", params=(), dtypes={{"*": {{}}}})
    assert t.compute_dtype(op, ["UINT8"]) == "DOUBLE"
    assert t.compute_dtype(t.replace(op, result_rule="floating"), ["UINT8"]) == "FLOAT"
    assert t.compute_dtype(t.replace(op, result_rule="floating"), ["DOUBLE", "INT32"]) == "DOUBLE"
    # A float golden of a FLOAT16 result: beyond 65504 it is the infinity the result holds.
    assert t.rounded(torch.tensor([65520.0, -1e6, 1.0001]), "FLOAT16").tolist() == [float("inf"), float("-inf"),
                                                                                  torch.tensor(1.0001).item()]
    """)


# --- 5: the result dtype of a true division ----------------------------------------------------------

def test_integer_division_is_true_division_as_in_pytorch():
    check("""
    a, b = np.array([1, 3, -7], np.int32), np.array([2, 2, 2], np.int32)
    ours = aclnn.div(a, b)
    theirs = torch.div(torch.tensor(a), torch.tensor(b)).numpy()
    assert ours.dtype == theirs.dtype == np.float32 and np.array_equal(ours, theirs)
    assert aclnn.div(np.array([True, False]), np.array([True, True])).dtype == np.float32
    assert aclnn.div(np.ones(2, np.float16), np.ones(2, np.float16)).dtype == np.float16  # floating: promoted
    with pytest.raises(aclnn.AclnnError) as info:  # FLOAT does not cast into selfRef (torch: "can't be cast")
        aclnn.inplace_div(np.array([4, 6], np.int32), np.array([2, 2], np.int32))
    assert info.value.status == 161002
    out = np.zeros(3, np.int32)
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.div(a, b, out=out)
    assert info.value.status == 161002
    z = np.array([3 + 4j], np.complex64)
    assert aclnn.abs(z).dtype == np.float32 and aclnn.abs(z)[0] == 5.0  # |z| is real
    """)


# --- Ctrl-C -------------------------------------------------------------------------------------------

INTERRUPTED = """
import signal, sys, time, numpy as np, aclnn
signal.signal(signal.SIGINT, signal.default_int_handler)  # a test runner's child may ignore SIGINT
n = 4000  # a product of some seconds on one simulator thread
a = np.ones((n, n), np.float32)
x = aclnn.to_device(a)

def interrupted(what, long_operation):
    print("ready", what, flush=True)  # the test sends SIGINT now
    start = time.monotonic()
    try:
        long_operation()
    except KeyboardInterrupt:
        print("interrupted", what, round(time.monotonic() - start, 2), flush=True)
    else:
        print("finished", what, flush=True)

interrupted("a call on NumPy arrays", lambda: aclnn.mm(a, a, 0))
ys = []
interrupted("aclnn.synchronize() behind a queue", lambda: (ys.append(aclnn.mm(x, x, 0)), ys.append(aclnn.mm(x, x, 0)),
                                                          aclnn.synchronize()))
interrupted("Tensor.numpy()", lambda: aclnn.mm(x, x, 0).numpy())
# The runtime goes on: the queued work ran, later calls compute.
assert ys[1].numpy()[0, 0] == n and ys[1].numpy()[-1, -1] == n
assert aclnn.abs(np.array([-1.0, 2.0], np.float32)).tolist() == [1.0, 2.0]
assert aclnn.mm(a[:3, :5], a[:5, :2], 0).tolist() == [[5.0, 5.0]] * 3
print("usable", flush=True)
"""


def test_ctrl_c_interrupts_a_long_wait_and_leaves_the_runtime_usable():
    import signal
    import time

    clean = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_")}
    clean.update(PYTHONPATH=os.pathsep.join([str(PACKAGE), str(ROOT)]), ACLNN_SIM_THREADS="1",
                 OPENBLAS_NUM_THREADS="1")
    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED], env=clean, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in child.stdout:
            lines.append(line.strip())
            if line.startswith("ready"):
                time.sleep(0.3)
                child.send_signal(signal.SIGINT)
        child.wait(timeout=300)
    finally:
        child.kill()
    report = "\n".join(lines) + child.stderr.read()[-3000:]
    assert child.returncode == 0, report
    assert [line.split()[0] for line in lines if not line.startswith("ready")] == ["interrupted"] * 3 + ["usable"], report
    # Each wait ended within a second of its SIGINT, not at the end of the work (seconds).
    assert all(float(line.split()[-1]) < 1.5 for line in lines if line.startswith("interrupted")), report


# --- found by the binding fuzzer -------------------------------------------------------------------

def test_a_kernel_out_of_host_memory_leaves_the_next_kernels_working():
    # A reduction of a petabyte stride-0 view gathers it: its kernel fails (out of host memory),
    # and its per-thread scratch buffer kept the size it could not get, so that the next
    # reduction wrote through a null pointer (segfault).
    check("""
    huge = np.broadcast_to(np.float32(1.0), (4096,) * 4)
    with pytest.raises(aclnn.AclnnRuntimeError, match="out of host memory"):
        aclnn.amax(huge, [-1, 0], True)
    x = np.arange(10, dtype=np.float32).reshape(1, 2, 5)
    low, high = aclnn.aminmax_dim(x, 1, False)
    assert low.tolist() == [[0, 1, 2, 3, 4]] and high.tolist() == [[5, 6, 7, 8, 9]]
    """)


def test_dimensions_given_as_numpy_arrays_are_read_as_integers():
    # ndarray has __index__ whatever its size: a 1-d array of dims was cast as one int (RuntimeError
    # "Unable to cast Python instance of type ndarray"), in a reduction's output shape and in the
    # shapes of Tensor.from_pointer and aclnn.empty.
    check("""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert np.array_equal(aclnn.amax(x, np.array([0, 2]), True), aclnn.amax(x, [0, 2], True))
    assert aclnn.amax(x, np.array([0, 2]), True).shape == (1, 3, 1)
    t = aclnn.to_device(x)
    view = aclnn.Tensor.from_pointer(t.data_ptr(), np.array([4, 6]), "FLOAT", owner=t)
    assert view.shape == (4, 6) and aclnn.empty((np.int64(2), np.array(3)), "FLOAT").shape == (2, 3)
    for bad in ([np.arange(2)], [2**70], [1.5], [True]):
        with pytest.raises(TypeError, match="expected integers"):
            aclnn.Tensor.from_pointer(t.data_ptr(), bad, "FLOAT", owner=t)
    """)


def test_edge_values_the_binding_fuzzer_found_equal_pytorch():
    check("""
    t = torch.tensor
    f = np.float32
    big, huge = f(3.4028235e38), f(8.5070587e37)
    # a + alpha * b and friends in one fused multiply-add, as PyTorch's kernels: no overflow of the
    # product where the sum is finite.
    assert aclnn.add(np.array([-huge], f), np.array([big], f), 1.2)[0] == torch.add(t([-huge]), t([big]), alpha=1.2)[0]
    assert np.isfinite(aclnn.sub(np.array([-big], f), np.array([-big], f), 2)[0])
    assert np.isfinite(aclnn.addcmul(np.array([big], f), np.array([0.95654273], f), np.array([-big], f), 1.2)[0])
    s, e, w = (np.array([v] * 3, ml) for v, ml in ((0.4668, f), (-3.38953e38, f), (-0.59375, f)))
    assert np.allclose(aclnn.lerp(s, e, w), torch.lerp(t(s), t(e), t(w)).numpy(), rtol=1e-6)
    # sigmoid_backward in aten's order: gradOutput * (1 - output) * output.
    g, y = np.array([3.0e38], f), np.array([-2.0], f)
    assert aclnn.sigmoid_backward(g, y)[0] == torch.ops.aten.sigmoid_backward(t(g), t(y))[0]
    # elu_backward: a NaN takes the positive branch (x <= 0 is false), as PyTorch's scalar kernel.
    assert aclnn.elu_backward(np.array([2.0], f), 1.0, 1.0, 1.0, True, np.array([np.nan], f))[0] == 2.0
    # Integer products and sums wrap in int64 as PyTorch's (the product was in double: 0).
    a, b = np.array([2, 2, 0], np.int64), np.array([2, 2**63 - 1, 2, 7], np.int64)
    assert np.array_equal(aclnn.ger(a, b), torch.outer(t(a), t(b)).numpy())
    assert aclnn.dot(np.array([2, -3, 126], np.int8), np.array([0, -2, 1], np.int8)) == torch.dot(
        t(np.array([2, -3, 126], np.int8)), t(np.array([0, -2, 1], np.int8))).item()
    # A floating result of integers is computed in float, as PyTorch's: sin(INT32 2^31 - 1) is sin(2^31).
    big = np.array([2**31 - 1, 3], np.int32)
    assert np.allclose(aclnn.sin(big), torch.sin(t(big)).numpy(), rtol=1e-6, atol=1e-6)
    # A scatter that adds rounds each element once (BFLOAT16: 2 + 0.4629 - 0.1953 is 2.2656, not 2.2812).
    import ml_dtypes
    bf = ml_dtypes.bfloat16
    base = np.full((4, 1), 2.0, bf)
    src = np.array([[0.462891], [-0.195312]], bf)
    index = np.array([[3], [3]], np.int64)
    ours = aclnn.scatter(base, 0, index, src, 1)
    theirs = torch.scatter(torch.full((4, 1), 2.0, dtype=torch.bfloat16), 0, t(index),
                           t(src.astype(f)).bfloat16(), reduce="add")
    assert ours.astype(f)[3, 0] == theirs.float()[3, 0].item() == 2.265625
    """)


# --- 7: the small ones -----------------------------------------------------------------------------

def test_a_host_view_of_device_memory_cannot_be_asked_for():
    check("""
    t = aclnn.to_device(np.arange(4, dtype=np.float32))
    with pytest.raises(ValueError, match="copy=False"):
        np.array(t, copy=False)
    assert np.array_equal(np.asarray(t), np.arange(4))
    """)


def test_tensors_copy_deepcopy_and_pickle():
    check("""
    t = aclnn.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
    shallow, deep = copy.copy(t), copy.deepcopy(t)
    assert shallow.data_ptr() == t.data_ptr() and deep.data_ptr() != t.data_ptr()
    assert np.array_equal(deep.numpy(), t.numpy()) and deep.shape == (2, 3)
    again = pickle.loads(pickle.dumps(t))
    assert np.array_equal(again.numpy(), t.numpy()) and again.dtype == np.float32
    """)


def test_arguments_without_a_dtype_are_named_for_what_they_are():
    check("""
    with pytest.raises(TypeError, match="expected an array, got None"):
        aclnn.to_device(None)
    with pytest.raises(ValueError, match="out of the range of every integer dtype"):
        aclnn.abs(2**100)
    with pytest.raises(TypeError, match="does not make an array of numbers"):
        aclnn.abs([1, None])
    """)


def test_a_dlpack_tensor_with_a_negative_dimension_is_refused():
    # torch refuses to make one, so the capsule is forged: ndim 1, shape [-20].
    check("""
    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                    ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                    ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]
    class Managed(ctypes.Structure):
        _fields_ = [("tensor", DLTensor), ("ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]
    shape = (ctypes.c_int64 * 1)(-20)
    buffer = (ctypes.c_float * 4)()
    managed = Managed(DLTensor(ctypes.addressof(buffer), 1, 0, 1, 2, 32, 1, shape, None, 0), None, None)
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype, new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    class Forged:
        def __dlpack__(self, *args, **kwargs):
            return new_capsule(ctypes.addressof(managed), b"dltensor", None)
    with pytest.raises(ValueError, match="negative dimension"):
        aclnn.abs(Forged())
    """)


def test_an_error_inside_the_objects_own_method_is_the_cause():
    check("""
    class Bad:
        def __array__(self, *args, **kwargs):
            raise KeyError("inner")
    with pytest.raises(TypeError) as caught:
        aclnn.abs(Bad())
    assert isinstance(caught.value.__cause__, KeyError) and "At:" not in str(caught.value)
    class BadDLPack:
        def __dlpack__(self, *args, **kwargs):
            raise RuntimeError("no capsule")
    with pytest.raises(TypeError) as caught:
        aclnn.abs(BadDLPack())
    assert isinstance(caught.value.__cause__, RuntimeError) and "no capsule" in str(caught.value)
    """)


def test_writing_into_a_stride_0_view_is_refused_as_pytorch_refuses_it():
    check("""
    zero = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (5,), (0,), writeable=True)
    with pytest.raises(ValueError, match="more than one element of the written-to tensor"):
        aclnn.abs(np.ones(5, np.float32), out=zero)
    with pytest.raises(ValueError, match="more than one element of the written-to tensor"):
        aclnn.inplace_relu(zero)
    base = aclnn.to_device(np.zeros(1, np.float32))
    device_zero = aclnn.Tensor.from_pointer(base.data_ptr(), (5,), np.float32, (0,), owner=base)
    with pytest.raises(ValueError, match="more than one element of the written-to tensor"):
        aclnn.inplace_relu(device_zero)
    assert np.array_equal(aclnn.abs(device_zero).numpy(), np.zeros(5, np.float32))  # reading one is fine
    empty = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (2, 0, 3), (0, 0, 0), writeable=True)
    assert aclnn.inplace_relu(empty).shape == (2, 0, 3)  # no element: nothing overlaps
    """)


def test_a_call_after_the_runtime_was_finalised_names_the_call():
    # atexit runs last-registered first: registered before `import aclnn`, `late` runs after the
    # package's own handler has finalised the runtime.
    code = """
import atexit, numpy as np
def late():
    import aclnn
    try:
        aclnn.abs(np.ones(2, np.float32))
    except aclnn.AclnnError as e:
        print(e.api, "|", e)
atexit.register(late)
import aclnn
aclnn.abs(np.ones(2, np.float32))
"""
    done = run(code)
    assert done.returncode == 0, done.stderr
    api, message = done.stdout.strip().split(" | ")
    assert api == "aclnnAbs" and "abs()" in message and "finalised" in message


# --- comparisons and the integer-safe math of aclnn_sim/math.h ---------------------------------------

def test_comparisons_give_bool_and_store_it_in_any_dtype():
    check("""
    a, b = np.array([1.0, 2.0, np.nan], np.float32), np.array([1.0, 3.0, np.nan], np.float32)
    ours = aclnn.eq_tensor(a, b)
    assert ours.dtype == np.bool_ and ours.tolist() == [True, False, False]  # NaN == NaN is false
    assert aclnn.gt_scalar(np.array([1, 5], np.int32), 2.5).tolist() == [False, True]  # promoted to float
    out = np.zeros(3, np.float16)
    assert aclnn.eq_tensor(a, b, out=out) is out and out.tolist() == [1.0, 0.0, 0.0]
    x = np.array([0.0, 3.0, 7.0], np.float32)
    aclnn.inplace_gt_scalar(x, 2.0)  # torch's x.gt_(2): 1 or 0 in x's dtype
    assert x.tolist() == [0.0, 1.0, 1.0]
    assert aclnn.is_finite(np.array([np.inf, -np.nan, 1.0], np.float32)).tolist() == [False, False, True]
    assert aclnn.is_finite(np.array([65504.0], np.float16)).tolist() == [True]
    """)


def test_integer_remainder_floor_division_and_pow_are_defined_for_every_input():
    # Under make asan (UBSan) these are the cases that trap or are undefined in plain C++.
    check("""
    lo = np.iinfo(np.int64).min
    a = np.array([7, -7, lo, lo, 5], np.int64)
    b = np.array([-2, 2, -1, 3, 0], np.int64)
    r = aclnn.remainder_tensor_tensor(a[:4], b[:4])
    assert r.tolist() == torch.remainder(torch.tensor(a[:4]), torch.tensor(b[:4])).tolist()
    q = aclnn.floor_divide(a[:4], b[:4])
    assert q.tolist() == torch.floor_divide(torch.tensor(a[:4]), torch.tensor(b[:4])).tolist()
    # A zero divisor: PyTorch raises ZeroDivisionError; the device answers 0, without a trap.
    assert aclnn.remainder_tensor_tensor(a[4:], b[4:]).tolist() == [0]
    assert aclnn.floor_divide(a[4:], b[4:]).tolist() == [0]
    p = aclnn.pow_tensor_scalar(np.array([3, -2, 2], np.int64), 63)
    assert p.tolist() == torch.pow(torch.tensor([3, -2, 2]), 63).tolist()  # wraps, as torch's
    f = np.array([5.5, -5.5, -0.0], np.float32)
    assert np.array_equal(aclnn.floor_divide(f, np.float32(2.0)), torch.floor_divide(torch.tensor(f), 2.0).numpy())
    """)


def test_an_in_place_api_whose_page_calls_its_tensor_an_input_writes_it():
    # aclnnInplacePowTensorScalar: `const aclTensor* self`, 输入, as CANN's own header has it.
    check("""
    x = np.array([1.0, 2.0, 3.0], np.float32)
    aclnn.inplace_pow_tensor_scalar(x, 2.0)
    assert x.tolist() == [1.0, 4.0, 9.0]
    """)
