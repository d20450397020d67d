"""Small IR factories for tests (gapic's `make_field` style): a valid default for everything, and
keyword overrides for the one thing a test is about."""

from __future__ import annotations

from gen.ir import API, Direction, DType, ErrorCase, Page, PageKind, Param, ParamKind, Product, Soc

FLOATS = (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)


def make_param(name: str = "self", **kw) -> Param:
    kind = kw.pop("kind", ParamKind.TENSOR)
    direction = kw.pop("direction", Direction.IN)
    default_type = {ParamKind.TENSOR: "aclTensor*" if direction is not Direction.IN else "const aclTensor*",
                    ParamKind.SCALAR: "const aclScalar*", ParamKind.BOOL: "bool", ParamKind.INT: "int64_t",
                    ParamKind.FLOAT: "double", ParamKind.INT_ARRAY: "const aclIntArray*"}.get(kind, "void*")
    defaults = dict(c_type=default_type, kind=kind, direction=direction)
    if kind is ParamKind.TENSOR:
        defaults.update(dtypes=FLOATS, rank=(0, 8), noncontiguous=True, empty_tensor=True, formats=("ND",))
    defaults.update(kw)
    return Param(name=name, **defaults)


def make_api(name: str = "aclnnFoo", params: tuple[Param, ...] | None = None, **kw) -> API:
    if params is None:
        params = (make_param("self"), make_param("out", direction=Direction.OUT))
    return API(name=name, workspace_fn=f"{name}GetWorkspaceSize", params=params, **kw)


def make_page(*apis: API, source: str = "op_docs/foo.md", **kw) -> Page:
    defaults = dict(kind=PageKind.API_PAGE, title=apis[0].name if apis else "",
                    products=(Product("Atlas A2 训练系列产品", True, Soc.ASCEND910B, 3),))
    defaults.update(kw)
    return Page(source=source, apis=apis or (make_api(),), **defaults)


def null_error(*params: str) -> ErrorCase:
    from gen.ir import ErrorCategory

    return ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "传入的参数是空指针。", ErrorCategory.NULL_POINTER, params)
