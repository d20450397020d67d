"""Hand-made IR of the three seed pages (op_docs/), faithful to what each page states.

The simulator's tests run on it so that they test the simulator, not the parser; tests/sim/test_sim_seeds.py
compares it with the parser's IR on every fact the simulator reads, so that the two cannot drift
apart unnoticed.

Each page's facts are cited by line: parameters (table rows), products, error-table rows.
"""

from __future__ import annotations

from pathlib import Path

from gen.ir import (
    API, Bound, Condition, Direction, DType, ErrorCase, ErrorCategory, OpSemantics, Page, PageKind, Param, ParamKind,
    Product, ProductDTypes, Relation, RelationKind, Soc, ValueRange,
)

ROOT = Path(__file__).resolve().parents[2]
OP_DOCS = ROOT / "op_docs"

F, F16, BF16, F64 = DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE
A3 = Product("Atlas A3 训练系列产品/Atlas A3 推理系列产品", True, Soc.ASCEND910_93, 7)
A2 = Product("Atlas A2 训练系列产品/Atlas 800I A2 推理产品/A200I A2 Box 异构组件", True, Soc.ASCEND910B, 8)


def _tensor(name: str, direction: Direction, dtypes, line: int, *, rank=(0, 8), empty=True, relations=(),
            by_product=()) -> Param:
    c_type = "const aclTensor*" if direction is Direction.IN else "aclTensor*"
    return Param(name=name, c_type=c_type, kind=ParamKind.TENSOR, direction=direction, dtypes=tuple(dtypes),
                 dtypes_by_product=tuple(by_product), formats=("ND",), rank=rank, noncontiguous=True,
                 empty_tensor=empty, relations=tuple(relations), line=line)


def _rel(kind: RelationKind, *others: str) -> Relation:
    return Relation(kind, tuple(others))


def _example(page: Path) -> tuple[str, int]:
    """The page's 调用示例 C++ (its last ```Cpp block), verbatim, and its first line."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = max(i for i, line in enumerate(lines) if line.strip().lower() == "```cpp")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "```")
    return "\n".join(lines[start + 1:end]) + "\n", start + 2


def leaky_relu_backward() -> Page:
    source = "op_docs/leaky_relu_backward.md"
    example, example_line = _example(ROOT / source)
    # BROADCAST with out: the error row of line 177 ("gradOutput、self和out的shape不相同") among
    # tensors the table lets broadcast.
    params = (
        _tensor("gradOutput", Direction.IN, (F, F16, BF16, F64), 73,
                relations=[_rel(RelationKind.PROMOTE, "self"), _rel(RelationKind.BROADCAST, "self", "out")]),
        _tensor("self", Direction.IN, (F, F16, BF16, F64), 83,
                relations=[_rel(RelationKind.PROMOTE, "gradOutput"), _rel(RelationKind.BROADCAST, "gradOutput", "out")]),
        Param("negativeSlope", "const aclScalar*", ParamKind.SCALAR, Direction.IN,
              dtypes=(F, F16, F64, DType.INT32, DType.INT64, DType.INT8, DType.BOOL, DType.INT16, DType.UINT8, BF16),
              line=93),
        Param("selfIsResult", "bool", ParamKind.BOOL, Direction.IN,
              usage="selfIsResult为true时，negativeSlope不可以是负数。", line=103),
        _tensor("out", Direction.OUT, (F, F16, BF16, F64), 113, empty=None,
                relations=[_rel(RelationKind.CAST_FROM, "gradOutput", "self"),
                           _rel(RelationKind.BROADCAST, "gradOutput", "self")]),
    )
    errors = (
        ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "传入的gradOutput、self、negativeSlope或out是空指针。",
                  ErrorCategory.NULL_POINTER, ("gradOutput", "self", "negativeSlope", "out"), 166),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput、self, negativeSlope的数据类型不在支持的范围之内。",
                  ErrorCategory.UNSUPPORTED_DTYPE, ("gradOutput", "self", "negativeSlope"), 171),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput、self或out的shape超过8维。",
                  ErrorCategory.RANK, ("gradOutput", "self", "out"), 174),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput、self和out的shape不相同。",
                  ErrorCategory.SHAPE_MISMATCH, ("gradOutput", "self", "out"), 177),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "selfIsResult为true时，negativeSlope是负数。",
                  ErrorCategory.VALUE, ("selfIsResult", "negativeSlope"), 180),
    )
    # The row of line 180 as a rule: negativeSlope not negative (nor NaN) while selfIsResult is true.
    slope = ValueRange("negativeSlope", low=Bound(0), when=Condition("selfIsResult", 1), line=180)
    api = API("aclnnLeakyReluBackward", "aclnnLeakyReluBackwardGetWorkspaceSize", params, errors,
              header="aclnnop/aclnn_leaky_relu_backward.h", example=example, line=1, example_line=example_line,
              value_ranges=(slope,))
    return Page(source=source, kind=PageKind.API_PAGE, title="aclnnLeakyReluBackward", products=(A3, A2),
                apis=(api,))


def hardsigmoid_backward() -> Page:
    source = "op_docs/hardsigmoid_backward.md"
    example, example_line = _example(ROOT / source)
    floats = (BF16, F16, F)
    params = (
        _tensor("gradOutput", Direction.IN, floats, 63, relations=[_rel(RelationKind.SAME_SHAPE, "self", "out")]),
        _tensor("self", Direction.IN, floats, 73, relations=[_rel(RelationKind.SAME_SHAPE, "gradOutput", "out")]),
        _tensor("out", Direction.OUT, floats, 83, empty=None,
                relations=[_rel(RelationKind.SAME_SHAPE, "gradOutput", "self"),
                           _rel(RelationKind.CAST_FROM, "self", "gradOutput")]),
    )
    errors = (
        ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "传入的gradOutput、self、out是空指针时。",
                  ErrorCategory.NULL_POINTER, ("gradOutput", "self", "out"), 137),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput和self的数据类型不在支持的范围之内。",
                  ErrorCategory.UNSUPPORTED_DTYPE, ("gradOutput", "self"), 142),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput、self、out的shape不同。",
                  ErrorCategory.SHAPE_MISMATCH, ("gradOutput", "self", "out"), 145),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput和self推导后的数据类型不能转换成out的数据类型。",
                  ErrorCategory.NOT_CASTABLE, ("gradOutput", "self", "out"), 148),
    )
    api = API("aclnnHardsigmoidBackward", "aclnnHardsigmoidBackwardGetWorkspaceSize", params, errors,
              header="aclnnop/aclnn_hardsigmoid_backward.h", example=example, line=1, example_line=example_line)
    return Page(source=source, kind=PageKind.API_PAGE, title="aclnnHardsigmoidBackward", products=(A3, A2),
                apis=(api,))


def selu_backward() -> Page:
    source = "op_docs/selu_backward.md"
    example, example_line = _example(ROOT / source)
    dtypes = (F, F16, DType.INT32, DType.INT8, BF16)
    # Line 137: Atlas 推理系列产品 and Atlas 训练系列产品 take FLOAT, FLOAT16, INT32, INT8 only.
    older = (F, F16, DType.INT32, DType.INT8)
    by_product = (ProductDTypes(Soc.ASCEND910, older), ProductDTypes(Soc.ASCEND310P, older))

    def tensor(name, direction, line, others, empty=True):
        return _tensor(name, direction, dtypes, line, rank=(1, 8), empty=empty, by_product=by_product,
                       relations=[_rel(RelationKind.SAME_DTYPE, *others), _rel(RelationKind.SAME_SHAPE, *others)])

    params = (
        tensor("gradOutput", Direction.IN, 86, ("result", "gradInput")),
        tensor("result", Direction.IN, 95, ("gradOutput", "gradInput"), empty=False),
        tensor("gradInput", Direction.OUT, 105, ("gradOutput", "result"), empty=None),
    )
    errors = (
        ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "传入的gradOutput、result、gradInput是空指针。",
                  ErrorCategory.NULL_POINTER, ("gradOutput", "result", "gradInput"), 161),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput、result、gradInput的数据类型和数据格式不在支持的范围之内。",
                  ErrorCategory.UNSUPPORTED_DTYPE, ("gradOutput", "result", "gradInput"), 166),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput、result、gradInput的维度关系不满足可broadcast原则。",
                  ErrorCategory.BROADCAST, ("gradOutput", "result", "gradInput"), 169),
        ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "gradOutput、result、gradInput的数据类型不满足数据类型推导规则。",
                  ErrorCategory.NOT_CASTABLE, ("gradOutput", "result", "gradInput"), 172),
    )
    products = (
        Product("Ascend 950PR/Ascend 950DT", False, Soc.ASCEND950, 9),
        Product("Atlas A3 训练系列产品/Atlas A3 推理系列产品", True, Soc.ASCEND910_93, 10),
        Product("Atlas A2 训练系列产品/Atlas A2 推理系列产品", True, Soc.ASCEND910B, 11),
        Product("Atlas 200I/500 A2 推理产品", False, Soc.ASCEND310B, 12),
        Product("Atlas 推理系列产品", True, Soc.ASCEND310P, 13),
        Product("Atlas 训练系列产品", True, Soc.ASCEND910, 14),
    )
    api = API("aclnnSeluBackward", "aclnnSeluBackwardGetWorkspaceSize", params, errors,
              header="aclnnop/aclnn_selu_backward.h", example=example, line=1, example_line=example_line)
    return Page(source=source, kind=PageKind.API_PAGE, title="aclnnSeluBackward", products=products, apis=(api,))


def parsed_seed_pages() -> tuple[Page, ...]:
    """The parser's IR of the seeds (gen.parse.parse_file)."""
    from gen.parse import parse_file

    return tuple(parse_file(OP_DOCS / name) for name in
                 ("hardsigmoid_backward.md", "leaky_relu_backward.md", "selu_backward.md"))


def seed_pages() -> tuple[Page, ...]:
    return (hardsigmoid_backward(), leaky_relu_backward(), selu_backward())


def seed_semantics() -> tuple[OpSemantics, ...]:
    from gen import pipeline

    return tuple(pipeline.semantics((), pipeline.declared_apis(seed_pages())).ops)
