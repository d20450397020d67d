"""Facts read from prose and free-text cells: dtype lists, ranks, formats, tensor support flags."""

import pytest

from gen.ir import DType, Soc
from gen.parse.extractors import prose


def test_dtype_list_with_a_product_qualifier():
    listed = prose.parse_dtype_list("FLOAT、FLOAT16、BFLOAT16(仅Atlas A2训练系列产品/Atlas 800I A2推理产品支持)、DOUBLE")
    assert listed.dtypes == (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE)
    assert listed.restricted == ((DType.BFLOAT16, (Soc.ASCEND910B,)),)


def test_dtype_statement_in_chinese_prose_stops_at_the_list():
    ((_, listed),) = prose.dtype_statements("Device侧的aclTensor，数据类型支持FLOAT、FLOAT16，shape与self相同。")
    assert listed.dtypes == (DType.FLOAT, DType.FLOAT16)


@pytest.mark.parametrize("text", ["The data type can be FLOAT16, FLOAT32, or BFLOAT16.",
                                  "Data types supported: FLOAT16, FLOAT32, BFLOAT16",
                                  "上游梯度，支持 FLOAT16、FLOAT32、BF16"])
def test_dtype_statement_variants(text):
    ((_, listed),) = prose.dtype_statements(text)
    assert listed.dtypes == (DType.FLOAT16, DType.FLOAT, DType.BFLOAT16)


def test_dtype_cell_with_per_product_lines():
    general, per_product = prose.dtype_cell("FLOAT、FLOAT16、BFLOAT16\nAtlas 推理系列产品：FLOAT、FLOAT16")
    assert general.dtypes == (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
    assert [(socs, p.dtypes) for socs, p in per_product] == [((Soc.ASCEND310P,), (DType.FLOAT, DType.FLOAT16))]


@pytest.mark.parametrize("cell,rank", [("0-8", (0, 8)), ("1-8", (1, 8)), ("0–8", (0, 8)), ("2", (2, 2)),
                                       ("4-5", (4, 5)), ("1~8", (1, 8)), ("≤8", (0, 8)), ("-", None),
                                       ("不高于8维", (0, 8)), ("与self一致", None), ("(m, k)", None)])
def test_rank_cells(cell, rank):
    assert prose.rank_cell(cell) == rank


@pytest.mark.parametrize("text,rank", [("shape维度不高于8维", (0, 8)), ("维度支持1-8维", (1, 8)),
                                       ("The dimension cannot exceed 8.", (0, 8)), ("shape与self一致", None),
                                       # 以上 as "beyond": 8 itself is allowed (aclnnCumsum.md:88); 及以上 is not read.
                                       ("数据维度不支持8维以上。", (0, 8)), ("数据维度不支持8维及以上。", None),
                                       ("Device侧的tensor，支持1维~8维。", (1, 8))])
def test_rank_in_prose(text, rank):
    assert prose.rank_in_prose(text) == rank


def test_formats():
    assert prose.formats_in("ND、NCHW、FRACTAL_NZ") == ("ND", "NCHW", "FRACTAL_NZ")
    assert prose.formats_in_prose("支持非连续的Tensor，数据格式支持ND、NCHW。") == ("ND", "NCHW")


@pytest.mark.parametrize("text,value", [("支持空Tensor。", True), ("不支持空Tensor。", False),
                                        ("Empty tensors are supported.", True),
                                        ("Empty tensors are not supported.", False), ("无。", None)])
def test_empty_tensor(text, value):
    assert prose.empty_tensor_in(text) is value


@pytest.mark.parametrize("text,value", [("支持非连续的Tensor", True), ("不支持非连续的Tensor", False),
                                        ("Non-contiguous tensors are supported.", True), ("", None)])
def test_noncontiguous(text, value):
    assert prose.noncontiguous_in(text) is value


@pytest.mark.parametrize("text,value", [
    ("index中的具体数值代表self对应dim轴上的下标，取值范围[-self.shape[dim], self.shape[dim] - 1]，index中的索引不支持越界。", True),
    ("其中的元素值小于x对应dim的维度大小，支持负数索引。", True),
    ("不支持负索引，取值范围在0 ~ self.shape[dim]内。", False),
    ("仅支持非负索引。indices中的索引数据不支持越界。", False),
    ("Only non-negative indices are supported.", False),
    ("取值范围[0, self.shape[dim])。", None),
])
def test_negative_indices(text, value):
    assert prose.negative_indices_in(text) is value


def test_product_note_removing_a_dtype():
    (note,) = prose.note_statements((Soc.ASCEND910,), "不支持BFLOAT16数据类型。", 1, ["self"])
    assert (note.op, note.dtypes, note.params) == (prose.REMOVE, (DType.BFLOAT16,), ())


def test_product_note_adding_dtypes_to_a_named_param():
    (note,) = prose.note_statements((Soc.ASCEND910_93,), "out数据类型额外支持COMPLEX64、BFLOAT16。", 1, ["self", "out"])
    assert (note.op, note.dtypes, note.params) == (prose.ADD, (DType.COMPLEX64, DType.BFLOAT16), ("out",))


def test_product_note_with_two_lists_gives_each_the_names_before_it():
    # aclnnRmsNormQuant's A2/A3 note: x had been read as INT8 only, refusing FLOAT16 on Ascend910B.
    text = "入参`x`、`gamma`的数据类型仅支持FLOAT16，BFLOAT16，`offset`仅支持INT8。"
    first, second = prose.note_statements((Soc.ASCEND910B,), text, 1, ["x", "gamma", "offset", "y"])
    assert (first.dtypes, first.params) == ((DType.FLOAT16, DType.BFLOAT16), ("x", "gamma"))
    assert (second.dtypes, second.params) == ((DType.INT8,), ("offset",))


def test_product_note_relating_its_list_to_another_param_is_not_about_that_param():
    # aclnnBitwiseAndScalar's self: "...BOOL，且数据类型需要与other满足数据类型推导规则": a note of self's row.
    (note,) = prose.note_statements((Soc.ASCEND910,), "数据类型支持INT8、BOOL，且数据类型需要与other满足数据类型推导规则。",
                                    1, ["self", "other"])
    assert (note.dtypes, note.params) == ((DType.INT8, DType.BOOL), ())


def test_product_note_naming_its_subject_after_the_list_keeps_it():
    (note,) = prose.note_statements((Soc.ASCEND910,), "支持FLOAT16、FLOAT，仅out生效。", 1, ["self", "out"])
    assert note.params == ("out",)


def test_product_note_that_is_a_bare_list():
    (note,) = prose.note_statements((Soc.ASCEND310P,), "FLOAT, FLOAT16, or INT32.", 1, [])
    assert (note.op, note.dtypes) == (prose.SET, (DType.FLOAT, DType.FLOAT16, DType.INT32))


@pytest.mark.parametrize("text", ["当self数据类型为BFLOAT16时，不支持排序轴为1。",
                                  "If the data type of y is INT4, the last axis must be even."])
def test_a_dtype_list_inside_a_condition_is_not_a_statement(text):
    assert prose.dtype_statements(text) == []


@pytest.mark.parametrize("text", [
    "参数`x`、`scale`、`offset`的数据格式为NZ时，数据类型仅支持FLOAT32。",
    "当数据格式为NZ时，出参`y`的数据类型支持INT32。",
    "When the data format of `x`, `scale`, and `offset` is NZ, the data type can only be FLOAT32.",
])
def test_product_note_about_nz_tensors_states_nothing_of_nd_ones(text):
    # aclnnAscendQuant's notes for Atlas A2: the ND tensors the bindings pass keep the table's dtypes.
    assert prose.note_statements((Soc.ASCEND910B,), text, 1, ["x", "scale", "offset", "y"]) == []


@pytest.mark.parametrize("text", [
    "当`x1`的数据类型为INT32时，数据类型支持INT32、INT64。",
    "当`x`的数据类型为FLOAT16时，数据类型支持FLOAT16、FLOAT32。",
    "When the data type of `x` is FLOAT16, the data type can be FLOAT16 or FLOAT32.",
])
def test_product_note_on_a_dtype_condition_states_nothing_of_the_condition_or_the_subject(text):
    # aclnnForeachAddListV2's Ascend 950 notes, under a bullet about `scalar`: x1 was read as taking
    # INT32 and INT64 alone on that chip; the subject takes them only in that case.
    assert prose.note_statements((Soc.ASCEND950,), text, 1, ["x1", "x", "alpha"]) == []


def test_product_note_without_a_condition_still_counts_beside_conditional_ones():
    (note,) = prose.note_statements((Soc.ASCEND950,), "参数`x`、`out`支持包含的最大Tensor个数均为50，且不支持INT16、INT8、UINT8。",
                                    1, ["x", "out", "scalar"])
    assert (note.op, note.dtypes) == (prose.REMOVE, (DType.INT16, DType.INT8, DType.UINT8))


def test_product_note_beside_an_nz_sentence_still_counts():
    (note,) = prose.note_statements((Soc.ASCEND310P,), "出参`y`数据类型仅支持INT8，数据格式不支持NZ。", 1, ["x", "y"])
    assert (note.op, note.dtypes, note.params) == (prose.SET, (DType.INT8,), ("y",))


@pytest.mark.parametrize("text, scenario", [
    ("K-C[量化模式](../../../docs/zh/context/quant_mode_introduction.md)，K仅支持512。", "K-C量化模式"),
    ("MX全量化场景下，x1支持FLOAT8_E4M3FN。", "MX全量化场景"),
    ("quantMode取值为2时，表示pertoken动态量化场景。", "quantMode取值为2时"),
    ("In per-token mode, x supports INT8.", "In per-token mode"),
    ("当x的数据类型为INT8时，y支持INT32。", ""),
    ("x1支持FLOAT16。", ""),
])
def test_a_note_opening_with_a_mode_or_a_scene_is_scoped_to_it(text, scenario):
    assert prose.scenario_of(text) == scenario


def test_a_list_in_its_own_clause_is_about_the_names_of_that_clause():
    # aclnnTransposeQuantBatchMatMul's T-C bullet: HIFLOAT8 had been read as x2Scale's too.
    text = "x2Scale需经过[trans_quant_param](../a.md)预处理转换为UINT64/INT64类型，x1/x2仅支持HIFLOAT8类型。"
    first, second = prose.note_statements((Soc.ASCEND950,), text, 1, ["x1", "x2", "x1Scale", "x2Scale"])
    assert (first.dtypes, first.params) == ((DType.UINT64, DType.INT64), ("x2Scale",))
    assert (second.dtypes, second.params) == ((DType.HIFLOAT8,), ("x1", "x2"))


def test_a_comma_between_names_does_not_break_the_clause_and_an_opening_refusal_refuses():
    # aclnnMatmulWeightNz's Ascend950 note: FLOAT32 had been read as self's only dtype on that chip.
    (note,) = prose.note_statements((Soc.ASCEND950,), "不支持 self，mat2 数据类型为 FLOAT32", 1, ["self", "mat2", "out"])
    assert (note.op, note.dtypes, note.params) == (prose.REMOVE, (DType.FLOAT,), ("self", "mat2"))


def test_castable_to_is_no_list_of_the_tensor():
    assert prose.dtype_statements("数据类型需要是可转换为FLOAT的数据类型") == []
