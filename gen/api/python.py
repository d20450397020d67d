"""The Python function of every bound API, decided once from its IR (torchgen's api/python.py).

`python_signature` gives the one signature object that the bindings register (argument names,
defaults, keyword-only out=), the stubs annotate, the tests call and the docstrings describe,
each parameter with its type and whether it takes None.
Beside it, what a call decides per argument at generation time: which dtype a Python number
becomes for an aclScalar (`scalar_preference`), and how an output is allocated when out= does not
give it (`output_plan`). The emitters read these; none decides them again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterable, Mapping, Optional

from gen import families, names
from gen.api.kinds import KINDS, value_type
from gen.ir import DEFAULT_SOC, API, Direction, DType, OpSemantics, Param, ParamKind, RelationKind, ResultRule

if TYPE_CHECKING:  # the model holds what this module decides (BoundAPI.python_signature, output_plans)
    from gen.model import BoundAPI

# ---- the signature ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PythonParam:
    """One parameter of the generated Python function, typed once: the stubs annotate it, the
    docstrings describe it and the tests call it from these fields, none from the IR again."""

    name: str  # python identifier (grad_output)
    param: Optional[Param]  # None for out=
    default: Optional[str]  # Python source of the default ("None"), or None when required
    keyword_only: bool = False
    # Whether None is accepted: by an optional parameter (NULL for a pointer kind), and by out=
    # (the outputs are allocated).
    nullable: bool = False
    # Its annotation without `| None`: a host value's (KINDS' stub_type, "Any" for a kind without
    # one); "" for device data and out=, whose types depend on the stubs' overload.
    type: str = ""
    # How it is passed from Python, in words, without "or None" ("array_like or aclnn.Tensor").
    words: str = ""

    def annotated(self, annotation: str) -> str:
        """`annotation` (the parameter's type, or the overload's for device data) with `| None`
        where None is accepted."""
        return f"{annotation} | None" if self.nullable else annotation

    @property
    def described(self) -> str:
        """The docstrings' words for its type, "or None" where None is accepted."""
        return f"{self.words} or None" if self.nullable else self.words


def python_param(param: Param, default: Optional[str] = None) -> PythonParam:
    """The Python parameter of one of the API's parameters (an input, or an output it returns)."""
    kind = KINDS[param.kind] if param.kind else None
    host_type = "" if param.kind is not None and param.kind.is_device_data else (
        (kind.stub_type if kind else None) or "Any")
    return PythonParam(names.python_identifier(param.name), param, default, nullable=param.optional,
                       type=host_type, words=kind.python_words if kind else "object")


@dataclass(frozen=True)
class PythonSignature:
    """`aclnn.<name>(...)`: inputs (in and inout) in prototype order, then the keyword-only `out=`
    when the API has direction-out parameters."""

    name: str
    params: tuple[PythonParam, ...]
    outs: tuple[Param, ...]  # the parameters out= covers: direction out, in prototype order
    # What a call returns, one per output (direction out or inout), in prototype order.
    returns: tuple[PythonParam, ...] = ()

    @property
    def inputs(self) -> tuple[PythonParam, ...]:
        """The parameters of the API's inputs (all but out=)."""
        return tuple(p for p in self.params if p.param is not None)

    @property
    def defaulted(self) -> frozenset[str]:
        """The page names of the inputs that may be left out."""
        return frozenset(p.param.name for p in self.params if p.param is not None and p.default is not None)

    @property
    def positional(self) -> int:
        """How many parameters may be given by position (those before `*`)."""
        return sum(1 for p in self.params if not p.keyword_only)

    @property
    def required(self) -> int:
        """How many parameters, from the first, have no default (defaults are trailing)."""
        return sum(1 for p in self.params if p.default is None)

    @property
    def text(self) -> str:
        """`leaky_relu_backward(grad_output, self, negative_slope, self_is_result, *, out=None)`."""
        params = ((p.name if p.default is None else f"{p.name}={p.default}", p.keyword_only) for p in self.params)
        return f"{self.name}({parameter_list(params)})"


def parameter_list(params: Iterable[tuple[str, bool]]) -> str:
    """Parameters (their source text, and whether keyword-only) joined as a def writes them: a bare
    `*` before the first keyword-only one."""
    parts: list[str] = []
    starred = False  # a flag, not a search of `parts` for "*" at each parameter (quadratic)
    for source, keyword_only in params:
        if keyword_only and not starred:
            parts.append("*")
            starred = True
        parts.append(source)
    return ", ".join(parts)


def python_signature(bound: BoundAPI) -> PythonSignature:
    """The API's signature, decided once (`BoundAPI.python_signature`, by `signature_of`)."""
    return bound.python_signature


def signature_of(bound: BoundAPI) -> PythonSignature:
    """An optional input defaults to None only when every later input is defaulted too;
    otherwise it stays required (and accepts None). Only pointer kinds default: None becomes
    NULL, which is what "optional" means for them; a bool, int, float or dtype attribute has no
    NULL, and inventing a value for it would be a guess the page did not make."""
    inputs = bound.api.inputs
    result: list[PythonParam] = []
    trailing_optional = True
    for param in reversed(inputs):
        trailing_optional = trailing_optional and param.optional and bool(param.kind and param.kind.is_pointer)
        result.append(python_param(param, "None" if trailing_optional else None))
    result.reverse()
    outs = out_params(bound.api)
    if outs:
        result.append(PythonParam("out", None, "None", keyword_only=True, nullable=True))
    return PythonSignature(bound.python_name, tuple(result), outs, tuple(python_param(p) for p in bound.api.outputs))


def out_params(api: API) -> tuple[Param, ...]:
    """The parameters out= covers: direction out, in prototype order."""
    return tuple(p for p in api.params if p.direction is Direction.OUT)


# ---- scalars ------------------------------------------------------------------------------------------

_INT_ORDER = (DType.INT64, DType.INT32, DType.INT16, DType.INT8, DType.UINT8, DType.UINT16, DType.UINT32,
              DType.UINT64)
_FLOAT_ORDER = (DType.DOUBLE, DType.FLOAT, DType.FLOAT16, DType.BFLOAT16)
_COMPLEX_ORDER = (DType.COMPLEX128, DType.COMPLEX64)


@dataclass(frozen=True)
class ScalarPreference:
    """The dtypes a Python bool/int/float/complex may become for an aclScalar, best first; at run
    time the first one that holds the value wins."""

    for_bool: tuple[DType, ...]
    for_int: tuple[DType, ...]
    for_float: tuple[DType, ...]
    for_complex: tuple[DType, ...]


def scalar_preference(param: Param) -> ScalarPreference:
    """From the dtypes the page documents for the parameter (all products): a Python float is
    DOUBLE if documented, else FLOAT, FLOAT16, BFLOAT16; an int the widest documented integer
    that holds it, else a documented float; a bool BOOL, else an integer, else a float. An
    empty list lets the runtime pass the natural dtype (BOOL, INT64, DOUBLE, COMPLEX128), which
    the library then accepts or rejects. For a float, a dtype every product accepts comes before
    one only some do (aclnnIndexFill's value: DOUBLE on Ascend 950 alone, so a Python float is FLOAT
    wherever the page is called)."""
    documented = set(param.documented_dtypes())
    everywhere = set(param.dtypes).intersection(*(entry.dtypes for entry in param.dtypes_by_product))

    def keep(order: tuple[DType, ...]) -> tuple[DType, ...]:
        return tuple(d for d in order if d in documented)

    return ScalarPreference(
        for_bool=keep((DType.BOOL,) + _INT_ORDER + _FLOAT_ORDER),
        for_int=keep(_INT_ORDER + _FLOAT_ORDER),
        for_float=tuple(sorted(keep(_FLOAT_ORDER), key=lambda d: d not in everywhere)),
        for_complex=keep(_COMPLEX_ORDER),
    )


def float_dtype(param: Param) -> Optional[DType]:
    """The dtype a Python float passed for the parameter becomes: a scalar's first floating dtype
    of the page's list (`scalar_preference`), a float attribute's C type (float: FLOAT); None
    where the call keeps a double."""
    if param.kind is ParamKind.SCALAR:
        return next(iter(scalar_preference(param).for_float), None)
    if param.kind is ParamKind.FLOAT and value_type(param) == "float":
        return DType.FLOAT
    return None


# ---- outputs ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OutputPlan:
    """How an output is allocated when out= does not give it."""

    param: Param
    index: int  # in the prototype
    shape_from: tuple[int, ...] = ()  # broadcast of these inputs' shapes
    dtype_from: tuple[int, ...] = ()  # promotion of these inputs' dtypes
    # The page relates the dtype to no input: the promoted dtype is used only if documented.
    dtype_must_be_documented: bool = False
    documented: tuple[DType, ...] = ()
    required_reason: Optional[str] = None  # out= is required, because...
    is_list: bool = False
    # How the kernel's result dtype follows from the promoted one (its semantics' rule).
    result_rule: ResultRule = ResultRule.PROMOTED
    # A kernel family's rule (gen.families.output_shape): "reduce", "same", "matmul", ... shape the
    # output from the first of `shape_from` (the family's source, e.g. `self`) and the second (a
    # product's right operand), not by broadcasting; "" for those.
    family_shape: str = ""
    dims_from: Optional[int] = None  # the reduced dimensions' parameter (none: every dimension)
    keepdim_from: Optional[int] = None
    # A bool parameter that, true with an empty dimension list, reduces no dimension (the output
    # is shaped as the input: noopWithEmptyAxes).
    noop_from: Optional[int] = None
    # The "convolution" rule's arguments (families.CONV_RULE_ROLES; None: the page has no such one).
    conv_from: tuple[Optional[int], ...] = ()
    dtype_arg: Optional[int] = None  # an aclDataType parameter that, when given, is the dtype
    fixed_dtype: Optional[DType] = None  # the dtype whatever the inputs' (argmax's INT64)
    # A pool rule's window arguments (stride, padding, dilation, ceil mode; None: absent) and the
    # number of trailing dimensions it pools (0: not a pool rule).
    window_from: tuple[Optional[int], ...] = ()
    spatial: int = 0
    onnx_window: bool = False  # the window arguments are ONNX's (the pool family's onnx_window option)

    @property
    def rule_arguments(self) -> tuple[tuple[str, int], ...]:
        """The arguments the family's rule reads, as (families.RULE_ARGUMENTS name, parameter index),
        those the page has."""
        named = (("dims", self.dims_from), ("keepdim", self.keepdim_from), ("dtype", self.dtype_arg),
                 ("noop", self.noop_from), *zip(families.CONV_RULE_ROLES, self.conv_from),
                 *zip(families.POOL_WINDOW_ROLES, self.window_from))
        return tuple((name, index) for name, index in named if index is not None)


def output_plan(api: API, index: int, elementwise: bool = False) -> OutputPlan:
    """Shape: the broadcast of the tensor inputs the page ties the output's shape to, directly or
    through others (`API.shape_group`: usage notes and error rows, "gradOutput、self和out的shape
    不相同"). Dtype: the promotion of the inputs its notes relate its dtype to (SAME_DTYPE,
    PROMOTE, CAST_FROM), else the promotion of every tensor input, used only when the output's
    documented dtypes contain it. When the page says nothing to derive a shape from, out= is
    required, unless the op is `elementwise` (its semantics give a kernel of one element): then
    its output is the broadcast of every tensor input, as the elementwise engine computes it."""
    param = api.params[index]
    if param.kind is ParamKind.TENSOR_LIST:
        return OutputPlan(param, index, required_reason="the page does not state the shapes of an output list",
                          is_list=True)
    inputs = {p.name: i for i, p in enumerate(api.params)
              if p.kind is ParamKind.TENSOR and p.direction is not Direction.OUT}
    shape_from = tuple(inputs[n] for n in api.shape_group(param.name) if n in inputs)
    if not shape_from and elementwise:
        shape_from = tuple(inputs.values())
    if not shape_from:
        return OutputPlan(param, index, required_reason=f"the page does not say how the shape of {param.name} "
                                                        "follows from the inputs")
    dtype_names = (param.related(RelationKind.SAME_DTYPE) + param.related(RelationKind.PROMOTE)
                   + param.related(RelationKind.CAST_FROM))
    dtype_from = tuple(dict.fromkeys(inputs[n] for n in dtype_names if n in inputs))
    if dtype_from:
        return OutputPlan(param, index, shape_from=shape_from, dtype_from=dtype_from, documented=param.dtypes)
    if not param.dtypes:
        return OutputPlan(param, index, required_reason=f"the page neither documents the dtypes of {param.name} "
                                                        "nor relates them to an input")
    return OutputPlan(param, index, shape_from=shape_from, dtype_from=tuple(inputs.values()),
                      dtype_must_be_documented=True, documented=param.dtypes)


def result_rule(semantics: Optional[OpSemantics]) -> ResultRule:
    """How an elementwise kernel's result dtype follows from the promoted input dtype (a family's
    planner decides its own outputs' dtypes)."""
    if semantics is None or not semantics.kernel:
        return ResultRule.PROMOTED
    return semantics.result_rule


def family_plans(api: API, semantics: OpSemantics, roles: Mapping[str, str],
                 why: str) -> Optional[tuple[OutputPlan, ...]]:
    """The plans of an API a kernel family computes: each output that plays a role of the family
    is shaped by the family's rule from the parameter playing `self` (None: the roles cannot be
    bound, the generic plans apply). `roles` and `why`: the family's roles as the model bound them
    (BoundAPI.family_binding)."""
    family = families.family(semantics.family)
    assert family is not None
    index = {p.name: i for i, p in enumerate(api.params)}
    # An op without the family's source (an upsample backward has no self) is shaped from the
    # input its outputs take their dtype from (its gradient).
    source = roles.get(family.source) or roles.get(families.dtype_source(family, semantics.op))
    if families.applies_kernel(semantics) and not why and source is not None:
        return _member_plans(api, index[source])
    given = families.output_shape(family, semantics.op, "*") == "given"
    if why or source is None or api.params[index[source]].kind is not ParamKind.TENSOR:
        # cat and stack have a list where others have self: only out= can shape their outputs.
        if why or not given:
            return None
        source = None
    second = roles.get(family.second) if family.second else None
    if second is not None and api.params[index[second]].kind is not ParamKind.TENSOR:
        second = None
    role_of = {param: role for role, param in roles.items() if role not in (family.source, family.second)}
    # The input whose dtype an output has (one_hot's on_value; default: the source's).
    dtype_source = roles.get(families.dtype_source(family, semantics.op)) or source

    def arg(role: str, kinds: tuple[ParamKind, ...]) -> Optional[int]:
        name = roles.get(role)
        return index[name] if name is not None and api.params[index[name]].kind in kinds else None

    plans = []
    for i, p in enumerate(api.params):
        if p.direction is not Direction.OUT:
            continue
        role = role_of.get(p.name)
        if role is not None and families.output_shape(family, semantics.op, role) == "given":
            # No dtype source where the family fixes the dtype or the golden's result gives it.
            own_dtype = (families.fixed_dtype(family, semantics.op, role) is not None
                         or families.result_dtype(family, semantics.op))
            from_roles = tuple(index[roles[r]] for r in families.role_dtype_source(family, role) if r in roles)
            plans.append(OutputPlan(p, i, required_reason=f"{p.name}'s shape follows from the arguments by "
                                                            f"{semantics.op}'s rule, which the bindings do not apply",
                                    dtype_from=from_roles or ((index[dtype_source],) if dtype_source and not own_dtype
                                                              else ()),
                                    is_list=p.kind is ParamKind.TENSOR_LIST))
            continue
        if role is None or p.kind is not ParamKind.TENSOR:
            plans.append(output_plan(api, i))
            continue
        rule = families.output_shape(family, semantics.op, role)
        if rule == "page":
            plans.append(output_plan(api, i))
            continue
        fixed = families.fixed_dtype(family, semantics.op, role)
        if fixed and len(p.dtypes) == 1 and p.dtypes[0].name != fixed:
            fixed = p.dtypes[0].name  # the page's one dtype (aclnnMinDim's indices are INT32)
        on_default = p.dtypes_for(DEFAULT_SOC)
        if fixed and len(on_default) == 1 and on_default[0].name != fixed:
            fixed = on_default[0].name  # the default chip's one (aclnnMaxPool3dWithArgmax's indices: INT32)
        assert source is not None and dtype_source is not None  # only "given" shapes go without a source
        # A product's dtype promotes both operands'; the others' is their dtype source's.
        operands = (index[source],) + ((index[second],) if second is not None else ())
        shape = families.OUTPUT_SHAPE[rule]
        dims_role, product = shape.dims_role, shape.product
        plans.append(OutputPlan(
            p, i, shape_from=operands,
            dtype_from=operands if product else (index[dtype_source],),
            # A product of BOOL inputs has no documented output dtype (aclnnAddmv's out lists no BOOL).
            dtype_must_be_documented=product and fixed is None,
            documented=p.dtypes,
            family_shape=rule,
            dims_from=arg(dims_role, (ParamKind.INT_ARRAY, ParamKind.INT, ParamKind.SCALAR)) if dims_role else None,
            keepdim_from=arg("keepdim", (ParamKind.BOOL, ParamKind.INT)),  # an int: ONNX's keepdims (aclnnReduceMinV2)
            noop_from=arg("noop_with_empty_dims", (ParamKind.BOOL,)) if rule == "reduce" else None,
            conv_from=tuple(arg(r, (ParamKind.INT_ARRAY, ParamKind.INT, ParamKind.BOOL)) for r in families.CONV_RULE_ROLES)
            if rule == "convolution" else (),
            dtype_arg=arg("dtype", (ParamKind.DTYPE,)) if fixed is None else None,
            fixed_dtype=DType[fixed] if fixed else None,
            # aclnnMaxPool's ceilMode is an int64 (non-zero: ceil), read as a truth value.
            window_from=tuple(arg(r, (ParamKind.INT_ARRAY, ParamKind.BOOL) + ((ParamKind.INT,) if r == "ceil_mode" else ()))
                              for r in families.POOL_WINDOW_ROLES)
            if rule == "pool" else (),
            spatial=int(semantics.option("spatial") or 0) if shape.pooled else 0,
            onnx_window=rule == "pool" and bool(semantics.option("onnx_window")),
            # The family's rule gives the output dtype; of the semantics' result rule, only a FLOAT
            # result of integral inputs applies (aclnnLogSumExp).
            result_rule=ResultRule.FLOATING if semantics.result_rule.integral_to_float and fixed is None
            else ResultRule.PROMOTED))
    return tuple(plans)


def _member_plans(api: API, source: int) -> tuple[OutputPlan, ...]:
    """The plans of a family that maps lists member by member (foreach): an output list's member i
    has the shape and dtype of the source list's member i."""
    plans = []
    for i, p in enumerate(api.params):
        if p.direction is not Direction.OUT:
            continue
        if p.kind is ParamKind.TENSOR_LIST and api.params[source].kind is ParamKind.TENSOR_LIST:
            plans.append(OutputPlan(p, i, shape_from=(source,), dtype_from=(source,), documented=p.dtypes,
                                    is_list=True, family_shape="same"))
        else:
            plans.append(output_plan(api, i))
    return tuple(plans)


def plan_outputs(bound: BoundAPI) -> tuple[OutputPlan, ...]:
    """The plan of every direction-out parameter, in prototype order; the semantics' result rule
    applies to the output of a kernel that writes one tensor; a kernel family's rule shapes the
    outputs of the APIs it computes."""
    api, semantics = bound.api, bound.semantics
    if semantics is not None and semantics.family:
        planned = family_plans(api, semantics, *bound.family_binding)
        if planned is not None:
            return planned
    elementwise = semantics is not None and bool(semantics.kernel)
    plans = [output_plan(api, i, elementwise) for i, p in enumerate(api.params) if p.direction is Direction.OUT]
    rule = result_rule(semantics)
    tensors = [k for k, plan in enumerate(plans) if plan.param.kind is ParamKind.TENSOR]
    if rule is not ResultRule.PROMOTED and len(tensors) == 1:
        plans[tensors[0]] = replace(plans[tensors[0]], result_rule=rule)
    return tuple(plans)
