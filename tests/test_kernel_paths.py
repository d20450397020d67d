"""One code path for every kernel (issue 26): ACLNN_SIM_ISA chooses it for the elementwise kernels
and for every family alike, aclnn.sim_stats() says which one ran, and the paths agree: bit for bit
where the operation is exact (max, elementwise math), within the op's tolerance where the order of
a sum depends on the vector width (softmax, sums). Each path runs in its own process: the path is
decided once per process."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.sim_lib import ROOT, subprocess_env

PATHS = ("baseline", "avx2", "avx512")

# Softmax and log_softmax over rows (long rows are cut into chunks) and over columns, a sum, an
# amax and an elementwise kernel, on values with NaN and infinities among them.
_SCRIPT = """
import json, sys
import numpy as np
import aclnn
rng = np.random.default_rng(7)
x = rng.standard_normal((33, 70001)).astype(np.float32) * 20
x[0, 5], x[1, 9], x[2, 3] = np.nan, np.inf, -np.inf
small = rng.standard_normal((6, 37, 5)).astype(np.float32) * 20
results = {
    "softmax_rows": aclnn.softmax(x, 1), "log_softmax_rows": aclnn.log_softmax(x, 1),
    "softmax_columns": aclnn.softmax(small, 1), "log_softmax_columns": aclnn.log_softmax(small, 1),
    "sum": aclnn.reduce_sum(x, [1], False, np.float32), "amax": aclnn.amax(x, [1], False),
    "exp": aclnn.exp(small),
}
np.savez(sys.argv[1], **{k: np.asarray(v) for k, v in results.items()})
print(json.dumps(aclnn.sim_stats()["kernel_path"]))
"""


def widest_path() -> str:
    flags = open("/proc/cpuinfo").read().split()
    if all(f in flags for f in ("avx512f", "avx512bw", "avx512vl", "avx2", "fma", "f16c")):
        return "avx512"
    return "avx2" if all(f in flags for f in ("avx2", "fma", "f16c")) else "baseline"


@pytest.fixture(scope="module")
def by_path(tmp_path_factory):
    pytest.importorskip("aclnn._C", reason="the op_docs package is not built (make build)")
    out = {}
    for path in PATHS + ("auto",):
        file = tmp_path_factory.mktemp(path) / "results.npz"
        proc = subprocess.run([sys.executable, "-c", _SCRIPT, str(file)], env=subprocess_env(ACLNN_SIM_ISA=path),
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        out[path] = (json.loads(proc.stdout.strip().splitlines()[-1]), dict(np.load(file)))
    return out


def test_each_path_asked_for_is_the_one_every_kernel_takes(by_path):
    widest = widest_path()
    order = list(PATHS)
    for path in PATHS:
        # A path the CPU lacks falls back to the widest it has, never to an illegal instruction.
        expected = path if order.index(path) <= order.index(widest) else widest
        assert by_path[path][0] == expected
    assert by_path["auto"][0] == widest


@pytest.mark.parametrize("name", ["amax", "exp"])
def test_exact_operations_agree_bit_for_bit_across_paths(by_path, name):
    reference = by_path["baseline"][1][name]
    for path in PATHS[1:]:
        assert reference.tobytes() == by_path[path][1][name].tobytes(), path


@pytest.mark.parametrize("name", ["softmax_rows", "log_softmax_rows", "softmax_columns", "log_softmax_columns", "sum"])
def test_sums_agree_within_their_tolerance_across_paths(by_path, name):
    reference = by_path["baseline"][1][name]
    # log_softmax is x - (max + log(sum)): a last-bit difference of that shift (about 80 here) is
    # an absolute one of its float32 ulp.
    atol = 2e-5 if name.startswith("log_") else 1e-6
    for path in PATHS[1:]:
        np.testing.assert_allclose(by_path[path][1][name], reference, rtol=2e-5, atol=atol, equal_nan=True,
                                   err_msg=path)
