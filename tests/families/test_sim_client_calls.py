"""Calls torch_npu's op-plugin makes beyond a page's table, admitted where the semantics file names the
evidence (issue 24), and computed with the page's values:
- aclnnRmsNormQuantV3's rstd passed empty ([0]) with outputRstd false (npu_rms_norm_quant_v2 on an x
  that does not require grad; client_empty): y computes, rstd is left as it is; with outputRstd true an
  empty rstd is still refused, by its shape, as any rstd that is not x's shape with a last dimension of 1.
- aclnnApplyAdam's beta1Power, beta2Power, lr, beta1, beta2 and epsilon as 0-d tensors (op-plugin's
  copy_scalar_to_device; client_ranks): the step equals TF's ApplyAdam on the same numbers.

The calls run in a process of their own on the package of op_docs/ (tests/support/op_docs_process.py)."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import results_of

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")

CALLS = r'''
rng = np.random.default_rng(0)
out = {}

def record(name, call):
    try:
        out[name] = {"status": 0, "values": call()}
    except aclnn.AclnnError as error:
        out[name] = {"status": error.status, "message": str(error)}

aclnn.sim_set_soc("Ascend950")  # aclnnRmsNormQuantV3's one chip
x = rng.uniform(-2, 2, (3, 16)).astype(np.float32)
gamma = rng.uniform(0.5, 2, 16).astype(np.float32)
scale = rng.uniform(0.03, 0.12, 16).astype(np.float32)
offset = rng.uniform(-4, 4, 16).astype(np.float32)
rms = np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-6).astype(np.float32)
want = np.clip(np.rint((x / rms * gamma) / scale + offset), -128, 127).astype(np.int8)

def rms_norm_quant(output_rstd, rstd_shape=(0,)):
    y, rstd = np.zeros((3, 16), np.int8), np.zeros(rstd_shape, np.float32)
    aclnn.rms_norm_quant_v3(x, gamma, scale, offset, None, 1e-6, True, output_rstd, out=(y, rstd))
    return {"y_off_by": int(np.abs(y.astype(np.int32) - want).max()), "rstd_shape": list(rstd.shape)}

record("rstd empty, outputRstd false", lambda: rms_norm_quant(False))
record("rstd empty, outputRstd true", lambda: rms_norm_quant(True))
record("rstd [3, 2], outputRstd true", lambda: rms_norm_quant(True, (3, 2)))

for soc in ("Ascend950",):  # the page's one chip
    aclnn.sim_set_soc(soc)
    var, m, g = (rng.standard_normal(12).astype(np.float32) for _ in range(3))
    v = np.abs(rng.standard_normal(12)).astype(np.float32)
    b1, b2, lr, eps, t = 0.9, 0.99, 0.01, 1e-8, 3
    m1 = m + (1 - b1) * (g - m)
    v1 = v + (1 - b2) * (g * g - v)
    step = var - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m1 / (np.sqrt(v1) + eps)
    scalars = [np.array(s, np.float32) for s in (b1 ** t, b2 ** t, lr, b1, b2, eps)]
    got = var.copy()

    def adam():
        aclnn.apply_adam(got, m.copy(), v.copy(), *scalars, g, False, False)
        return {"error": float(np.abs(got - step).max()), "scale": float(np.abs(step).max())}
    record(f"adam 0-d {soc}", adam)
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def results() -> dict:
    return results_of(CALLS)


def test_an_empty_rstd_with_output_rstd_false_computes_y(results):
    result = results["rstd empty, outputRstd false"]
    assert result["status"] == 0, result
    assert result["values"] == {"y_off_by": 0, "rstd_shape": [0]}


def test_an_empty_rstd_with_output_rstd_true_is_refused_by_its_shape(results):
    # As a rstd of any other wrong shape is (the family's KeepOutput), naming the shape it wants.
    result, misshapen = results["rstd empty, outputRstd true"], results["rstd [3, 2], outputRstd true"]
    assert result["status"] != 0 and result["status"] == misshapen["status"], (result, misshapen)
    assert "rstd: shape [0] is not x's shape with a last dimension of 1 [3, 1]" in result["message"], result


@pytest.mark.parametrize("soc", ["Ascend950"])
def test_apply_adam_with_0d_scalars_computes_the_step(results, soc):
    result = results[f"adam 0-d {soc}"]
    assert result["status"] == 0, result
    assert result["values"]["error"] <= 1e-5 * result["values"]["scale"], result
