"""The base call of an API's suite: a valid call (the semantics file's, else the page's example,
else neutral values) that every other case varies, and what the planners of the cases ask of it
(the lead input and its dtypes, the outputs' plans, the arguments a family ties to shapes)."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any, Iterator, Optional

from gen import abi, families
from gen.conventions import PLAIN_FORMATS
from gen.api.calls import EXPRESSIBLE, SHAPES
from gen.api.python import out_params, python_signature, result_rule
from gen.emit.tests.cases import (AUTO, BASE_RANK, UNDOCUMENTED, Case, base_values, rank_bounds, scalar_value, semantic_call_shapes,
                                  with_absences,
                                  with_semantic_call)
from gen.ir import API, DEFAULT_SOC, DType, DTypeCombination, DTypeCondition, Direction, Param, ParamKind, RelationKind, Soc
from gen.model import BoundAPI


def related(a: Param, b: Param, kind: RelationKind) -> bool:
    """Whether the page relates a and b by `kind`, in the notes of either."""
    return b.name in a.related(kind) or a.name in b.related(kind)


def shape_groups(api: API) -> list[list[str]]:
    """Tensors whose shapes the page relates (`API.shape_group`), in prototype order."""
    of_tensor = api.shape_groups()
    groups: list[list[str]] = []
    seen: set[str] = set()  # the tensors of the groups listed: one look-up, not a scan of them
    for p in api.params:
        if p.kind is ParamKind.TENSOR and p.name not in seen:
            group = of_tensor[p.name]
            seen.update(group)
            groups.append(list(group))
    return groups


def dtype_bound_scalars(api: API) -> dict[str, str]:
    """Scalars whose dtype the page binds to a tensor input's ("数据类型与gradOutput一致"): the
    tensor, by scalar."""
    tensors = [p for p in api.inputs if p.kind is ParamKind.TENSOR]
    bound = {}
    for s in api.inputs:
        if s.kind is ParamKind.SCALAR:
            t = next((t for t in tensors if related(s, t, RelationKind.SAME_DTYPE)), None)
            if t is not None:
                bound[s.name] = t.name
    return bound


def matches(row: DTypeCombination, assignment: dict[str, DType]) -> bool:
    """Whether a combination row allows the dtypes of a call (as the simulator's phase 1 judges:
    a parameter the call leaves NULL matches every cell)."""
    for cell in row.cells:
        dtype = assignment.get(cell.param)
        if dtype is None or dtype in cell.dtypes:
            continue
        if cell.same_as and assignment.get(cell.same_as) is dtype:
            continue
        return False
    return True


def _last_widened(shapes: dict[str, Any], size: int, wanted: int) -> dict[str, Any]:
    """`shapes` with each shape whose last dimension is `size` ending in `wanted` instead."""
    return {name: (*d[:-1], wanted) if isinstance(d, tuple) and d and d[-1] == size else d
            for name, d in shapes.items()}


class BaseCall:
    """One API's base call, and the facts about the API its cases are planned from."""

    def __init__(self, bound: BoundAPI) -> None:
        self.bound = bound
        self.api = api = bound.api
        self.tensor_inputs = [p for p in api.inputs if p.kind is ParamKind.TENSOR]
        self.list_inputs = [p for p in api.inputs if p.kind is ParamKind.TENSOR_LIST]
        self.tensor_outs = [p for p in out_params(api) if p.kind is ParamKind.TENSOR]
        # How the bindings allocate each output: asked by nearly every case, made once.
        self.plans = bound.output_plans
        # The function the cases call: its parameters' Python names, and the inputs that take None (NULL).
        self.signature = python_signature(bound)
        self.takes_none = frozenset(p.param.name for p in self.signature.inputs if p.param is not None and p.nullable)
        self.groups = shape_groups(api)
        if bound.semantics is not None and bound.semantics.kernel:
            # An elementwise kernel's output is the broadcast of its inputs (gen.api.python.output_plan),
            # whether or not the page relates it to them.
            self.groups = [g for g in self.groups if any(api.param(n).direction is not Direction.OUT for n in g)]
        main = self.groups[0] if self.groups else []
        # Shapes can be varied when every tensor is related to every other (elementwise ops), not
        # where a kernel family's rule ties them (whatever the page's prose relates).
        family = bound.semantics.family if bound.semantics else ""
        self.shapes_free = (len(self.groups) == 1 and not any(p.kind is ParamKind.TENSOR_LIST for p in api.params)
                            and bool(self.tensor_inputs) and not family)
        self.main = [api.param(n) for n in main]
        self.ranks = rank_bounds(self.main)
        self.values = with_semantic_call(base_values(api), api, bound.semantics)
        self.family = families.family(bound.semantics.family) if bound.semantics and bound.semantics.family else None
        # Only a family with a dtype role has one (aclnnQuantize's dtype is the output's, not the inputs').
        dtype_role = (bound.semantics.role("dtype") or "dtype") if (
            bound.semantics and self.family and "dtype" in self.family.roles) else None
        self.family_dtype_arg = dtype_role if dtype_role and any(
            p.name == dtype_role and p.kind is ParamKind.DTYPE for p in api.params) else None
        self.bound_scalars = dtype_bound_scalars(api)
        self.semantics_checks = bound.semantics.checks if bound.semantics else ()
        # The input whose documented dtypes the cases go through: a family's source (where's self,
        # not its condition), else the first tensor input.
        source = bound.family_roles.get(self.family.source) if self.family else None
        self.lead = next((p for p in self.tensor_inputs + self.list_inputs if p.name == source),
                         self.tensor_inputs[0] if self.tensor_inputs else None)
        self.lead_dtypes = [d for d in self.lead.documented_dtypes() if d in EXPRESSIBLE] if self.lead else []
        self.inexpressible = [d for d in self.lead.documented_dtypes() if d not in EXPRESSIBLE] if self.lead else []
        self.base_dtype = self._base_dtype()
        # What the base call's kernel gives, which its outputs must be able to take.
        self.result_dtype = result_rule(bound.semantics).result_dtype(self.base_dtype)
        self.base_rank = min(max(BASE_RANK, self.ranks[0]), self.ranks[1])
        self.base = self._base_case()

    # -- the base call -----------------------------------------------------------------------------------

    def _base_dtype(self) -> DType:
        """A dtype the lead documents on the default chip (aclnnOneHot lists UINT8 for self on
        Ascend310P, not on Ascend910B): FLOAT there, the dtype every backend computes most plainly,
        else the first documented on every chip too, so that the base call is valid on each chip
        the suites run on; but where the page lists dtype combinations for the default chip, the
        first such whose call is one of its rows (aclnnAddRmsNormQuant lists FLOAT32 for x1 on one
        chip, and only FLOAT16 and BFLOAT16 rows on the default one)."""
        if not self.lead_dtypes or self.lead is None:
            return DType.FLOAT
        lead = self.lead

        def preference(dtype: DType) -> tuple[bool, bool, bool]:
            return (dtype not in lead.dtypes_for(DEFAULT_SOC), dtype is not DType.FLOAT,
                    not all(dtype in lead.dtypes_for(soc) for soc in Soc))

        ordered = sorted(self.lead_dtypes, key=preference)  # stable: page order among equals
        rows = [r for r in self.api.dtype_combinations if r.applies_to(DEFAULT_SOC)]
        for dtype in ordered if rows else []:
            if any(matches(r, {n: DType(v) for n, v in self.uniform_dtypes(dtype).items()}) for r in rows):
                return dtype
        return ordered[0]

    def on_chips(self) -> dict[str, Optional[dict[str, str]]]:
        """Per chip whose own lists lack a dtype of the base call (aclnnInplaceQuantScatter's BFLOAT16
        updates, scales and zero points on Ascend310P, which lists FLOAT16, FLOAT and INT32): the
        dtypes a call valid there takes instead, those that differ from the base's, of the first lead
        dtype the chip lists (FLOAT first) whose call its lists and its dtype combinations allow; None
        where none does. A rule's accepted call, which varies a value or a shape, takes them there."""
        chips: dict[str, Optional[dict[str, str]]] = {}
        for soc in sorted({e.soc for p in self.api.params for e in p.dtypes_by_product}, key=lambda s: s.value):
            if self._listed_on(soc, self.base.dtypes):
                continue
            lead = [d for d in self.lead.dtypes_for(soc) if d in EXPRESSIBLE] if self.lead else []
            calls = (self._call_on(soc, d) for d in sorted(lead, key=lambda d: d is not DType.FLOAT))
            found = next((c for c in calls if c is not None), None)
            chips[soc.value] = None if found is None else {
                n: d for n, d in found.items() if self.base.dtypes.get(n) != d}
        return chips

    def _listed_on(self, soc: Soc, dtypes: dict[str, str]) -> bool:
        """Whether `soc`'s lists hold each dtype of a call (those phase 1 holds to a list)."""
        for p in self.api.params:
            listed = p.dtypes_for(soc) if p.name in dtypes and self.api.dtype_checked(p) else ()
            if listed and dtypes[p.name] not in {d.value for d in listed}:
                return False
        return True

    def _call_on(self, soc: Soc, dtype: DType) -> Optional[dict[str, str]]:
        """The base call's dtypes with the lead in `dtype` and each other input in it or its own first
        dtype on `soc`, moved into a row of the chip's dtype combinations where one has the lead's;
        None where the chip's lists or combinations do not allow it."""
        dtypes = dict(self.base.dtypes)
        for p in self.tensor_inputs + self.list_inputs:
            listed = [d for d in p.dtypes_for(soc) if d in EXPRESSIBLE]
            if p.name in dtypes and listed:
                dtypes[p.name] = (dtype if dtype in listed else listed[0]).value
        dtypes.update({s: dtypes[t] for s, t in self.bound_scalars.items() if t in dtypes})
        rows = [r for r in self.api.dtype_combinations if r.applies_to(soc)]
        candidates = [dtypes] + [moved for _, moved in self._into_rows(dtypes, rows, dtype)]
        for call in candidates:
            call.update({s: call[t] for s, t in self.bound_scalars.items() if t in call})
            if self._listed_on(soc, call) and (not rows or any(
                    matches(r, {n: DType(v) for n, v in call.items()}) for r in rows)):
                return call
        return None

    def dtype_of(self, param: Param, dtype: DType) -> str:
        listed = [d for d in param.documented_dtypes() if d in EXPRESSIBLE]
        if not listed:
            # A page that lists only dtypes outside PyTorch's promotion lattice for this tensor
            # (aclnnQuantMatmulV2's UINT64 deqScale) gets the first NumPy holds, not `dtype`, which
            # its phase 1 refuses.
            listed = [d for d in param.documented_dtypes() if d.numpy]
        return (dtype if dtype in listed or not listed else listed[0]).value

    def uniform_dtypes(self, dtype: DType) -> dict[str, str]:
        """Every tensor input in `dtype` (or its own first dtype, where its page lists another
        family), and each scalar bound to a tensor's dtype in that tensor's."""
        dtypes = {p.name: self.dtype_of(p, dtype) for p in self.tensor_inputs + self.list_inputs}
        dtypes.update({s: dtypes[t] for s, t in self.bound_scalars.items()})
        return dtypes

    def in_a_row(self, dtypes: dict[str, str]) -> dict[str, str]:
        """`dtypes`, or, where the page's dtype combinations for the default chip (else any) hold no row with
        them, those of the first row with the lead's dtype, each parameter the row names taking the
        row's first dtype (aclnnInplaceQuantScatter: FLOAT16 updates take FLOAT scales and INT32 zero
        points, BFLOAT16 updates BFLOAT16 ones); a scalar bound to a tensor's dtype follows it."""
        # A page of other chips only (aclnnInplaceQuantScatterV2: Ascend950) has their rows.
        rows = [r for r in self.api.dtype_combinations if r.applies_to(DEFAULT_SOC)] or list(self.api.dtype_combinations)
        # The base dtype's call is already a row's where one can be (_base_dtype).
        if not rows or self.lead is None or self.lead.name not in dtypes or \
                DType(dtypes[self.lead.name]) is self.base_dtype or \
                any(matches(r, {n: DType(v) for n, v in dtypes.items()}) for r in rows):
            return dtypes
        for row, chosen in self._into_rows(dtypes, rows, DType(dtypes[self.lead.name])):
            if matches(row, {n: DType(v) for n, v in chosen.items()}):
                return chosen
        return dtypes

    def _into_rows(self, dtypes: dict[str, str], rows: list[DTypeCombination],
                   lead: DType) -> Iterator[tuple[DTypeCombination, dict[str, str]]]:
        """`dtypes` moved into each of `rows` whose lead cell has `lead`: each parameter the row names
        takes the row's first dtype where its own is not the row's; a scalar bound to a tensor's dtype
        follows it."""
        for row in rows:
            cell = row.cell(self.lead.name) if self.lead is not None else None
            if cell is None or lead not in cell.dtypes:
                continue
            moved = {**dtypes, **{c.param: c.dtypes[0].value for c in row.cells
                                  if c.param in dtypes and c.dtypes and DType(dtypes[c.param]) not in c.dtypes}}
            moved.update({s: moved[t] for s, t in self.bound_scalars.items() if t in moved})
            yield row, moved

    def at_dtype(self, dtype: DType) -> dict[str, Any]:
        """The Case arguments of the base call with its inputs in `dtype` (those the page's
        combinations tie to it in its row's)."""
        dtypes = self.in_a_row(self.uniform_dtypes(dtype))
        values = {**self.values.values, **{s: scalar_value(DType(dtypes[s]), self.values.values[s])
                                           for s in self.bound_scalars}}
        if self.family_dtype_arg is not None:
            # A family's dtype argument (the computation's dtype: torch.cumsum(x, dtype=...)) is the
            # inputs' own, as their out= is.
            values[self.family_dtype_arg] = dtype.value
        return self.with_integral_scalars(dtypes, values)

    def with_integral_scalars(self, dtypes: dict[str, str], values: dict[str, Any]) -> dict[str, Any]:
        """The free scalars (bound to no tensor's dtype) as integers (bools) when every tensor input
        is integral (bool): the example's fractional value ("alpha = 1.2") cannot be cast to an
        integral computation, which pages list as an error ("alpha无法转换为self和other推导后的数据类型")."""
        tensors = [DType(dtypes[p.name]) for p in self.tensor_inputs + self.list_inputs if p.name in dtypes]
        if not tensors or not all(d.is_integral or d is DType.BOOL for d in tensors):
            return {"dtypes": dtypes, "values": values}
        family = next((d for d in tensors if d is not DType.BOOL), DType.BOOL)
        dtypes, values = dict(dtypes), dict(values)
        for p in self.api.inputs:
            if p.kind is ParamKind.SCALAR and p.name not in self.bound_scalars and p.name in values:
                if p.documented_dtypes() and all(d.is_floating for d in p.documented_dtypes()):
                    continue  # a scalar the page wants floating whatever the tensors (a probability)
                value = values[p.name]
                if isinstance(value, float) or (family is DType.BOOL and not isinstance(value, bool)):
                    values[p.name] = scalar_value(family, value)
                    if family in p.documented_dtypes():
                        dtypes[p.name] = family.value
                elif self.base_dtype is DType.BOOL and family in p.documented_dtypes():
                    # A BOOL base call makes this scalar BOOL (2 becomes true): the other integral
                    # cases state its dtype too, as a case derived from the base names what it changes.
                    dtypes[p.name] = family.value
        return {"dtypes": dtypes, "values": values}

    def shapes(self, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        return {p.name: shape for p in self.tensor_inputs}

    def _example_shapes(self) -> Optional[dict[str, tuple[int, ...]]]:
        stated = semantic_call_shapes(self.api, self.bound.semantics)
        if stated is not None:
            return stated
        call = self.api.example_call
        if call is None:
            return None
        shapes = {}
        for p in self.tensor_inputs:
            arg = call.arg(p.name)
            if (arg is None or arg.shape is None) and p.name in self.takes_none:
                continue  # an optional input the example leaves out: NULL
            if arg is None or arg.shape is None:
                return None
            shapes[p.name] = tuple(arg.shape)
        return shapes

    @property
    def base_shape(self) -> tuple[int, ...]:
        return SHAPES[self.base_rank]

    def _base_case(self) -> Case:
        shapes: dict[str, Any] = dict(self.shapes(self.base_shape) if self.shapes_free else (
            self._example_shapes() or self.shapes(self.base_shape)))
        # An optional tensor or tensor list the valid call leaves out is passed as None (a semantics
        # file's valid call that states its shapes says which it passes).
        stated = semantic_call_shapes(self.api, self.bound.semantics) is not None
        absent = tuple(p.name for p in self.tensor_inputs + (self.list_inputs if stated else [])
                       if p.name in self.takes_none and p.name not in shapes)
        # A tensor list: two members of the base shape (the pages state no member shapes), unless
        # the semantics file's valid call gives them.
        shapes.update({p.name: (self.base_shape, self.base_shape) for p in self.list_inputs
                       if p.name not in shapes and p.name not in absent})
        # A family's output whose shape the bindings cannot derive (a concatenation's, a top-k's)
        # is passed as out=, of the golden's shape and dtype (AUTO).
        given = ({plan.param.name: AUTO for plan in self.plans
                  if plan.required_reason is not None} if self.family is not None else {})
        out_shapes = {}
        if self.family is None and shapes == self._example_shapes() and not self.values.unknown:
            # Another such output, of the call the page's example makes (its inputs, and every value
            # the example gives: a reduction it leaves unstated would shape the output otherwise):
            # the example's out= (its shape; its dtype where the page documents it), as make demo passes it.
            for name, (dtype, shape) in self._example_outs().items():
                given[name], out_shapes[name] = dtype, shape
        return self.bytes_kept(Case(self.base_dtype.value, shapes=shapes, none=absent, out=given, out_shapes=out_shapes,
                                    **self.at_dtype(self.base_dtype)))

    def dtype_assignment(self, case: Case) -> dict[str, DType]:
        """The dtype each typed parameter has in a case (those it leaves NULL, or whose dtype is
        chosen at run time, have none)."""
        found = {}
        for p in self.api.params:
            given = case.dtypes.get(p.name) or case.out.get(p.name) or (
                case.values.get(p.name) if p.kind is ParamKind.DTYPE else None)
            if p.name not in case.none and given and given not in (AUTO, UNDOCUMENTED):
                found[p.name] = DType(given)
        return found

    def bytes_kept(self, case: Case) -> Case:
        """`case` with the last dimension of each tensor a byte rule bounds (gen.ir.DimBytes: "Atlas
        推理系列产品：x、gamma输入的尾轴长度必须大于等于32 Bytes") widened to the least size that meets
        every such rule of every chip for the case's dtypes: a suite runs on whichever chip
        ACLNN_SIM_SOC names, and a size that meets each chip's rules meets its own (a least length
        and an alignment only ask for more). The tensors (inputs and out= arrays) whose last
        dimension has the size widened follow it (gamma with x), as the page's shape relations ask."""
        assignment = self.dtype_assignment(case)
        for _ in range(len(self.api.dim_bytes) + 1):  # each pass widens; a fixed point ends it
            widened = case
            for rule in self.api.dim_bytes:
                dtype = assignment.get(rule.param)
                shape = case.shapes.get(rule.param, case.out_shapes.get(rule.param))
                if rule.axis not in (-1, None) or dtype is None or not isinstance(shape, tuple) or not shape or \
                        not all(isinstance(d, int) for d in shape):
                    continue
                least, step = rule.least_size(dtype), rule.size_step(dtype)
                # The whole tensor's rule counts every element: the last dimension grows by the others' product.
                others = functools.reduce(lambda a, b: a * b, shape[:-1], 1) if rule.axis is None else 1
                if least is None or step is None or others < 1 or shape[-1] < 1:
                    continue  # an empty tensor's case stays empty (the chip may refuse it: not widened away)
                size = shape[-1]
                wanted = max(size, -(-least // others))
                while (wanted * others) % step:
                    wanted += 1
                if wanted != size:
                    case = replace(case, shapes=_last_widened(case.shapes, size, wanted),
                                   out_shapes=_last_widened(case.out_shapes, size, wanted))
            if case == widened:
                break
        return case

    def _example_outs(self) -> dict[str, tuple[str, tuple[int, ...]]]:
        """The outputs the bindings cannot allocate that the page's example gives: (dtype, shape)."""
        call, found = self.api.example_call, {}
        for plan in self.plans:
            arg = call.arg(plan.param.name) if call and plan.required_reason is not None else None
            if arg is None or arg.shape is None or plan.param.kind is not ParamKind.TENSOR:
                continue
            listed = [d for d in plan.param.documented_dtypes() if d in EXPRESSIBLE]
            dtype = arg.dtype if arg.dtype in listed else (listed[0] if listed else None)
            if dtype is not None:
                found[plan.param.name] = (dtype.value, tuple(arg.shape))
        return found

    @property
    def unallocated(self) -> Optional[str]:
        """Why no call can be made at all: an output the bindings cannot allocate and the base call
        does not pass (None when every output is allocated or given)."""
        for plan in self.plans:
            if plan.required_reason is not None and plan.param.name not in self.base.out:
                return f"{plan.required_reason}, and the page's example gives no out= for it"
        return None

    @property
    def base_known(self) -> Optional[str]:
        """Why the base case is not known to be valid (None when it is)."""
        if self.values.unknown:
            return "the page gives no valid value of " + ", ".join(self.values.unknown)
        if self.list_inputs and semantic_call_shapes(self.api, self.bound.semantics) is None:
            return "the page states no shapes for the members of " + ", ".join(p.name for p in self.list_inputs)
        if not self.shapes_free and self._example_shapes() is None:
            return "the page relates the tensors' shapes to nothing the tests can derive, and its example gives none"
        return self.unheld_output or self.unlaid_input or self.unallocated

    @property
    def unlaid_input(self) -> str:
        """Why the tests cannot pass an input: its page lists private layouts only (aclnnMlaProlog's FRACTAL_NZ
        weights), which phase 1 checks, and the suites lay every tensor out in a plain one; else ""."""
        for p in self.api.params:
            checked = any(f in abi.formats() for f in p.formats)  # as phase 1's row (gen/emit/sim.py's _formats)
            if p.kind is ParamKind.TENSOR and checked and not any(f in PLAIN_FORMATS for f in p.formats):
                return f"the page takes {p.name} in {'/'.join(p.formats)} only, a private layout the suites do not lay out"
        return ""

    @property
    def unheld_output(self) -> str:
        """Why the tests cannot pass an output: no dtype its page lists is one NumPy holds
        (aclnnDynamicDualLevelMxQuant's FLOAT4_E2M1 yOut), nor can the bindings allocate it; else ""."""
        for plan in self.plans:
            listed = plan.param.documented_dtypes()
            if plan.param.kind is ParamKind.TENSOR and listed and not any(d.numpy for d in listed):
                return f"NumPy cannot hold {plan.param.name}'s {'/'.join(d.value for d in listed)}, its page's only dtypes"
        return ""

    # -- the valid calls every API has: each documented dtype, each value of a bool attribute --------------

    def unallocatable(self, dtype: DType) -> str:
        """Why an output cannot be allocated for inputs in `dtype` (aclnnAbs: self lists COMPLEX64,
        out lists no complex dtype, and the page does not say which dtype out then has), else ""."""
        for plan in self.plans:
            p = plan.param
            if p.kind is not ParamKind.TENSOR:
                continue
            if plan.dtype_must_be_documented and plan.documented and dtype not in plan.documented:
                return (f"the page lists {dtype.value} for {self.lead.name if self.lead else 'the inputs'} but not for "
                        f"{p.name}, and does not say which dtype {p.name} then has")
        return ""

    @property
    def computable_dtypes(self) -> list[DType]:
        return [d for d in self.lead_dtypes if not self.unallocatable(d)]

    def dtype_cases(self) -> list[Case]:
        cases = [replace(self.base, id=d.value, skip=self.unallocatable(d), **self.at_dtype(d)) for d in self.lead_dtypes]
        cases += [replace(self.base, id=d.value, skip=f"NumPy cannot hold {d.value}") for d in self.inexpressible]
        cases += self.output_dtype_cases()
        return cases or [self.base]

    # -- the quantisers' output dtype: the attribute that names it, and each documented one ---------------

    @functools.cached_property
    def dtype_selector(self) -> Optional[Param]:
        """The attribute naming the dtype of a family's quantised outputs (its dst_type role: aclnnAscendQuant's
        dstType, an aclDataType's value; aclnnQuantize's dtype, an aclDataType), None where there is none."""
        name = self.bound.family_roles.get("dst_type") if self.family is not None else None
        param = next((p for p in self.api.inputs if p.name == name), None)
        return param if param is not None and param.kind in (ParamKind.INT, ParamKind.DTYPE) else None

    @functools.cached_property
    def selected_outputs(self) -> tuple[Param, ...]:
        """The outputs whose dtype dtype_selector names: the family's out and out2 roles (aclnnDynamicMxQuantWithDualAxis'
        y1Out and y2Out, of one dtype)."""
        roles = self.bound.family_roles
        named = {roles.get("out"), roles.get("out2")}
        return tuple(p for p in self.tensor_outs if p.name in named) if self.dtype_selector is not None else ()

    def selector_value(self, dtype: DType) -> Any:
        """The value of dtype_selector that names `dtype`: its aclDataType's (acl/acl_base.h, ACL_INT4 29) for an
        integer attribute, the dtype itself for an aclDataType one."""
        assert self.dtype_selector is not None
        if self.dtype_selector.kind is ParamKind.DTYPE:
            return dtype.value
        return abi.enumerators("aclDataType")[dtype.enumerator]

    def selected_dtype(self, case: Case) -> Optional[DType]:
        """The dtype a case's dtype_selector names (None where its value names none the pages know)."""
        if self.dtype_selector is None:
            return None
        value = case.values.get(self.dtype_selector.name)
        if self.dtype_selector.kind is ParamKind.DTYPE:
            return next((d for d in DType if d.value == value), None)
        codes = abi.enumerators("aclDataType")
        return next((d for d in DType if codes.get(d.enumerator) == value), None)

    def with_output_dtype(self, case: Case, dtype: DType) -> Case:
        """`case` writing its selected outputs in `dtype`, dtype_selector naming it: out= arrays of that dtype and
        of the golden's shape (an INT32 output of packed INT4 has the golden's packed shape)."""
        assert self.dtype_selector is not None
        return replace(case, out={**case.out, **{p.name: dtype.value for p in self.selected_outputs}},
                       values={**case.values, self.dtype_selector.name: self.selector_value(dtype)})

    def output_dtype_cases(self) -> list[Case]:
        """The base call writing each other dtype the page documents for its selected outputs (aclnnAscendQuant's y
        INT4 with dstType 29, INT32 words of eight INT4 with 3; aclnnAscendAntiQuant's BFLOAT16 y with 27): the
        attribute and the outputs' dtype set together, as a caller sets them. A dtype NumPy cannot hold is a
        skipped case, as an input's is."""
        outs = self.selected_outputs
        if not outs:
            return []
        current = self.selected_dtype(self.base)
        cases = []
        for dtype in outs[0].documented_dtypes():
            if dtype is current or not all(dtype in p.documented_dtypes() for p in outs):
                continue
            case = replace(self.with_output_dtype(self.base, dtype), id=f"{outs[0].name}={dtype.value}")
            cases.append(replace(case, skip="" if dtype.numpy else f"NumPy cannot hold {dtype.value}"))
        return cases

    def meeting(self, condition: DTypeCondition, case: Case) -> Optional[Case]:
        """`case` changed to meet a rule's dtype condition ("当y的数据类型为INT4时"): a selected output written in
        the condition's dtype (dtype_selector naming it), another output the condition names written in it (an
        output whose dtype no attribute names: aclnnAddRmsNormDynamicQuantV2's y1Out), or the lead input in it;
        None where none can."""
        for dtype in condition.dtypes:
            if not dtype.numpy:
                continue
            if any(p.name in condition.params for p in self.selected_outputs) and \
                    all(dtype in p.documented_dtypes() for p in self.selected_outputs):
                return replace(self.with_output_dtype(case, dtype), id=f"{self.selected_outputs[0].name}={dtype.value}")
            # Such an output is written in a dtype whose elements are the golden's one for one (INT4), so that
            # its out= array takes the golden's shape: an INT32 one may hold words of eight INT4 (aclnnDynamicQuant's
            # yOut), a shape only a golden knowing its dtype gives.
            out = next((p for p in self.tensor_outs if p.name in condition.params and p not in self.selected_outputs
                        and dtype in p.documented_dtypes() and dtype.size == 0), None)
            if out is not None:
                return replace(case, id=f"{out.name}={dtype.value}", out={**case.out, out.name: dtype.value})
            if self.lead is not None and self.lead.name in condition.params and dtype in self.lead_dtypes:
                return replace(case, id=dtype.value, **self.at_dtype(dtype))
        return None

    def attribute_cases(self) -> list[Case]:
        # A value the semantics file's own checks refuse (returnZloss=true, which the simulator
        # does not model) is an error case, not a valid call.
        refused = {(v.param, v.value) for check in (self.bound.semantics.checks if self.bound.semantics else ())
                   for v in check.violation if len(check.violation) == 1}
        return [with_absences(replace(self.base, id=f"{p.name}={not self.values.values[p.name]}",
                                      values={**self.base.values, p.name: not self.values.values[p.name]}), self.api)
                for p in self.api.inputs if p.kind is ParamKind.BOOL and p.name not in self.shape_arguments
                and (p.name, not self.values.values[p.name]) not in refused]

    # -- what the error rows and the rules vary: the arguments a family ties to shapes, the base call -----

    @functools.cached_property
    def output_dims_arguments(self) -> frozenset[str]:
        """The host arguments the bindings read as an output's dimensions (an adaptive pool's
        outputSize: gen.families.OutputShape.dims_role)."""
        if self.family is None:
            return frozenset()
        rules = families.rules(self.family)
        roles = self.bound.family_roles
        return frozenset(roles[d] for d in (families.OUTPUT_SHAPE[r].dims_role for r in rules
                                            if r in families.OUTPUT_SHAPE) if d in roles)

    @functools.cached_property
    def shape_arguments(self) -> frozenset[str]:
        """The host arguments an input's shape follows, so that another value of one alone is no
        valid call: the family's (gen.families.Op.shape_arguments: index_add's dim), and its
        keepdim when the page lists the output keepdim shapes as an input (aclnnAminmax's minOut)."""
        semantics = self.bound.semantics
        if self.family is None or semantics is None:
            return frozenset()
        roles = self.bound.family_roles
        names = {roles[role] for role in families.shape_arguments(self.family, semantics.op) if role in roles}
        out = roles.get("out")
        if out is not None and "keepdim" in roles and self.api.param(out).direction is not Direction.OUT:
            names.add(roles["keepdim"])
        return frozenset(names)

    @property
    def error_base(self) -> Case:
        """The base call of the error rows: out= arrays given by the caller (AUTO) get the dtype
        they have in the base call (the input the family names, or the fixed one) and the
        golden's shape, so that a row changing an input's dtype or shape leaves them as they were."""
        semantics, family = self.bound.semantics, self.family
        if semantics is None or family is None or not any(v == AUTO for v in self.base.out.values()):
            return self.base
        out: dict[str, str] = dict(self.base.out)
        out_shapes: dict[str, Any] = dict(self.base.out_shapes)
        roles = self.bound.family_roles
        for plan in self.plans:
            name = plan.param.name
            if out.get(name) != AUTO:
                continue
            role = next((r for r, q in roles.items() if q == name), None)
            fixed = families.fixed_dtype(family, semantics.op, role) if role else None
            listed = plan.param.documented_dtypes()
            # A dtype the family fixes beats the page's "same as" relation (sign packing's UINT8 bytes).
            if fixed:
                out[name] = fixed
            elif plan.dtype_from:
                out[name] = self.base.dtypes.get(self.api.params[plan.dtype_from[0]].name, self.base_dtype.value)
            elif len(listed) == 1:
                out[name] = listed[0].value
            else:
                continue
            out_shapes[name] = AUTO
        return replace(self.base, out=out, out_shapes=out_shapes)

    def out_dtype(self, out: Param) -> str:
        return self.dtype_of(out, self.base_dtype) if out.dtypes else self.base_dtype.value
