"""gen.semantics.reader: the keys of a semantics file that the simulator's kernels read."""

from gen.ir import Level, ResultRule
from gen.semantics.reader import load_semantics


def _load(tmp_path, text):
    path = tmp_path / "op.toml"
    path.write_text(text, encoding="utf-8")
    return load_semantics(path)


def test_kernel_complex_is_read_and_absent_means_none(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "-self"\nkernel_complex = "std::conj(self)"\n'
                             '[aclnnB]\nkernel = "-self"\n')
    assert not loaded.diagnostics
    assert [op.kernel_complex for op in loaded.ops] == ["std::conj(self)", None]


def test_complex_result_real_is_read(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\nkernel_complex = "T(std::abs(self))"\n'
                             'complex_result = "real"\n[aclnnB]\nkernel = "self"\n')
    assert not loaded.diagnostics
    assert [op.result_rule for op in loaded.ops] == [ResultRule.REAL, ResultRule.PROMOTED]


def test_an_unknown_complex_result_is_diagnosed(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\ncomplex_result = "imaginary"\n')
    assert [d.code for d in loaded.diagnostics] == ["semantics-value"]
    assert loaded.ops[0].result_rule is ResultRule.PROMOTED


def test_integral_result_floating_is_read_and_an_unknown_one_is_diagnosed(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\nintegral_result = "floating"\n'
                             '[aclnnB]\nkernel = "self"\nintegral_result = "rational"\n')
    assert [d.code for d in loaded.diagnostics] == ["semantics-value"]
    assert [op.result_rule for op in loaded.ops] == [ResultRule.FLOATING, ResultRule.PROMOTED]


def test_result_bool_is_read_and_an_unknown_one_is_diagnosed(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\nresult = "bool"\n'
                             '[aclnnB]\nkernel = "self"\nresult = "boolean"\n')
    assert [d.code for d in loaded.diagnostics] == ["semantics-value"]
    assert [op.result_rule for op in loaded.ops] == [ResultRule.BOOL, ResultRule.PROMOTED]


def test_integral_and_complex_results_combine_and_bool_overrides_them(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\nintegral_result = "floating"\ncomplex_result = "real"\n'
                             '[aclnnB]\nkernel = "self"\nintegral_result = "floating"\nresult = "bool"\n')
    assert [op.result_rule for op in loaded.ops] == [ResultRule.FLOATING_OR_REAL, ResultRule.BOOL]
    assert [(d.level, d.code, d.line) for d in loaded.diagnostics] == [(Level.WARNING, "semantics-value", 5)]


def test_a_kernel_complex_that_is_not_a_string_is_diagnosed_and_kept_real(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "-self"\nkernel_complex = 3\n')
    assert [(d.level, d.code, d.line) for d in loaded.diagnostics] == [(Level.ERROR, "semantics-value", 1)]
    assert loaded.ops[0].kernel_complex == ""


def test_exact_is_read_and_a_value_that_is_not_a_bool_is_diagnosed(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "-self"\nexact = true\n'
                             '[aclnnB]\nkernel = "-self"\nexact = "yes"\n[aclnnC]\nkernel = "-self"\n')
    assert [d.code for d in loaded.diagnostics] == ["semantics-value"]
    assert [op.exact for op in loaded.ops] == [True, False, False]


def test_table_over_example_is_read_and_a_non_bool_is_diagnosed(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\ntable_over_example = true\n'
                             '[aclnnB]\nkernel = "self"\ntable_over_example = "yes"\n[aclnnC]\nkernel = "self"\n')
    assert [d.code for d in loaded.diagnostics] == ["semantics-value"]
    assert [op.table_over_example for op in loaded.ops] == [True, False, False]


def test_client_dtypes_are_read_with_their_evidence_and_bad_ones_are_diagnosed(tmp_path):
    from gen.ir import ClientDTypes, DType

    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\nclient_dtypes = { out = ["FLOAT", "BFLOAT16"] }\n'
                             'client_evidence = "op-plugin AKernelNpuOpApi.cpp"\n'
                             '[aclnnB]\nkernel = "self"\nclient_dtypes = { out = ["FLOAT"] }\n'
                             '[aclnnC]\nkernel = "self"\nclient_dtypes = { out = ["FLOAT99"] }\nclient_evidence = "x"\n')
    assert [d.code for d in loaded.diagnostics] == ["semantics-value", "semantics-value"]
    a, b, c = loaded.ops
    assert a.client_dtypes == (ClientDTypes("out", (DType.FLOAT, DType.BFLOAT16)),)
    assert a.client_evidence == "op-plugin AKernelNpuOpApi.cpp"
    assert b.client_dtypes == () and c.client_dtypes == ()  # no evidence; an unknown dtype


def test_client_broadcast_is_read_with_its_evidence(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\nclient_broadcast = ["self", "out"]\nclient_evidence = "op-plugin"\n'
                             '[aclnnB]\nkernel = "self"\nclient_broadcast = ["self", "out"]\n')
    a, b = loaded.ops
    assert a.client_broadcast == ("self", "out") and a.client_evidence == "op-plugin"
    assert b.client_broadcast == () and [d.code for d in loaded.diagnostics] == ["semantics-value"]


def test_law_and_its_invariant_are_read_and_an_invariant_without_law_is_diagnosed(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nfamily = "random"\nop = "randperm"\nlaw = true\ninvariant = "out.numel() == n"\n'
                             '[aclnnB]\nkernel = "self"\ninvariant = "True"\n'
                             '[aclnnC]\nkernel = "self"\nlaw = "yes"\n')
    assert [d.code for d in loaded.diagnostics] == ["semantics-value", "semantics-value"]
    assert [(op.law, op.invariant) for op in loaded.ops] == [(True, "out.numel() == n"), (False, ""), (False, "")]


def test_client_tensor_for_list_is_read_with_its_evidence(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\nclient_tensor_for_list = ["hx"]\nclient_evidence = "op-plugin"\n'
                             '[aclnnB]\nkernel = "self"\nclient_tensor_for_list = ["hx"]\n'
                             '[aclnnC]\nkernel = "self"\nclient_tensor_for_list = "hx"\nclient_evidence = "op-plugin"\n')
    a, b, c = loaded.ops
    assert a.client_tensor_for_list == ("hx",) and a.client_evidence == "op-plugin" and a.client_widens
    assert b.client_tensor_for_list == () and c.client_tensor_for_list == () and not c.client_widens
    assert [d.code for d in loaded.diagnostics] == ["semantics-value", "semantics-value"]


def test_client_empty_is_read_with_its_evidence(tmp_path):
    loaded = _load(tmp_path, '[aclnnA]\nkernel = "self"\nclient_empty = ["rstd"]\nclient_evidence = "op-plugin"\n'
                             '[aclnnB]\nkernel = "self"\nclient_empty = ["rstd"]\n'
                             '[aclnnC]\nkernel = "self"\nclient_empty = "rstd"\nclient_evidence = "op-plugin"\n')
    a, b, c = loaded.ops
    assert a.client_empty == ("rstd",) and a.client_evidence == "op-plugin" and a.client_widens
    assert b.client_empty == () and c.client_empty == () and not c.client_widens
    assert [d.code for d in loaded.diagnostics] == ["semantics-value", "semantics-value"]
