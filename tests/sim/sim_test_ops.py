"""Test-only APIs for the simulator: small IR that exercises what the three seed pages do not
(exact integer kernels, in-place outputs, every parameter kind, private formats, castability,
several outputs, an API without a kernel). They are generated and built next to the seeds."""

from __future__ import annotations

from gen.ir import (
    API, Bound, CombinationCell, Condition, DimBytes, ErrorCase, ErrorCategory, DimEquality, Direction, Divisibility, DType, DTypeCombination, DTypeCondition, Extent, IntegerMath,
    OpSemantics, Page, PageKind, Param, ParamKind, Product, Relation, RelationKind, Reserved, ResultRule, ShapeForm,
    ShapeRule, Soc, ValueCheck, ValueRange, ValueSet,
)

SOURCE = "tests/sim/sim_test_ops.md"
F, F16, BF16, F64 = DType.FLOAT, DType.FLOAT16, DType.BFLOAT16, DType.DOUBLE
INTS = (DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.UINT8, DType.BOOL)


def tensor(name: str, direction: Direction = Direction.IN, dtypes=(F, F16, BF16, F64), *, relations=(),
           formats=("ND",), rank=(0, 8), empty=True, optional=False) -> Param:
    c_type = "const aclTensor*" if direction is Direction.IN else "aclTensor*"
    return Param(name=name, c_type=c_type, kind=ParamKind.TENSOR, direction=direction, dtypes=tuple(dtypes),
                 formats=tuple(formats), rank=rank, empty_tensor=empty, relations=tuple(relations),
                 optional=optional)


def value(name: str, kind: ParamKind, c_type: str, **kw) -> Param:
    return Param(name=name, c_type=c_type, kind=kind, direction=Direction.IN, **kw)


def rel(kind: RelationKind, *others: str) -> Relation:
    return Relation(kind, others)


def _api(name: str, *params: Param, errors: tuple[ErrorCase, ...] = (), inner_null_outputs: tuple[str, ...] = ()) -> API:
    # The format fact the parser records from the rows (gen.conventions.error_rows_name_formats).
    return API(name=name, workspace_fn=f"{name}GetWorkspaceSize", params=params, errors=errors,
               inner_null_outputs=inner_null_outputs,
               error_rows_name_formats=any(e.category is ErrorCategory.FORMAT for e in errors))


def apis() -> tuple[API, ...]:
    everything = (F, F16, BF16, F64, *INTS, DType.UINT16, DType.COMPLEX64, DType.COMPLEX128)
    return (
        # out = self + other * alpha, broadcasting, integers computed exactly.
        _api("aclnnSimTestAdd",
             tensor("self", dtypes=everything, relations=[rel(RelationKind.BROADCAST, "other"),
                                                          rel(RelationKind.PROMOTE, "other")]),
             tensor("other", dtypes=everything),
             value("alpha", ParamKind.SCALAR, "const aclScalar*"),
             tensor("out", Direction.OUT, dtypes=everything,
                    relations=[rel(RelationKind.BROADCAST, "self", "other"), rel(RelationKind.CAST_FROM, "self", "other")])),
        # selfRef = selfRef * factor + bias, in place.
        _api("aclnnSimTestInplaceScale",
             tensor("selfRef", Direction.INOUT),
             value("factor", ParamKind.FLOAT, "double"),
             value("bias", ParamKind.INT, "int64_t")),
        # Every parameter kind, optional ones, and value checks over them; no kernel.
        _api("aclnnSimTestKinds",
             tensor("self"),
             value("dims", ParamKind.INT_ARRAY, "const aclIntArray*"),
             value("weights", ParamKind.FLOAT_ARRAY, "const aclFloatArray*", optional=True),
             value("mask", ParamKind.BOOL_ARRAY, "const aclBoolArray*", optional=True),
             Param("tensors", "const aclTensorList*", ParamKind.TENSOR_LIST, Direction.IN, dtypes=(F,), rank=(1, 2)),
             Param("scalars", "const aclScalarList*", ParamKind.SCALAR_LIST, Direction.IN, optional=True,
                   dtypes=(F, DType.INT64)),
             value("mode", ParamKind.STRING, "const char*", optional=True),
             Param("dtype", "aclDataType", ParamKind.DTYPE, Direction.IN, dtypes=(F, F16)),
             value("count", ParamKind.INT, "uint64_t"),
             value("eps", ParamKind.FLOAT, "float"),
             tensor("out", Direction.OUT)),
        # A page that lists private formats only, and a rank-1..2 output that must not be empty; its
        # error table has a format row, so other's "ND" is checked too (gen.conventions.formats_checked).
        _api("aclnnSimTestFormats",
             tensor("self", formats=("NC1HWC0", "FRACTAL_NZ")),
             tensor("other", formats=("ND",)),
             tensor("out", Direction.OUT, formats=(), rank=(1, 2), empty=False),
             errors=(ErrorCase("ACLNN_ERR_PARAM_INVALID", 161002, "self或other的数据格式不在支持的范围内。",
                               ErrorCategory.FORMAT, ("self", "other")),)),
        # Its null-pointer row names self alone (aclnnMin): a NULL out fails last, as an inner error
        # (the parser records out so: gen.conventions.inner_null_outputs).
        _api("aclnnSimTestInnerNull",
             tensor("self"),
             tensor("out", Direction.OUT),
             errors=(ErrorCase("ACLNN_ERR_PARAM_NULLPTR", 161001, "传入的self是空指针。", ErrorCategory.NULL_POINTER,
                               ("self",)),), inner_null_outputs=("out",)),
        # The output lists INT8, so castability (not the dtype list) decides.
        _api("aclnnSimTestCast",
             tensor("self"),
             tensor("out", Direction.OUT, dtypes=(F, F16, DType.INT8, DType.BOOL),
                    relations=[rel(RelationKind.CAST_FROM, "self")])),
        # Two tensor outputs: the elementwise engine writes one, so this is not simulated.
        _api("aclnnSimTestTwoOutputs",
             tensor("self"),
             tensor("out1", Direction.OUT),
             tensor("out2", Direction.OUT)),
        # No semantics file at all.
        _api("aclnnSimTestNoKernel",
             tensor("self"),
             tensor("out", Direction.OUT)),
        # The output's notes relate it to gradOutput only, gradOutput's to self (aclnnMishBackward):
        # the output has the broadcast of both.
        _api("aclnnSimTestChainedBroadcast",
             tensor("gradOutput", relations=[rel(RelationKind.BROADCAST, "self")]),
             tensor("self"),
             tensor("gradInput", Direction.OUT, relations=[rel(RelationKind.BROADCAST, "gradOutput")])),
        # |self| (aclnnAbs): a complex self gives a real out of its precision.
        _api("aclnnSimTestAbs",
             tensor("self", dtypes=(F, F64, DType.COMPLEX64, DType.COMPLEX128)),
             tensor("out", Direction.OUT, dtypes=(F, F64))),
        # Same dtype rule; no kernel inputs but a scalar (a fill).
        _api("aclnnSimTestFill",
             tensor("out", Direction.OUT, dtypes=(F, F16, BF16, F64, *INTS)),
             value("fillValue", ParamKind.SCALAR, "const aclScalar*")),
        rules_api(),
        shape_status_api(),
    )


def shape_status_api() -> API:
    """Shapes that must agree, answered with the page's shape row's status (API.shape_status), and a
    window whose elements are bounded by the dimensions of self they stand for, from dimension -2 on
    (Extent.DIMENSION: "kernel在对应的HW维度上小于等于self的大小"), a one-element window by each."""
    params = (
        tensor("self", relations=[rel(RelationKind.SAME_SHAPE, "other")]),
        tensor("other"),
        value("kernel", ParamKind.INT_ARRAY, "const aclIntArray*"),
        tensor("out", Direction.OUT, relations=[rel(RelationKind.SAME_SHAPE, "self")]),
    )
    return API(
        name="aclnnSimTestShapeStatus", workspace_fn="aclnnSimTestShapeStatusGetWorkspaceSize", params=params,
        errors=(ErrorCase("ACLNN_ERR_INNER_TILING_ERROR", 561002, "self和other的shape不一致。",
                          ErrorCategory.SHAPE_MISMATCH, ("self", "other"), line=41),),
        value_ranges=(ValueRange("kernel", high=Bound(0, Extent.DIMENSION, 1, "self", "-2"), line=40),),
    )


def rules_api() -> API:
    """What a page states across parameters, one rule of each kind (gen.ir), each on its own page
    line: a loss-like output whose shape `reduction` decides, a dim in [-rank, rank), a weight whose
    first dimension is self's last, an even last dimension, formats that must agree, a reserved
    parameter, a host scalar whose dtype no error row names, and a dtype-combination table with a
    row for one chip only."""
    params = (
        tensor("self", dtypes=(F, F16, BF16)),
        tensor("weight", dtypes=(F, F16, BF16), formats=("ND", "NCHW", "NC1HWC0"), relations=[rel(RelationKind.SAME_FORMAT, "self")]),
        Param("biasOptional", "const aclTensor*", ParamKind.TENSOR, Direction.IN, optional=True, reserved=Reserved.NULL),
        value("alpha", ParamKind.SCALAR, "const aclScalar*", dtypes=(F,)),
        value("dim", ParamKind.INT, "int64_t"),
        value("reduction", ParamKind.INT, "int64_t"),
        tensor("out", Direction.OUT, dtypes=(F, F16, BF16)),
    )
    return API(
        name="aclnnSimTestRules", workspace_fn="aclnnSimTestRulesGetWorkspaceSize", params=params,
        dtype_combinations=(
            DTypeCombination((CombinationCell("self", (F,)), CombinationCell("weight", (F,)),
                              CombinationCell("out", (F,))), line=20),
            DTypeCombination((CombinationCell("self", (F16,)), CombinationCell("weight", same_as="self"),
                              CombinationCell("out", (F,))), products=(Soc.ASCEND910B,), line=21),
        ),
        value_ranges=(ValueRange("dim", Bound(0, Extent.RANK, -1, "self"),
                                 Bound(0, Extent.RANK, 1, "self", inclusive=False), line=22),
                      ValueRange("alpha", high=Bound(10, Extent.VALUE, 1, "dim"), line=26),
                      # A range of one chip, one under another argument's value, one the error table
                      # answers with its own status.
                      ValueRange("dim", low=Bound(0), products=(Soc.ASCEND910_93,), line=28),
                      ValueRange("dim", high=Bound(0), when=Condition("reduction", 5), line=29),
                      ValueRange("alpha", low=Bound(-100), status=561002, line=30)),
        value_sets=(ValueSet("reduction", (0, 1, 2, 5), line=27),),
        dim_equalities=(DimEquality("weight", 0, "self", -1, line=23),),
        divisibility=(Divisibility("self", "2", -1, line=24),
                      # "当self的数据类型为FLOAT16时，self的第0维必须是3的倍数", answered as its error row says.
                      Divisibility("self", "3", 0, line=31, status=561002,
                                   when_dtype=DTypeCondition(("self",), (F16,)))),
        shape_rules=(ShapeRule("out", "reduction", ("0",), ShapeForm.SAME, ("self",), line=25),
                     ShapeRule("out", "reduction", ("0",), ShapeForm.SCALAR, negated=True, line=25),
                     # "reduction为5时，weight的shape支持2维".
                     ShapeRule("weight", "reduction", ("5",), ShapeForm.RANK, ranks=(2, 2), line=35)),
        # "Atlas A3 训练系列产品：self的尾轴长度必须大于等于16 Bytes".
        # and "Atlas A3 训练系列产品：不支持入参weight的最后一个维度非8Byte对齐的场景".
        # and "Atlas A3 训练系列产品：self的norm轴长度，以及out的长度必须大于等于40 Bytes" (every element of out).
        dim_bytes=(DimBytes("self", -1, 16, line=32, products=(Soc.ASCEND910_93,)),
                   DimBytes("weight", -1, line=33, products=(Soc.ASCEND910_93,), multiple=8),
                   DimBytes("out", None, 40, line=34, products=(Soc.ASCEND910_93,))),
    )


def page() -> Page:
    products = (
        Product("Atlas A2 训练系列产品", True, Soc.ASCEND910B, 3),
        Product("Atlas A3 训练系列产品", True, Soc.ASCEND910_93, 4),
        Product("Atlas 推理系列产品", False, Soc.ASCEND310P, 5),
    )
    return Page(source=SOURCE, kind=PageKind.API_PAGE, title="simulator test ops", products=products, apis=apis())


def semantics() -> tuple[OpSemantics, ...]:
    return (
        OpSemantics(api="aclnnSimTestAdd", source="tests/sim/sim_test_ops.toml", kernel="self + other * alpha",
                    integer_math=IntegerMath.EXACT),
        OpSemantics(api="aclnnSimTestInplaceScale", source="tests/sim/sim_test_ops.toml",
                    kernel="selfRef * T(factor) + T(bias)"),
        OpSemantics(api="aclnnSimTestKinds", source="tests/sim/sim_test_ops.toml", checks=(
            ValueCheck(when="dims.size() != self.dim()", message="dims must have one entry per dimension of self",
                       line=3),
            ValueCheck(when="weights.present && weights.size() > 0 && weights[0] < 0",
                       message="weights must not start negative", line=4),
            ValueCheck(when="mask.present && mask.size() > 0 && !mask[0]", message="mask[0] must be true", line=5),
            ValueCheck(when="tensors.size() > 0 && tensors[0].numel() > 100", message="tensors[0] is too large",
                       line=6),
            ValueCheck(when="scalars.present && scalars.size() > 0 && scalars[0] > 10.0",
                       message="scalars[0] must be at most 10", line=7),
            ValueCheck(when="mode[0] == 'x'", message="mode must not start with x", line=8),
            ValueCheck(when="count > 1000", message="count must be at most 1000", status=161001, line=9),
            ValueCheck(when="eps <= 0", message="eps must be positive", line=10),
        )),
        OpSemantics(api="aclnnSimTestFormats", source="tests/sim/sim_test_ops.toml", kernel="self + other"),
        OpSemantics(api="aclnnSimTestShapeStatus", source="tests/sim/sim_test_ops.toml", kernel="self + other"),
        OpSemantics(api="aclnnSimTestCast", source="tests/sim/sim_test_ops.toml", kernel="self * 2"),
        OpSemantics(api="aclnnSimTestTwoOutputs", source="tests/sim/sim_test_ops.toml", kernel="self"),
        OpSemantics(api="aclnnSimTestChainedBroadcast", source="tests/sim/sim_test_ops.toml",
                    kernel="gradOutput * self"),
        OpSemantics(api="aclnnSimTestAbs", source="tests/sim/sim_test_ops.toml", kernel="self < T(0) ? -self : self",
                    kernel_complex="T(std::abs(self))", result_rule=ResultRule.REAL),
        OpSemantics(api="aclnnSimTestFill", source="tests/sim/sim_test_ops.toml", kernel="fillValue",
                    integer_math=IntegerMath.EXACT),
    )
