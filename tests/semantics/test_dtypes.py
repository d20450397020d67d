"""The IR's dtype rows (gen.ir.DType), which every generated dtype table is rendered from: one row
per aclDataType of runtime/include, NumPy facts that NumPy confirms, and CANN's promotion and cast
rules equal to PyTorch's for every pair of dtypes PyTorch has. The package's Python tables are
those rows (the C++ table is checked through the built libraries: tests/bindings/test_dtype_agreement.py)."""

import importlib
import importlib.util
import itertools
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import torch

from gen import abi
from gen.ir import DEFAULT_SOC, DType, DTypeCategory, ResultRule, Soc

# The torch dtype of each DType PyTorch has: NumPy's name, plus those NumPy lacks.
TORCH = {d: getattr(torch, d.numpy_name) for d in DType if d.numpy_name} | {
    DType.COMPLEX32: torch.complex32, DType.INT4: torch.int4, DType.UINT1: torch.uint1}
FROM_TORCH = {t: d for d, t in TORCH.items()}
# PyTorch's bit-width placeholders, which its can_cast calls neither integral nor floating.
SHELL_DTYPES = (DType.INT4, DType.UINT1)


def test_every_acl_data_type_has_one_row():
    declared = set(abi.enumerators("aclDataType")) - {"ACL_DT_UNDEFINED"}
    assert sorted(d.enumerator for d in DType) == sorted(declared)


def test_enumerator_lookup():
    assert DType.from_enumerator("ACL_BF16") is DType.BFLOAT16
    assert DType.from_enumerator("ACL_BFLOAT16") is None


@pytest.mark.parametrize("dtype", [d for d in DType if d.numpy], ids=lambda d: d.value)
def test_numpy_names_and_sizes_are_numpys(dtype):
    held = np.dtype(getattr(importlib.import_module(dtype.numpy_module), dtype.numpy_name))
    # A dtype packed below a byte on the device (size 0: INT4) is held one element a byte.
    assert (held.name, held.itemsize) == (dtype.numpy_name, dtype.size or 1)


def test_categories_agree_with_torch():
    for d, t in TORCH.items():
        if d in SHELL_DTYPES:
            continue
        assert d.is_floating == t.is_floating_point and d.is_complex == t.is_complex, d
        assert (d.category is DTypeCategory.SIGNED) == (t.is_signed and not t.is_floating_point
                                                         and not t.is_complex), d


def torch_promote(a, b):
    try:
        return FROM_TORCH[torch.promote_types(TORCH[a], TORCH[b])]
    except RuntimeError:
        return None


def test_promotion_is_torchs_for_every_pair():
    wrong = [(a.value, b.value, a.promote(b), torch_promote(a, b))
             for a, b in itertools.product(TORCH, repeat=2) if a.promote(b) != torch_promote(a, b)]
    assert not wrong


def test_dtypes_torch_lacks_promote_only_with_themselves():
    for a in set(DType) - set(TORCH):
        assert a.promote(a) is a
        assert [b for b in DType if b is not a and a.promote(b) is not None] == [], a


def test_promotion_is_symmetric():
    assert all(a.promote(b) == b.promote(a) for a, b in itertools.product(DType, repeat=2))


def test_castability_is_torchs_for_every_pair():
    dtypes = [d for d in TORCH if d not in SHELL_DTYPES]
    wrong = [(a.value, b.value) for a, b in itertools.product(dtypes, repeat=2)
             if a.can_cast(b) != torch.can_cast(TORCH[a], TORCH[b])]
    assert not wrong


def test_packed_and_exotic_types_cast_by_their_category():
    assert not DType.FLOAT.can_cast(DType.INT4) and DType.INT4.can_cast(DType.FLOAT4_E2M1)
    assert not DType.STRING.can_cast(DType.INT8) and DType.STRING.can_cast(DType.STRING)


# What each result rule stands for in PyTorch: true division (integral and bool inputs give the
# default dtype), a real part (a complex input gives its real dtype, as abs does), a comparison, a
# complex number of real parts (torch.complex takes FLOAT16, FLOAT and DOUBLE; others stay as they are).
TORCH_RESULT = {
    ResultRule.FLOATING: lambda t: torch.true_divide(t, t),
    ResultRule.REAL: torch.real,
    ResultRule.FLOATING_OR_REAL: lambda t: torch.real(torch.true_divide(t, t)),
    ResultRule.BOOL: lambda t: torch.eq(t, t),
    ResultRule.PROMOTED: lambda t: t,
    ResultRule.COMPLEX: lambda t: torch.complex(t, t) if t.dtype in (torch.float16, torch.float32, torch.float64) else t,
}
# The dtypes PyTorch's CPU computes these in: its promotion lattice, but for complex32.
TORCH_COMPUTES = [d for d in TORCH if d.promotes_with_others and d is not DType.COMPLEX32]


@pytest.mark.parametrize("rule", list(ResultRule), ids=lambda r: r.value)
def test_result_rules_are_torchs(rule):
    wrong = [(d.value, rule.result_dtype(d).value, str(got)) for d in TORCH_COMPUTES
             if (got := TORCH_RESULT[rule](torch.ones(2, dtype=TORCH[d])).dtype) != TORCH[rule.result_dtype(d)]]
    assert not wrong


def test_a_result_rule_reads_a_semantics_files_keys():
    assert ResultRule.of() is ResultRule.PROMOTED and ResultRule.of(integral_to_float=True) is ResultRule.FLOATING
    assert ResultRule.of(integral_to_float=True, complex_to_real=True) is ResultRule.FLOATING_OR_REAL
    assert ResultRule.of(integral_to_float=True, always_bool=True) is ResultRule.BOOL
    assert ResultRule.REAL.result_dtype(DType.COMPLEX32) is DType.FLOAT16  # which PyTorch's CPU cannot compute
    assert ResultRule.of(real_to_complex=True) is ResultRule.COMPLEX
    assert ResultRule.COMPLEX.result_dtype(DType.FLOAT) is DType.COMPLEX64


def _generated_module(name):
    """A module of the committed package (generated/aclnn/), loaded without the extension."""
    path = Path(__file__).resolve().parents[2] / "generated" / "aclnn" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"generated_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_packages_table_is_the_irs():
    dtypes = _generated_module("_dtypes")
    assert list(dtypes.DTYPES) == [d.value for d in DType]
    for d in DType:
        facts = dtypes.DTYPES[d.value]
        assert (facts.enumerator, facts.numpy, facts.size, facts.category) == \
            (d.enumerator, d.numpy_name, d.size, d.category.value)
    assert dtypes.NUMPY_DTYPES["BFLOAT16"] is ml_dtypes.bfloat16 and dtypes.NUMPY_DTYPES["BOOL"] is np.bool_
    assert set(dtypes.NUMPY_DTYPES) == {d.value for d in DType if d.numpy}


def test_the_packages_result_rules_are_the_irs():
    dtypes = _generated_module("_dtypes")
    assert list(dtypes.RESULT_DTYPES) == [r.value for r in ResultRule]
    wrong = [(r.value, d.value) for r in ResultRule for d in DType
             if dtypes.result_dtype(r.value, d.value) != r.result_dtype(d).value]
    assert not wrong


def test_the_packages_chips_are_the_irs():
    socs = _generated_module("_socs")
    assert socs.SOCS == tuple(s.value for s in Soc) and socs.DEFAULT_SOC == DEFAULT_SOC.value
