"""The bindings and the simulator apply one dtype rule: for every pair of aclDataType values (each
dtype runtime/include declares, and values no dtype has), the dtype aclnn._C allocates an output
of two inputs in (`promote`, which Call::output uses) is the dtype the simulator's phase 1 promotes
them to (aclsimPromoteTypes), and both are the IR's rule, gen.ir.DType.promote, which
tests/semantics/test_dtypes.py holds to PyTorch's. The simulator's castability is the IR's too. So are the
kernels' result dtypes: for every rule (gen.ir.ResultRule) and promoted dtype, the dtype the
bindings allocate an output in is the one the simulator's phase 1 checks out= against."""

import ctypes
import itertools
from pathlib import Path

import pytest

from gen import abi
from gen.ir import DType, ResultRule
from tests.support import bindings_build

VALUES = abi.enumerators("aclDataType")
DTYPE_OF = {VALUES[d.enumerator]: d for d in DType}
# Every dtype, ACL_DT_UNDEFINED, and values between and beyond the declared ones.
CANDIDATES = sorted(set(VALUES.values()) | {5, 14, 28, 42, 63, 64, 1000})
PAIRS = list(itertools.product(CANDIDATES, repeat=2))


@pytest.fixture(scope="module")
def aclnn():
    if not bindings_build.real_simulator():
        pytest.skip("needs the real simulator (runtime/sim)")
    return bindings_build.import_aclnn()


@pytest.fixture(scope="module")
def opapi(aclnn):
    """The simulator's libopapi of the same build (the one the bindings load)."""
    return ctypes.CDLL(str(Path(aclnn.__file__).parent / "_sim" / "libopapi.so"))


def ir_promote(a: int, b: int) -> int:
    if a not in DTYPE_OF or b not in DTYPE_OF:
        return -1
    promoted = DTYPE_OF[a].promote(DTYPE_OF[b])
    return -1 if promoted is None else VALUES[promoted.enumerator]


def test_bindings_and_simulator_promote_every_pair_alike(aclnn, opapi):
    wrong = [(a, b, aclnn._C._promote_types(a, b), opapi.aclsimPromoteTypes(a, b)) for a, b in PAIRS
             if aclnn._C._promote_types(a, b) != opapi.aclsimPromoteTypes(a, b)]
    assert not wrong


def test_the_simulator_promotes_by_the_irs_rule(opapi):
    wrong = [(a, b, opapi.aclsimPromoteTypes(a, b), ir_promote(a, b)) for a, b in PAIRS
             if opapi.aclsimPromoteTypes(a, b) != ir_promote(a, b)]
    assert not wrong


def test_the_simulator_casts_by_the_irs_rule(opapi):
    def ir_cast(a, b):
        return a in DTYPE_OF and b in DTYPE_OF and DTYPE_OF[a].can_cast(DTYPE_OF[b])

    wrong = [(a, b) for a, b in PAIRS if bool(opapi.aclsimCanCast(a, b)) != ir_cast(a, b)]
    assert not wrong


def test_the_pair_that_disagreed(aclnn, opapi):
    """UINT16 with INT8: the bindings used to allocate INT32, which the simulator then refused."""
    a, b = VALUES["ACL_UINT16"], VALUES["ACL_INT8"]
    assert aclnn._C._promote_types(a, b) == opapi.aclsimPromoteTypes(a, b) == -1


def ir_result_dtype(rule: ResultRule, value: int) -> int:
    return VALUES[rule.result_dtype(DTYPE_OF[value]).enumerator] if value in DTYPE_OF else value


# The C++ enumerators of ResultRule are its members in order.
RULE_PAIRS = [(k, rule, value) for k, rule in enumerate(ResultRule) for value in CANDIDATES]


def test_bindings_and_simulator_give_every_result_dtype_alike(aclnn, opapi):
    """The dtype the bindings allocate a kernel's output in (Call::output) is the one the simulator's
    phase 1 checks out= against, for every result rule and promoted dtype."""
    wrong = [(rule.value, value, aclnn._C._result_dtype(k, value), opapi.aclsimResultDType(k, value))
             for k, rule, value in RULE_PAIRS if aclnn._C._result_dtype(k, value) != opapi.aclsimResultDType(k, value)]
    assert not wrong


def test_the_simulator_gives_result_dtypes_by_the_irs_rule(opapi):
    wrong = [(rule.value, value, opapi.aclsimResultDType(k, value), ir_result_dtype(rule, value))
             for k, rule, value in RULE_PAIRS if opapi.aclsimResultDType(k, value) != ir_result_dtype(rule, value)]
    assert not wrong
