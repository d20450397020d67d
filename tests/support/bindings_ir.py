"""Hand-made IR of the seed pages, as faithful as a reader of op_docs/ can make it, for the
bindings' tests to run while (or wherever) the parser cannot give it. `seed_pages()` prefers the
parser's IR as soon as it recovers the seed APIs."""

from __future__ import annotations

from pathlib import Path

from gen.ir import (API, Direction, DType, ErrorCase, ErrorCategory, Page, PageKind, Param, ParamKind, Product,
                    Relation, RelationKind, Soc)
from tests.support import sim_seed_ir

ROOT = Path(__file__).resolve().parents[2]
FLOATS = (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
PRODUCTS = (Product("Atlas A3 训练系列产品/Atlas A3 推理系列产品", True, Soc.ASCEND910_93, 7),
            Product("Atlas A2 训练系列产品/Atlas 800I A2 推理产品/A200I A2 Box 异构组件", True, Soc.ASCEND910B, 8))


def tensor(name, direction=Direction.IN, dtypes=FLOATS, relations=(), description="", usage="", line=0):
    c_type = "const aclTensor*" if direction is Direction.IN else "aclTensor*"
    return Param(name, c_type, ParamKind.TENSOR, direction, dtypes=dtypes, formats=("ND",), rank=(0, 8),
                 noncontiguous=True, empty_tensor=True, relations=relations, description=description, usage=usage,
                 line=line)


def leaky_relu_backward() -> Page:
    dtypes = FLOATS + (DType.DOUBLE,)
    r = RelationKind
    params = (
        tensor("gradOutput", dtypes=dtypes, description="表示梯度。", line=81,
               relations=(Relation(r.PROMOTE, ("self",)), Relation(r.BROADCAST, ("self", "out")))),
        tensor("self", dtypes=dtypes, description="表示特性。", line=91,
               relations=(Relation(r.PROMOTE, ("gradOutput",)), Relation(r.BROADCAST, ("gradOutput", "out")))),
        Param("negativeSlope", "const aclScalar*", ParamKind.SCALAR, Direction.IN,
              dtypes=(DType.FLOAT, DType.FLOAT16, DType.DOUBLE, DType.INT32, DType.INT64, DType.INT8, DType.BOOL,
                      DType.INT16, DType.UINT8, DType.BFLOAT16), description="表示self < 0时的斜率。", line=101),
        Param("selfIsResult", "bool", ParamKind.BOOL, Direction.IN,
              usage="selfIsResult为true时，negativeSlope不可以是负数。", line=111),
        tensor("out", Direction.OUT, dtypes=dtypes, description="表示计算输出。", line=121,
               relations=(Relation(r.CAST_FROM, ("gradOutput", "self")), Relation(r.BROADCAST, ("gradOutput", "self")))),
    )
    # The error table as the seed IR of the simulator's tests has it (one hand-made copy of it).
    errors = sim_seed_ir.leaky_relu_backward().apis[0].errors
    api = API("aclnnLeakyReluBackward", "aclnnLeakyReluBackwardGetWorkspaceSize", params=params, errors=errors,
              formula="output = gradOutput if self > 0 else gradOutput*negativeSlope", constraints="无。",
              header="aclnnop/aclnn_leaky_relu_backward.h", line=29)
    return Page("op_docs/leaky_relu_backward.md", PageKind.API_PAGE, title="aclnnLeakyReluBackward",
                description="算子功能：aclnnLeakyRelu激活函数反向。", products=PRODUCTS, apis=(api,))


def _backward(name: str, source: str, second: str, out: str) -> Page:
    params = (tensor("gradOutput", relations=(Relation(RelationKind.SAME_SHAPE, (second, out)),)),
              tensor(second, relations=(Relation(RelationKind.SAME_SHAPE, ("gradOutput", out)),)),
              tensor(out, Direction.OUT,
                     relations=(Relation(RelationKind.SAME_SHAPE, ("gradOutput", second)),
                                Relation(RelationKind.CAST_FROM, ("gradOutput", second)))))
    errors = (ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, f"传入的gradOutput、{second}、{out}是空指针时。",
                        ErrorCategory.NULL_POINTER, ("gradOutput", second, out)),
              ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, f"gradOutput和{second}的数据类型不在支持的范围之内。",
                        ErrorCategory.UNSUPPORTED_DTYPE, ("gradOutput", second)))
    api = API(name, f"{name}GetWorkspaceSize", params=params, errors=errors, line=18)
    return Page(source, PageKind.API_PAGE, title=name, products=PRODUCTS, apis=(api,))


def _complete(page: Page) -> bool:
    """Whether the parser recovered an API with typed tensors from the page."""
    return bool(page.apis) and all(p.dtypes for a in page.apis for p in a.params if p.kind is ParamKind.TENSOR)


def seed_pages() -> list[Page]:
    """Per seed page, the parser's IR when it recovers the page's API with typed tensors; the
    hand-made IR otherwise."""
    from gen.parse import parse_file

    hand = [leaky_relu_backward(),
            _backward("aclnnHardsigmoidBackward", "op_docs/hardsigmoid_backward.md", "self", "out"),
            _backward("aclnnSeluBackward", "op_docs/selu_backward.md", "result", "gradInput")]
    pages = []
    for page in hand:
        parsed = parse_file(ROOT / page.source)
        pages.append(parsed if _complete(parsed) else page)
    return pages


def probe_pages() -> list[Page]:
    """APIs with every parameter kind, which tests/support/fake_backend implements by recording what it
    received (fakeLastProbe), for the tests of the bindings' conversions. Not documented by any
    real page: on the simulator they pass phase 1 and are "not simulated"."""
    k = ParamKind
    probe = API("aclnnBindingsProbe", "aclnnBindingsProbeGetWorkspaceSize", params=(
        tensor("self"),
        Param("dims", "const aclIntArray*", k.INT_ARRAY, Direction.IN),
        Param("weights", "const aclFloatArray*", k.FLOAT_ARRAY, Direction.IN),
        Param("mask", "const aclBoolArray*", k.BOOL_ARRAY, Direction.IN),
        Param("tensors", "const aclTensorList*", k.TENSOR_LIST, Direction.IN, dtypes=FLOATS),
        Param("scalars", "const aclScalarList*", k.SCALAR_LIST, Direction.IN, dtypes=(DType.FLOAT, DType.INT64)),
        Param("mode", "const char*", k.STRING, Direction.IN),
        Param("dtype", "aclDataType", k.DTYPE, Direction.IN),
        Param("groups", "int32_t", k.INT, Direction.IN),
        Param("small", "int8_t", k.INT, Direction.IN),
        Param("eps", "double", k.FLOAT, Direction.IN, optional=True),
        Param("flag", "bool", k.BOOL, Direction.IN, optional=True),
        tensor("out", Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("self",)),
                                                Relation(RelationKind.SAME_DTYPE, ("self",)))),
    ))
    fill = API("aclnnInplaceProbeFill", "aclnnInplaceProbeFillGetWorkspaceSize", params=(
        tensor("selfRef", Direction.INOUT),
        Param("value", "const aclScalar*", k.SCALAR, Direction.IN, dtypes=(DType.FLOAT,)),
    ))
    split = API("aclnnProbeSplit", "aclnnProbeSplitGetWorkspaceSize", params=(
        tensor("self"),
        Param("out", "aclTensorList*", k.TENSOR_LIST, Direction.OUT, dtypes=FLOATS),
    ))
    two = API("aclnnProbeTwo", "aclnnProbeTwoGetWorkspaceSize", params=(
        tensor("self"),
        tensor("out1", Direction.OUT, relations=(Relation(RelationKind.SAME_SHAPE, ("self",)),
                                                 Relation(RelationKind.SAME_DTYPE, ("self",)))),
        tensor("out2", Direction.OUT),  # the page says nothing: out= required for it
    ))
    return [Page("tests/support/fake_backend/probe.md", PageKind.API_PAGE, title="probes", products=PRODUCTS,
                 apis=(probe, fill, split, two))]
