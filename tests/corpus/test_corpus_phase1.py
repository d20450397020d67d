"""gen.corpus, phase-1 stage: each API runs in a worker process; a crash is blamed on the API
that was running, and the worker restarts after it. A fake generated package stands in for the
compiled one (the real build is `make corpus`'s)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gen import abi
from gen.corpus import calls, workers
from gen.ir import DEFAULT_SOC
from gen.progress import no_progress

INVALID = abi.status_code("ACLNN_ERR_PARAM_INVALID")
NOT_SIMULATED = abi.status_code("ACLNN_ERR_INNER_FIND_KERNEL_ERROR")

ACLNN = """
class AclnnError(Exception):
    def __init__(self, status, phase):
        super().__init__(f"{phase} returned {status}")
        self.status, self.phase = status, phase

# The IR records of aclnn.apis(), with the page examples' calls: one accepted, one refused by
# phase 1, one that passes phase 1 and fails in phase 2, one without a readable example.
def _record(name, python_name, example=True):
    return {"name": name, "python_name": python_name,
            "params": [{"name": "dim", "kind": "int", "direction": "in", "optional": False}],
            "example_call": {"args": [{"param": "dim", "values": [1.0]}]} if example else None}
def apis():
    return [_record("aclnnFine", "fine"), _record("aclnnRejects", "rejects"),
            _record("aclnnNotSimulated", "not_simulated"), _record("aclnnAfterCrash", "after_crash", example=False)]
def fine(dim):
    assert dim == 1
    return ()
def rejects(dim): raise AclnnError(161002, 'GetWorkspaceSize')
def not_simulated(dim): raise AclnnError(561003, 'execute')
"""

# The support module's functions the runner uses, reduced to what the fake ops need.
TESTING = f"""
import aclnn
NUMPY_DTYPES = {{}}
NOT_SIMULATED = {NOT_SIMULATED}
def active_soc(): return "{DEFAULT_SOC.value}"
def make_inputs(op, case, soc): return {{}}
def out_arrays(op, case, inputs, soc): return None
def call(op, case, inputs, outs): return op.behave()
"""

OPS = {
    "aclnnFine": "return ()",
    "aclnnRejects": f"raise aclnn.AclnnError({INVALID}, 'GetWorkspaceSize')",
    "aclnnNotSimulated": f"raise aclnn.AclnnError({NOT_SIMULATED}, 'execute')",
    "aclnnCrashes": "import os; os.abort()",
    "aclnnAfterCrash": "return ()",
    "aclnnBroken": "raise RuntimeError('the wrapper is wrong')",
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, dict]:
    generated = tmp_path_factory.mktemp("generated")
    (generated / "aclnn").mkdir()
    (generated / "aclnn" / "__init__.py").write_text(ACLNN)
    (generated / "aclnn" / "_dtypes.py").write_text("NUMPY_DTYPES = {}\n")
    tests = generated / "tests"
    tests.mkdir()
    (tests / "_aclnn_testing.py").write_text(TESTING)
    for api, body in OPS.items():
        from gen import names
        (tests / names.test_file(api)).write_text(textwrap.dedent(f"""
            import types
            import aclnn
            class OP:
                inputs = ()
                outs = ()
                golden = ""
                @staticmethod
                def behave():
                    {body}
            BASE = types.SimpleNamespace(dtypes={{}})
        """))
    return workers.run_phase1(generated, list(OPS), tmp_path_factory.mktemp("work"), jobs=1,
                             progress=no_progress)


def test_every_api_gets_an_outcome(outcomes):
    assert set(outcomes) == set(OPS)


def test_status_zero_when_phase1_passes(outcomes):
    assert outcomes["aclnnFine"]["status"] == 0
    assert outcomes["aclnnNotSimulated"]["status"] == 0  # phase 2's status: phase 1 returned 0


def test_phase2_is_recorded_and_nothing_compared_without_a_golden(outcomes):
    assert outcomes["aclnnFine"]["phase2"] == "ok"
    assert outcomes["aclnnNotSimulated"]["phase2"] == "not simulated"
    assert outcomes["aclnnRejects"]["phase2"] is None  # phase 1 refused the call
    assert all(o.get("golden_ok") is None for o in outcomes.values())  # no OP has a golden
    assert "no golden" in outcomes["aclnnFine"]["golden_reason"]


def test_phase1_status_is_reported(outcomes):
    assert outcomes["aclnnRejects"]["status"] == INVALID


def test_crash_is_blamed_on_its_api_and_the_rest_still_runs(outcomes):
    assert outcomes["aclnnCrashes"].get("crashed") and outcomes["aclnnCrashes"]["status"] is None
    assert "signal 6" in outcomes["aclnnCrashes"]["message"]
    assert outcomes["aclnnAfterCrash"]["status"] == 0


def test_python_error_is_the_apis_failure(outcomes):
    assert outcomes["aclnnBroken"]["status"] is None
    assert "RuntimeError: the wrapper is wrong" in outcomes["aclnnBroken"]["message"]


class _Param:
    def __init__(self, name, kind="tensor"):
        self.name, self.kind = name, kind


class _Op:
    """An op whose page documents FLOAT16 for x and `out_dtypes` for yOut."""

    def __init__(self, out_dtypes):
        self.inputs, self.outs = (_Param("x"), _Param("alpha", "scalar")), (_Param("yOut"),)
        self._dtypes = {"x": ("FLOAT16",), "yOut": out_dtypes}

    def documented(self, soc, name):
        return self._dtypes.get(name)


class _Case:
    dtypes = {"x": "FLOAT16", "alpha": "FLOAT"}


class _Testing:
    """The support module's table of what host arrays hold (aclnn._dtypes'), reduced."""
    import ml_dtypes
    import numpy as np

    NUMPY_DTYPES = {"FLOAT16": np.float16, "FLOAT": np.float32, "FLOAT8_E5M2": ml_dtypes.float8_e5m2}


@pytest.mark.parametrize("out_dtypes,expected", [
    (("FLOAT8_E5M2", "FLOAT4_E2M1"), True),  # a quantising op: yOut can never be x's dtype
    (("FLOAT16", "FLOAT"), False),  # the bindings' allocation in x's dtype is documented
    (("FLOAT4_E2M1",), False),  # no host array can hold any documented dtype: nothing better to pass
    (None, False),  # the page documents no dtype for yOut
])
def test_outputs_of_other_dtypes_get_out_arrays(out_dtypes, expected):
    assert calls.outputs_of_other_dtypes(_Testing, _Op(out_dtypes), _Case, "Ascend950") is expected


def test_explicit_outs_take_a_documented_float8():
    import ml_dtypes
    import numpy as np

    op = _Op(("FLOAT8_E5M2",))
    op.out_shape_from = {"yOut": ("x",)}
    (out,) = calls.explicit_outs(_Testing, op, {"x": np.zeros((2, 3), np.float16)}, "Ascend950")
    assert out.dtype == ml_dtypes.float8_e5m2 and out.shape == (2, 3)


def test_explicit_outs_tied_to_no_input_keep_to_their_documented_ranks():
    import numpy as np

    op = _Op(("FLOAT16",))
    op.out_shape_from = {}  # aclnnBatchNormBackward's gradWeight: rank 1, its shape stated by no relation
    x = np.zeros((2, 3, 4), np.float16)
    (out,) = calls.explicit_outs(_Testing, op, {"x": x}, "Ascend950", ranks={"yOut": [1, 1]})
    assert out.ndim == 1
    (out,) = calls.explicit_outs(_Testing, op, {"x": x}, "Ascend950")
    assert out.shape == x.shape  # no bounds: the first input's shape, as before


def test_an_output_whose_shape_a_reduction_decides_is_one_element_unless_none():
    import numpy as np

    # aclnnMseLoss's out: "当reduction的值为0时，out的shape与self和target broadcast后的shape一致；
    # 当reduction的值不为0时，out的shape支持0维" (two gen.ir.ShapeRule nodes).
    rules = [{"param": "yOut", "when": "reduction", "values": ["0"], "negated": False, "scalar": False,
              "others": ["x", "target"]},
             {"param": "yOut", "when": "reduction", "values": ["0"], "negated": True, "scalar": True, "others": []}]
    inputs = {"x": np.zeros((2, 3), np.float16), "target": np.zeros((1, 3), np.float16)}
    op = _Op(("FLOAT16",))
    op.out_shape_from = {"yOut": ("x",)}
    for reduction, shape in ((0, (2, 3)), (1, ()), (2, ())):
        ruled = calls.ruled_shapes(rules, {"reduction": reduction}, inputs)
        (out,) = calls.explicit_outs(_Testing, op, inputs, "Ascend950", ruled=ruled)
        assert out.shape == shape, reduction


def test_a_one_element_output_has_the_least_rank_its_page_allows():
    # aclnnDynamicQuantV4's scaleOut: "quantMode是pertensor时，shape为(1,)", of rank 1-7.
    rules = [{"param": "scaleOut", "when": "quantMode", "values": ["pertensor"], "negated": False, "scalar": True,
              "others": []}]
    assert calls.ruled_shapes(rules, {"quantMode": "pertensor"}, {}, {"scaleOut": [1, 7]}) == {"scaleOut": (1,)}
    assert calls.ruled_shapes(rules, {"quantMode": "pertensor"}, {}, {"scaleOut": [0, 8]}) == {"scaleOut": ()}
    assert calls.ruled_shapes(rules, {"quantMode": "pertoken"}, {}, {"scaleOut": [1, 7]}) == {}


def test_explicit_outs_take_an_inputs_dtype_the_output_documents_without_float():
    import ml_dtypes
    import numpy as np

    # aclnnAddRmsNormCast's y2Out: FLOAT16 or BFLOAT16, as x1 (its y1Out, FLOAT only, needs out=).
    op = _Op(("FLOAT8_E5M2", "FLOAT16"))
    op.out_shape_from = {"yOut": ("x",)}
    x = np.zeros((2, 3), np.float16)
    (out,) = calls.explicit_outs(_Testing, op, {"x": x}, "Ascend950", input_dtypes=("FLOAT16",))
    assert out.dtype == np.float16
    (out,) = calls.explicit_outs(_Testing, op, {"x": x}, "Ascend950")
    assert out.dtype == ml_dtypes.float8_e5m2  # no input of a documented dtype: the first, as before


def test_the_page_examples_arguments_are_judged_by_phase_1(outcomes):
    assert outcomes["aclnnFine"]["example_phase1"] is True
    assert outcomes["aclnnNotSimulated"]["example_phase1"] is True  # phase 2's refusal: phase 1 accepted
    assert outcomes["aclnnRejects"]["example_phase1"] is False
    assert "GetWorkspaceSize returned 161002" in outcomes["aclnnRejects"]["example_message"]
    # No verdict without an example to call, or without the API in the package.
    assert outcomes["aclnnAfterCrash"]["example_phase1"] is None
    assert outcomes["aclnnAfterCrash"]["example_message"] == "the page has no example program"  # gen.demo's reason
    assert outcomes["aclnnBroken"]["example_phase1"] is None


def test_an_example_tensor_numpy_cannot_hold_is_not_called_in_another_dtype():
    from gen import demo

    # aclnnMxToBlockMxQuant's example makes x FLOAT4_E2M1: a float32 array in its place is a call the
    # example never made, which phase 1 refuses (it was reported as the page example refused).
    arg = {"param": "x", "dtype": "FLOAT4_E2M1", "shape": [2], "values": [0.5, 1.0]}
    record = {"example_call": {"args": [arg], "null_params": []},
              "params": [{"name": "x", "direction": "in", "kind": "tensor", "optional": False}]}
    kwargs, why = demo.example_kwargs(record)
    assert kwargs is None and "FLOAT4_E2M1" in why
    # (Not called here for a dtype NumPy holds: the call imports the built package.)
    assert demo._numpy_holds("FLOAT16") and demo._numpy_holds("FLOAT8_E5M2") and demo._numpy_holds(None)
    assert not demo._numpy_holds("FLOAT4_E1M2")
