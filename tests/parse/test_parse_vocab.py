"""The closed vocabularies: dtypes and synonyms, products to chips, directions, marks, C types."""

import pytest

from gen.ir import Direction, DType, ParamKind, Soc
from gen.parse.extractors import vocab


@pytest.mark.parametrize("word,dtype", [
    ("FLOAT32", DType.FLOAT), ("FP16", DType.FLOAT16), ("BF16", DType.BFLOAT16), ("FLOAT64", DType.DOUBLE),
    ("FP32", DType.FLOAT), ("DT_BF16", DType.BFLOAT16), ("ACL_INT8", DType.INT8), ("float16", DType.FLOAT16),
    ("HIF8", DType.HIFLOAT8), ("FLOAT8_E4M3", DType.FLOAT8_E4M3FN), ("COMPLEX64", DType.COMPLEX64),
    ("uint8_t", DType.UINT8), ("int64_t", DType.INT64),  # C names, in some 数据类型 cells (aclnnApplyAdamWQuant)
])
def test_dtype_synonyms_fold(word, dtype):
    assert vocab.dtype_of(word) is dtype


def test_unknown_dtype_words_are_reported_and_formats_are_not():
    dtypes, unknown = vocab.dtypes_in("FLOAT16、QINT8、ND")
    assert dtypes == (DType.FLOAT16,) and unknown == ("QINT8",)


@pytest.mark.parametrize("name,soc", [
    ("Ascend 950PR/Ascend 950DT", Soc.ASCEND950), ("昇腾910_95 AI处理器", Soc.ASCEND950),
    ("Atlas A3 训练系列产品/Atlas A3 推理系列产品", Soc.ASCEND910_93),
    ("Atlas A2 训练系列产品/Atlas 800I A2 推理产品/A200I A2 Box 异构组件", Soc.ASCEND910B),
    ("Atlas A2训练系列产品/Atlas 800I A2推理产品", Soc.ASCEND910B),
    ("Atlas 200I/500 A2 推理产品", Soc.ASCEND310B), ("Atlas 推理系列产品", Soc.ASCEND310P),
    ("Atlas inference series products", Soc.ASCEND310P), ("Atlas 训练系列产品", Soc.ASCEND910),
    ("Atlas training series products", Soc.ASCEND910), ("Kirin X90 处理器系列产品", Soc.KIRIN_X90),
    ("Kirin 9030 处理器系列产品", Soc.KIRIN_9030),
])
def test_product_names_map_to_chips(name, soc):
    assert vocab.soc_of(name) is soc


def test_a_note_naming_several_products_maps_each():
    assert vocab.socs_in("<term>Atlas 推理系列产品</term>、<term>Atlas 训练系列产品</term>") == (
        Soc.ASCEND310P, Soc.ASCEND910)
    assert vocab.socs_in("Atlas A2 训练系列产品/Atlas A2 推理系列产品、Atlas A3 训练系列产品") == (
        Soc.ASCEND910B, Soc.ASCEND910_93)


@pytest.mark.parametrize("text,direction", [
    ("输入", Direction.IN), ("输出", Direction.OUT), ("输入输出", Direction.INOUT), ("输入/输出", Direction.INOUT),
    ("计算输入", Direction.IN), ("计算输出", Direction.OUT), ("计算输入|计算输出", Direction.INOUT),
    ("出参", Direction.OUT), ("入参", Direction.IN), ("Input", Direction.IN), ("Output", Direction.OUT),
    ("Input/Output", Direction.INOUT), ("属性", Direction.IN),
])
def test_direction_words(text, direction):
    assert vocab.direction_of(text) is direction


@pytest.mark.parametrize("mark,value", [("√", True), ("×", False), ("支持", True), ("不支持", False),
                                        ("Supported", True), ("x", False), ("?", None)])
def test_support_marks(mark, value):
    assert vocab.support_mark(mark) is value


@pytest.mark.parametrize("c_type,kind", [
    ("const aclTensor*", ParamKind.TENSOR), ("aclTensor*", ParamKind.TENSOR), ("const aclScalar*", ParamKind.SCALAR),
    ("const aclBoolArray*", ParamKind.BOOL_ARRAY), ("const aclFloatArray*", ParamKind.FLOAT_ARRAY),
    ("const aclScalarList*", ParamKind.SCALAR_LIST), ("uint64_t", ParamKind.INT), ("int", ParamKind.INT),
    ("float", ParamKind.FLOAT), ("const char*", ParamKind.STRING), ("aclTensor**", None), ("void*", None),
])
def test_kinds_from_c_types(c_type, kind):
    assert vocab.kind_of(c_type) is kind


@pytest.mark.parametrize("header,role", [
    ("维度（shape）", "rank"), ("维度(shape)", "rank"), ("非连续tensor", "noncontiguous"),
    ("非连续Tensor", "noncontiguous"), ("Dimension (Shape)", "rank"), ("Non-contiguous Tensor", "noncontiguous"),
    ("Name", "name"), ("Input/Output", "direction"), ("Usage Notes", "usage"), ("Data Type", "dtypes"),
    ("Data Format", "formats"), ("输入/输出/属性", "direction"), ("参数名", "name"), ("Precaution", "usage"),
])
def test_parameter_table_header_variants(header, role):
    assert vocab.column_role(header, vocab.PARAM_COLUMNS) == role
