"""What the generated suites' one valid call per API leaves out of the kernel families the corpus
added: every reduction of aclnnScatterReduce (with and without self), gather_v2's negative and
batched indices, take's refusal of negative ones (its page's), gather_nd's negative positions under both settings, and the reductions whose
empty dimension list reduces nothing (noopWithEmptyAxes), the output then allocated in the
input's shape by the bindings. Each against PyTorch, on the simulator.

The calls run in a process of their own on the package of op_docs/ (generated/, `make build`):
this process's `aclnn` is the seed package other tests build (tests/support/bindings_build.py)."""

from __future__ import annotations

import hashlib  # noqa: F401 (sort_digest, exec'd below)
import json

import numpy as np
import pytest
import torch

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

REDUCTIONS = {1: "sum", 2: "prod", 3: "amax", 4: "amin", 5: "mean"}

# Inputs, made alike here and in the calling process.
SELF = np.arange(-6, 6).reshape(4, 3)
SRC = np.array([[3, -5, 2], [0, 4, -1], [5, 5, -3], [-2, 1, 4], [2, -4, 0]])
INDEX = np.array([[0, 1, 1], [2, 2, 0], [0, 1, 3], [3, 3, 0], [0, 0, 0]])  # repeated positions
TABLE = np.arange(12, dtype=np.float32).reshape(4, 3)
BATCHED = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
CUBE = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
POSITIVE = np.random.default_rng(0).uniform(0.5, 4.0, (3, 4)).astype(np.float32)

# The sorts' lines: ties, NaNs of both signs with payloads, signed zeros and infinities in a line
# long enough for the pool's passes (1 << 16 and over), many lines of one thread's radix sort each,
# lines short enough to be compared instead, and integers wide enough for every byte to count.
SORT_INPUTS = r'''
def sort_inputs():
    rng = np.random.default_rng(3)
    ties = (np.round(rng.standard_normal(65537) * 8) / 4).astype(np.float32)
    nan_bits = np.array([0x7fc00000, 0xffc00000, 0x7f800001, 0xffc01234], np.uint32)
    ties[rng.choice(65537, 40, replace=False)] = np.tile(nan_bits.view(np.float32), 10)
    ties[rng.choice(65537, 60, replace=False)] = np.tile(np.array([0.0, -0.0, np.inf, -np.inf], np.float32), 15)
    rows = ties[:40 * 999].reshape(40, 999)
    with np.errstate(invalid="ignore"):  # the signalling NaNs' conversions
        narrow, wide = rows.astype(np.float16), rows.astype(np.float64)
    return {"float32 long": ties, "float16 rows": narrow, "float32 short": rows[:, :300].copy(), "float64 rows": wide,
            "int64 wide": rng.integers(-2 ** 62, 2 ** 62, 3000) // 7 * 7, "int32": rng.integers(-50, 50, (3, 800)).astype(np.int32)}

def sort_digest(values, indices):
    """The values' bits and the indices, hashed (the lines are long for a JSON document). FLOAT16
    passes through the family's float, whose conversion back gives a NaN as 0x7e00 with its sign
    (the payload is not kept): its NaNs count by sign alone."""
    values, indices = np.asarray(values), np.asarray(indices, np.int64)
    if values.dtype.kind == "f":
        bits = values.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[values.itemsize]).copy()
        if values.dtype == np.float16:
            bits[np.isnan(values)] &= 0x8000
        values = bits
    return hashlib.sha256(np.ascontiguousarray(values).tobytes() + np.ascontiguousarray(indices).tobytes()).hexdigest()
'''
exec(SORT_INPUTS)
SORTS = sort_inputs()  # noqa: F821 (sort_inputs and sort_digest: defined by the exec above)

CALLS = "import hashlib\n" + SORT_INPUTS + r'''
SELF, SRC, INDEX, TABLE, BATCHED, CUBE, POSITIVE = (np.array(v) for v in json.loads(sys.stdin.read()))
TABLE, BATCHED, CUBE, POSITIVE = (a.astype(np.float32) for a in (TABLE, BATCHED, CUBE, POSITIVE))
out = {}

def record(name, call):
    try:
        out[name] = np.asarray(call()).tolist()
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

for dtype in ("float32", "int32"):
    for reduce in range(6):
        for include_self in (True, False):
            record(f"scatter_reduce {dtype} {reduce} {include_self}", lambda: aclnn.scatter_reduce(
                SELF.astype(dtype), 0, INDEX.astype(np.int64), SRC.astype(dtype), reduce, include_self))
record("scatter_reduce 6", lambda: aclnn.scatter_reduce(SELF.astype(np.float32), 0, INDEX.astype(np.int64),
                                                        SRC.astype(np.float32), 6, True))
record("gather_v2 negative", lambda: aclnn.gather_v2(TABLE, 0, np.array([[-1, 0], [2, -4]], np.int64),
                                                     out=np.empty((2, 2, 3), np.float32)))
record("gather_v2 beyond", lambda: aclnn.gather_v2(TABLE, 0, np.array([[4, 0], [0, 0]], np.int64),
                                                   out=np.empty((2, 2, 3), np.float32)))
# aclnnGather's index "取值范围[-self.shape[dim], self.shape[dim] - 1]" (Param.negative_indices); index_select's
# page says nothing of negative indices.
record("gather negative", lambda: aclnn.gather(TABLE, 1, np.array([[-1, 0], [2, -3]], np.int64),
                                               out=np.empty((2, 2), np.float32)))
record("gather beyond", lambda: aclnn.gather(TABLE, 1, np.array([[-4, 0], [0, 0]], np.int64),
                                             out=np.empty((2, 2), np.float32)))
record("index_select negative", lambda: aclnn.index_select(TABLE, 1, np.array([-1], np.int64),
                                                           out=np.empty((4, 1), np.float32)))
# aclnnTake's index "不支持负索引，取值范围在0 ~ self.shape[dim]内": positions within self's elements only.
record("take", lambda: aclnn.take(TABLE, np.array([[11, 0], [5, 3]], np.int64)))
record("take negative", lambda: aclnn.take(TABLE, np.array([[-1, 0], [5, 3]], np.int64)))
record("gather_v3 batched", lambda: aclnn.gather_v3(BATCHED, 1, np.array([[3, 0, 1], [2, 2, 0]], np.int64), 1, 1,
                                                    out=np.empty((2, 3, 3), np.float32)))
for negative in (True, False):
    record(f"gather_nd {negative}", lambda: aclnn.gather_nd(CUBE, np.array([[0, -1], [-4, 2], [3, 0]], np.int64),
                                                            negative, out=np.empty((3, 2), np.float32)))
for noop in (True, False):
    record(f"mean_v2 [] {noop}", lambda: aclnn.mean_v2(POSITIVE, [], False, noop))
    record(f"reduce_log_sum [] {noop}", lambda: aclnn.reduce_log_sum(POSITIVE, [], False, noop))
    record(f"max_v2 [] {noop}", lambda: aclnn.max_v2(POSITIVE, [], False, noop))
record("reduce_log_sum [1] keep", lambda: aclnn.reduce_log_sum(POSITIVE, [1], True, True))
# The sorts (radix_sort.h), to the bit (NaN payloads, signed zeros).
for name, lines in sort_inputs().items():
    for descending in (False, True):
        if lines.dtype == np.float64:  # aclnnSort takes no DOUBLE; aclnnTopk of every element does
            values, indices = aclnn.topk(lines, lines.shape[-1], -1, descending, True,
                                         out=(np.empty_like(lines), np.empty(lines.shape, np.int64)))
        else:
            values, indices = aclnn.sort(lines, False, -1, descending)
        out[f"sort {name} {descending}"] = sort_digest(values, indices)
long_line = sort_inputs()["float32 long"]
values, indices = aclnn.topk(long_line, 9, 0, True, True, out=(np.empty(9, np.float32), np.empty(9, np.int64)))
out["topk float32 long"] = sort_digest(values, indices)
out["sort float16 columns"] = sort_digest(*aclnn.sort(sort_inputs()["float16 rows"], False, 0, True))
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS, json.dumps([a.tolist() for a in (SELF, SRC, INDEX, TABLE, BATCHED, CUBE, POSITIVE)]))


def _error(result) -> str:
    assert isinstance(result, dict), f"expected an error, got {result}"
    return result["message"]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_scatter_reduce_reduces_as_pytorch(results, reduce, include_self, dtype):
    t_self, t_src = torch.from_numpy(SELF.astype(dtype)), torch.from_numpy(SRC.astype(dtype))
    t_index = torch.from_numpy(INDEX.astype(np.int64))
    if reduce == 0:
        want = torch.scatter(t_self, 0, t_index, t_src)
    else:
        want = torch.scatter_reduce(t_self, 0, t_index, t_src, REDUCTIONS[reduce], include_self=include_self)
    np.testing.assert_array_equal(results[f"scatter_reduce {dtype} {reduce} {include_self}"], want.numpy())


def test_scatter_reduce_refuses_an_unknown_reduction(results):
    message = _error(results["scatter_reduce 6"])
    assert results["scatter_reduce 6"]["status"] == 161002 and "reduce" in message


def test_gather_v2_counts_negative_positions_from_the_end_and_faults_beyond(results):
    np.testing.assert_array_equal(results["gather_v2 negative"], TABLE[np.array([[-1, 0], [2, -4]])])
    assert "outside [-4, 4)" in _error(results["gather_v2 beyond"])


def test_gather_counts_negative_indices_from_the_end_where_its_page_says_so(results):
    index = torch.tensor([[-1, 0], [2, -3]])
    want = torch.gather(torch.from_numpy(TABLE[:2]), 1, index % TABLE.shape[1])
    np.testing.assert_array_equal(results["gather negative"], want.numpy())
    assert "element 0 is -4, outside [-3, 3)" in _error(results["gather beyond"])
    assert "outside [0, 3)" in _error(results["index_select negative"])


def test_an_index_fault_cites_the_page_line_stating_the_range_and_nothing_where_none_does(results):
    # aclnnGather's index row: "取值范围[-self.shape[dim], self.shape[dim] - 1]"; aclnnTake's: "不支持负索引".
    assert "out of range) (aclnnGather.md:127)" in _error(results["gather beyond"])
    assert "out of range) (aclnnTake.md:94)" in _error(results["take negative"])
    # aclnnIndexSelect's page states no range for its index: the fault is the kernel's, cited to no line.
    assert ".md:" not in _error(results["index_select negative"])


def test_take_faults_on_a_negative_position_as_its_page_refuses_them(results):
    np.testing.assert_array_equal(results["take"], TABLE.reshape(-1)[np.array([[11, 0], [5, 3]])])
    assert "element 0 is -1, outside [0, 12)" in _error(results["take negative"])


def test_gather_v3_gathers_each_batch_apart(results):
    index = np.array([[3, 0, 1], [2, 2, 0]])
    np.testing.assert_array_equal(results["gather_v3 batched"], np.stack([BATCHED[b][index[b]] for b in range(2)]))


def test_gather_nd_takes_negative_positions_only_where_allowed(results):
    indices = torch.tensor([[0, -1], [-4, 2], [3, 0]])
    np.testing.assert_array_equal(results["gather_nd True"], torch.from_numpy(CUBE)[tuple(indices.unbind(-1))].numpy())
    assert "outside [0, " in _error(results["gather_nd False"])


def test_an_empty_dimension_list_with_noop_reduces_nothing(results):
    for op in ("mean_v2", "reduce_log_sum", "max_v2"):  # allocated in the input's shape, the input's values
        np.testing.assert_array_equal(results[f"{op} [] True"], POSITIVE)
    # Without noop, an empty list reduces every dimension.
    np.testing.assert_allclose(results["mean_v2 [] False"], POSITIVE.mean(), rtol=1e-6)
    np.testing.assert_allclose(results["reduce_log_sum [] False"], np.log(POSITIVE.sum()), rtol=1e-6)
    np.testing.assert_allclose(results["max_v2 [] False"], POSITIVE.max())
    np.testing.assert_allclose(results["reduce_log_sum [1] keep"], np.log(POSITIVE.sum(1, keepdims=True)), rtol=1e-6)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("name", ["float32 long", "float16 rows", "float32 short", "float64 rows", "int64 wide", "int32"])
def test_sort_equals_the_stable_sort_bit_for_bit(results, name, descending):
    # Stable: ties (-0.0 and +0.0 among them) keep their order; NaN above every number, its payload kept.
    values, indices = torch.sort(torch.from_numpy(SORTS[name]), dim=-1, descending=descending, stable=True)
    assert results[f"sort {name} {descending}"] == sort_digest(values.numpy(), indices.numpy())  # noqa: F821


def test_topk_and_a_sort_along_the_first_dimension_take_the_same_order(results):
    # The semantics' golden: the head of the stable descending sort (NaNs first, ties in order).
    values, indices = (t[:9] for t in torch.sort(torch.from_numpy(SORTS["float32 long"]), descending=True, stable=True))
    assert results["topk float32 long"] == sort_digest(values.numpy(), indices.numpy())  # noqa: F821
    values, indices = torch.sort(torch.from_numpy(SORTS["float16 rows"]), dim=0, descending=True, stable=True)
    assert results["sort float16 columns"] == sort_digest(values.numpy(), indices.numpy())  # noqa: F821
