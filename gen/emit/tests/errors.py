"""One test per row of the page's error table: the row's category becomes calls that must fail with
the row's status; a row that cannot be provoked from Python is a skipped test whose reason quotes it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Optional, Sequence

from gen import abi, families
from gen.api.calls import EXPRESSIBLE
from gen.emit.tests.base_call import BaseCall, related
from gen.emit.tests.cases import AUTO, UNDOCUMENTED, Case
from gen.ir import Direction, DType, ErrorCase, ErrorCategory, Param, ParamKind, RelationKind, Reserved, Soc, ValueCheck

if TYPE_CHECKING:  # rules.py imports this module's statuses
    from gen.emit.tests.rules import RuleTest

# CANN reports a null pointer with this status, whatever row of its error table a page lists it in.
NULLPTR = abi.status_code("ACLNN_ERR_PARAM_NULLPTR")
# The status pages list invalid arguments under (and some list null pointers under it too).
PARAM_INVALID = abi.status_code("ACLNN_ERR_PARAM_INVALID")
# The most dimensions aclCreateTensor takes (the simulator's kMaxRank): a page's bound at or above
# it cannot be broken from Python.
MAX_TENSOR_RANK = 32
# Shapes that neither match nor broadcast against SHAPES[BASE_RANK].
MISMATCHED_SHAPE = (4, 5)


@dataclass(frozen=True)
class ErrorTest:
    """The test of one error-table row: calls that must fail with its status, or why it is skipped."""

    function: str
    row: ErrorCase
    cases: tuple[Case, ...] = ()
    skip: str = ""
    unsupported_product: bool = False
    # The status the calls must fail with: the row's, except where CANN's unwritten convention
    # decides (a null pointer is 161001 whatever code the row is listed under).
    status: int = 0
    note: str = ""  # why the status is not the row's
    # Its calls are a rule's calls just outside it (RulePlanner's), whose outputs are those of the base call
    # they vary (the runtime's check_error takes it, as check_refused does).
    varies_base: bool = False


def not_castable_from(dtype: DType) -> Optional[DType]:
    """An expressible dtype that `dtype` cannot be cast to (int8 for a floating input)."""
    return next((d for d in (DType.INT8, DType.BOOL, DType.FLOAT) if not dtype.can_cast(d)), None)


def violation(check: ValueCheck) -> dict[str, Any]:
    """Values of the check's parameters that make its `when` true, as the semantics file states
    them (`violation = { selfIsResult = true, negativeSlope = -0.5 }`): the C++ condition itself
    is not parsed; {} when the file gives none."""
    return {arg.param: arg.value for arg in check.violation}


class ErrorPlanner:
    """The calls that provoke each row of the page's error table from the error rows' base call
    (`BaseCall.error_base`)."""

    def __init__(self, call: BaseCall, rules: Sequence[RuleTest] = ()) -> None:
        self.call = call
        # The tests of the rules the page states (RulePlanner's): a row the error table states as one of them
        # is provoked by its calls.
        self.rules = rules
        self.api = call.api
        self.base = call.base
        self.bound = call.bound
        self.family = call.family

    def tests(self) -> list[ErrorTest]:
        tests = []
        for index, row in enumerate(self.api.errors, start=1):
            if self.call.unallocated:  # every call stops at the bindings, before the library
                function = f"test_error_row{index}_{row.category.value if row.category else 'unclassified'}"
                tests.append(ErrorTest(function, row, skip=self.call.unallocated))
                continue
            if row.category is None and self._stated_by_a_check(row):
                # The page's prose (EluBackward: "参数isResult为True时，alpha小于0。") is a value check
                # of the semantics file: its violating values provoke the row.
                row = replace(row, category=ErrorCategory.VALUE)
            category = row.category.value if row.category else "unclassified"
            function = f"test_error_row{index}_{category}"
            where = f"line {row.line}" if row.line else f"row {index}"
            quoted = f"{where}: {row.code} {row.name}: {row.condition}"
            stated = self._stated_by_a_rule(row) if row.category is None else None
            if stated is not None:
                # "If the data type of y is INT4, the size of the last axis of x is not an even number": the
                # rules reader read the row's sentence as a rule (a divisibility under y's dtype); its calls
                # just outside the rule provoke the row.
                tests.append(ErrorTest(f"test_error_row{index}_rule", row, cases=stated.refused, status=row.code,
                                       note=f"the row states the rule of line {row.line}, broken as its test breaks it",
                                       varies_base=True))
                continue
            if row.category is None:
                tests.append(ErrorTest(function, row, skip=f"unclassified error-table row ({quoted})"))
                continue
            if row.category is ErrorCategory.UNSUPPORTED_PRODUCT:
                tests.append(ErrorTest(function, row, cases=(self.base,), unsupported_product=True))
                continue
            if row.category is ErrorCategory.NULL_POINTER and row.code not in (NULLPTR, PARAM_INVALID):
                # aclnnStack's "561103: 传入的tensors或out是空指针", aclnnRepeat's "561103: kernel执行失败，
                # 中间结果为null": phase 1 answers a null pointer with ACLNN_ERR_PARAM_NULLPTR before
                # any kernel runs; a status of the inner errors cannot be provoked by a null argument.
                tests.append(ErrorTest(function, row, skip=f"a null argument is rejected in phase 1 with {NULLPTR}, "
                                                            f"not the inner error {row.code} ({quoted})"))
                continue
            earlier = next((e for e in self.api.errors[:index - 1]
                            if e.condition == row.condition and e.code != row.code), None)
            if earlier is not None:
                # aclnnInplaceCopy lists "传入的selfRef或src是空指针时" under 161001 and again under
                # 161002: one call cannot give both; the first row is tested.
                tests.append(ErrorTest(function, row, skip=f"the page gives the same condition status {earlier.code} "
                                                            f"at line {earlier.line} ({quoted})"))
                continue
            cases, reason = self._error_cases(row)
            status, note = row.code, ""
            if row.category is ErrorCategory.NULL_POINTER and row.code != NULLPTR:
                # aclnnEqTensor lists "传入的self、other、out是空指针时" under 161002 as well as under
                # 161001: CANN's null checks (OP_CHECK_NULL) come first and return 161001.
                status, note = NULLPTR, f"the page lists it under {row.code}; CANN reports a null pointer as {NULLPTR}"
            # A call without an output the tests cannot pass fails in the bindings, before any row's check.
            needs_base = row.category not in (ErrorCategory.NULL_POINTER, ErrorCategory.UNSUPPORTED_DTYPE,
                                              ErrorCategory.RANK) or bool(self.call.unheld_output)
            if cases and needs_base and self.call.base_known:
                cases, reason = [], self.call.base_known
            tests.append(ErrorTest(function, row, cases=tuple(cases),
                                   skip="" if cases else f"{reason} ({quoted})", status=status, note=note,
                                   varies_base=bool(cases) and row.category is ErrorCategory.VALUE and not reason))
        return tests

    def _stated_by_a_check(self, row: ErrorCase) -> bool:
        """A value check of the row's status whose violating values set parameters the row names, all of
        them; or any, when the row names none but speaks of the attributes (aclnnMoeInitRoutingV3's
        "输入的属性不在支持的范围内", whose constraints section says which attributes and values)."""
        return any(c.status == row.code and c.violation and (row.about_attributes or set(violation(c)) <= set(row.params))
                   for c in self.call.semantics_checks)

    def _stated_by_a_rule(self, row: ErrorCase) -> Optional[RuleTest]:
        """The test of the rule read from the row's own line, answering the row's status on every chip, with
        calls just outside it; None where there is none, and where the line holds other rows or rules (a cell
        of several sentences: aclnnStd's "keepdim为true时 ..." and "keepdim为false时 ...", one reduced-shape
        rule), whose calls need not provoke this row."""
        if not row.line or sum(e.line == row.line for e in self.api.errors) != 1:
            return None
        same_line = [r for r in self.rules if r.line == row.line]
        if len(same_line) != 1:
            return None
        rule = same_line[0]
        return rule if rule.status == row.code and rule.refused and not rule.socs and not rule.skip else None

    def _broken_ranges(self, row: ErrorCase) -> list[Case]:
        """The calls just outside the page's ranges and sets of values (RulePlanner's) of the arguments a value
        row names, under the row's status on every chip: "prob的值不在0和1之间" is broken by prob's range of
        line 107, "dim超出self维度范围" by dim's. The rules read from the row's own line first, where it has any;
        a row naming several arguments (AvgPool2d's "kernelSize、strides存在某维度的值小于等于0") by each one's."""
        ruled = [r for r in self.rules if r.bounds and set(r.bounds) <= set(row.params) and r.status == row.code
                 and r.refused and not r.socs and not r.skip]
        own = [r for r in ruled if r.line == row.line]
        cases: list[Case] = []
        for rule in own or ruled:
            cases += [c for c in rule.refused if c not in cases]
        return cases

    def _named(self, row: ErrorCase) -> list[Param]:
        names_ = {p.name for p in self.api.params}
        return [self.api.param(n) for n in row.params if n in names_]

    def _family_out_shapes(self) -> dict[str, Any]:
        """A family's outputs shaped as its rule shapes them from the base call's input (scatter's
        out: self's base shape), so that an input of another shape disagrees with them."""
        semantics = self.bound.semantics
        if semantics is None or self.family is None or families.output_shape(self.family, semantics.op, "*") != "same":
            return {}
        source = self.bound.family_roles.get("self")
        if source not in self.base.shapes:
            return {}
        return {o.name: self.base.shapes[source] for o in self.call.tensor_outs}

    def _error_cases(self, row: ErrorCase) -> tuple[list[Case], str]:
        category = row.category
        named = self._named(row)
        base = self.call.error_base
        base_dtype, tensor_outs = self.call.base_dtype, self.call.tensor_outs
        if category is ErrorCategory.NULL_POINTER:
            candidates = named or [p for p in self.api.params if p.kind and p.kind.is_pointer]
            inputs = [p for p in candidates if p.kind and p.kind.is_pointer and p.name not in self.call.takes_none
                      and p.direction is not Direction.OUT]
            return ([replace(base, id=f"{p.name}=None", none=base.none + (p.name,)) for p in inputs],
                    "the parameters it names are outputs: out= cannot pass NULL (None allocates them)")
        if category is ErrorCategory.UNSUPPORTED_DTYPE:
            cases = []
            for p in named:
                if p.kind not in (ParamKind.TENSOR, ParamKind.TENSOR_LIST, ParamKind.SCALAR) or not p.documented_dtypes():
                    continue
                if all(d in p.dtypes_for(soc) for soc in Soc for d in EXPRESSIBLE):
                    continue
                if p.name in base.none:  # the valid call leaves it NULL: a NULL has no dtype to get wrong
                    continue
                if p.direction is Direction.OUT:
                    cases.append(replace(base, id=f"{p.name}={UNDOCUMENTED}", out={**base.out, p.name: UNDOCUMENTED}))
                else:
                    # out= given: an output the binding would derive from an undocumented dtype cannot be allocated
                    cases.append(replace(base, id=f"{p.name}={UNDOCUMENTED}", dtypes={**base.dtypes, p.name: UNDOCUMENTED},
                                         out={**base.out, **self._outs_given()}))
            return cases, "every dtype NumPy can hold is documented for the parameters it names"
        if category is ErrorCategory.RANK:
            cases = []
            beyond = False  # a bound no tensor can exceed
            for p in named:
                if p.kind is not ParamKind.TENSOR or p.rank is None:
                    continue
                if p.rank[1] >= MAX_TENSOR_RANK:
                    beyond = True
                    continue
                shape = (1,) * (p.rank[1] + 1 - len(self.call.base_shape)) + self.call.base_shape
                if p.direction is Direction.OUT:
                    cases.append(replace(base, id=f"{p.name}-rank{len(shape)}", out={**base.out, p.name: self._out_dtype(base, p, base_dtype.value)},
                                         out_shapes={**base.out_shapes, p.name: shape}))
                else:
                    # An optional input the valid call leaves out is passed, at the rank out of bounds
                    # (left out, the call stays valid: aclnnGroupedBiasAddGradV2's groupIdxOptional).
                    cases.append(replace(base, id=f"{p.name}-rank{len(shape)}", none=tuple(n for n in base.none if n != p.name),
                                         shapes={**base.shapes, **self._with_same_shape(p, shape)}))
            return cases, (f"aclCreateTensor makes no tensor of more than {MAX_TENSOR_RANK} dimensions" if beyond else
                           "it names no tensor with a documented rank bound")
        if category in (ErrorCategory.SHAPE_MISMATCH, ErrorCategory.BROADCAST):
            cases = []
            for p in named:
                if p.kind is not ParamKind.TENSOR or p.reserved is Reserved.UNUSED:
                    continue  # an unused tensor holds no shape (gen.emit.sim.spec_rows)
                # An optional input the valid call leaves out is passed, at the mismatched shape: left
                # out, the call stays valid (aclnnMoeGatingTopK's biasOptional).
                base_for_p = replace(base, none=tuple(n for n in base.none if n != p.name))
                if p.direction is Direction.OUT:
                    cases.append(replace(base, id=f"{p.name}-shape", out={**base.out, p.name: self._out_dtype(base, p, self.call.out_dtype(p))},
                                         out_shapes={**base.out_shapes, p.name: MISMATCHED_SHAPE}))
                elif len(self.call.tensor_inputs) > 1:
                    pinned = self._family_out_shapes()
                    tied_to = [q for q in named if q is not p and q.kind is ParamKind.TENSOR]
                    if not pinned and tied_to and all(q.direction is Direction.OUT for q in tied_to) and \
                            any(base.out.get(q.name) == AUTO or base.out_shapes.get(q.name) == AUTO for q in tied_to):
                        # The row ties the input to outputs only, and those are of the golden's shape,
                        # which follows the input (aclnnOneHot's out, self's shape with numClasses
                        # inserted): another shape of it disagrees with nothing.
                        continue
                    cases.append(replace(base_for_p, id=f"{p.name}-shape", shapes={**base.shapes, p.name: MISMATCHED_SHAPE},
                                         out={**base.out, **{o: self.call.out_dtype(self.api.param(o)) for o in pinned}},
                                         out_shapes={**base.out_shapes, **pinned}))
                elif tensor_outs:  # the one input against outputs of the base shape (allocated, they would follow it)
                    cases.append(replace(base, id=f"{p.name}-shape", shapes={**base.shapes, p.name: MISMATCHED_SHAPE},
                                         out={**base.out, **self._outs_given()},
                                         out_shapes={**base.out_shapes, **{o.name: self.call.base_shape for o in tensor_outs}}))
            return cases, "it names no tensor whose shape can be made to disagree"
        if category is ErrorCategory.NOT_CASTABLE:
            cases = []
            for p in named:
                if p.kind is not ParamKind.TENSOR:
                    continue
                if p.direction is Direction.OUT:
                    bad = not_castable_from(self.call.result_dtype)
                    if bad is not None:
                        cases.append(replace(base, id=f"{p.name}={bad.value}", out={**base.out, p.name: bad.value}))
                elif p.related(RelationKind.SAME_DTYPE):
                    other = next((d for d in p.documented_dtypes() if d in EXPRESSIBLE and d is not base_dtype), None)
                    if other is not None:
                        cases.append(replace(base, id=f"{p.name}={other.value}", dtypes={**base.dtypes, p.name: other.value}))
            for p in named:
                if p.kind is ParamKind.SCALAR:  # a scalar the computation cannot take ("不可转换为FLOAT")
                    bad = next((d for d in (DType.COMPLEX64, DType.DOUBLE) if not d.can_cast(base_dtype)), None)
                    if bad is not None:
                        cases.append(replace(base, id=f"{p.name}={bad.value}", dtypes={**base.dtypes, p.name: bad.value},
                                             values={**base.values, p.name: 1}))
            return cases, "it names no output to give an uncastable dtype, nor an input bound to the same dtype"
        if category is ErrorCategory.DTYPE_MISMATCH:
            # One named tensor at a dtype its own row documents, the others as in the base call: a
            # dtype valid for the tensor alone, so the status can only come from the mismatch.
            tensors = [p for p in named if p.kind is ParamKind.TENSOR]
            # Those the row ties together, where it also names a tensor another of its clauses
            # speaks of alone (aclnnReluGradV4's "gradOutput 与 out 的数据类型不一致，或 self 不为 uint8").
            tied = [p for p in tensors if any(related(p, q, RelationKind.SAME_DTYPE) for q in tensors if q is not p)]
            tensors = tied if len(tied) > 1 else tensors
            cases = []
            for p in tensors if len(tensors) > 1 else []:
                others = {DType(base.dtypes[q.name]) if q.name in base.dtypes else DType(self.call.out_dtype(q))
                          for q in tensors if q is not p}
                other = next((d for d in p.documented_dtypes() if d in EXPRESSIBLE and d not in others), None)
                if other is None:
                    continue
                if p.direction is Direction.OUT:
                    # The other outputs passed at the dtypes `others` holds: one the bindings allocate
                    # takes the family's (aclnnUniqueConsecutive's inverseOut: INT64), no mismatch.
                    cases.append(replace(base, id=f"{p.name}={other.value}", out={
                        **base.out, **self._outs_given(), p.name: other.value}))
                else:
                    cases.append(replace(base, id=f"{p.name}={other.value}", dtypes={**base.dtypes, p.name: other.value},
                                         out={**base.out, **self._outs_given()}))
            return cases, "it names fewer than two tensors, or none with a second documented dtype"
        if category is ErrorCategory.EMPTY_TENSOR:
            cases = []
            for p in named:
                if p.kind is ParamKind.TENSOR and p.direction is not Direction.OUT and p.empty_tensor is False:
                    # Passed, empty, where the valid call leaves an optional input out (aclnnQuantMatmulV5's x1Scale).
                    cases.append(replace(base, id=f"{p.name}-empty", shapes={**base.shapes, **self._with_same_shape(p, (3, 0))},
                                         none=tuple(n for n in base.none if n != p.name)))
            return cases, "it names no input the page forbids to be empty"
        if category is ErrorCategory.OUTPUT_SIZE:
            return self._output_size_cases(row, base)
        if category is ErrorCategory.FORMAT:
            return [], "NumPy arrays are ND: a format error cannot be provoked from Python"
        if category is ErrorCategory.VALUE:
            checks = [c for c in self.call.semantics_checks if c.status == row.code]
            if not checks:
                broken = self._broken_ranges(row)
                if broken:
                    return broken, ""
                return [], (f"the semantics file states no value check with status {row.code}, and the page no "
                            "range or set of the values it names that the suite can break")
            cases = []
            for check in checks:
                values = violation(check)
                if values and set(values) <= set(base.values):
                    label = ",".join(f"{k}={v}" for k, v in values.items())
                    cases.append(replace(base, id=label, values={**base.values, **values}))
            return cases, ("the semantics file's check is a C++ condition without values that violate it "
                           "(a `violation` table would give them)")
        return [], f"no call is known for category {category.value if category else None}"

    def _output_size_cases(self, row: ErrorCase, base: Case) -> tuple[list[Case], str]:
        """A sliding window wider than its padded input. The pool family's arithmetic
        (aclnn_bindgen/pool_shape.h PooledExtent, which phase 1 applies) sizes an output dimension
        floor((in + 2 * padding - dilation * (kernel - 1) - 1) / stride) + 1 without ceil mode: at
        dilation 1, a kernel of in + 2 * padding + 1 makes it 0 at every stride (-1 // stride is -1),
        and at stride 1 one more makes it -1, for a row that says "小于0". The outputs are left to the
        bindings, whose rule then keeps the input's shape and lets the library judge the window."""
        roles = self.bound.family_roles
        semantics = self.bound.semantics
        spatial = semantics.option("spatial") if semantics else None
        source, kernel = roles.get("self"), roles.get("kernel")
        shape = base.shapes.get(source) if source else None
        window = base.values.get(kernel) if kernel else None
        if self.family is None or self.family.name != "pool" or not spatial or kernel is None or shape is None or \
                not isinstance(window, (tuple, list)) or not window:
            return [], "it is not a sliding window of the pool family whose base call gives the input and the kernel"
        if len(shape) < int(spatial):
            return [], "the base call's input has fewer dimensions than the window pools"
        padding = base.values.get(roles.get("padding", ""), ())
        pad = int(padding[0]) if isinstance(padding, (tuple, list)) and padding else 0
        values: dict[str, Any] = dict(base.values)
        if row.below_zero:
            stride = roles.get("stride")
            if stride is None or stride not in base.values:
                return [], "a negative output size needs a stride of 1, and the call has no stride argument"
            values[stride] = (1,) * len(window)
        dilation, ceil_mode = roles.get("dilation"), roles.get("ceil_mode")
        if dilation is not None and dilation in base.values:
            values[dilation] = (1,) * len(base.values[dilation] or (1,))
        if ceil_mode is not None and ceil_mode in base.values:
            values[ceil_mode] = False
        first = shape[len(shape) - int(spatial)]  # the window's first element pools the first spatial dimension
        values[kernel] = (first + 2 * pad + (2 if row.below_zero else 1),) + tuple(window[1:])
        outs = [plan for plan in self.call.plans if plan.param.direction is Direction.OUT]
        given = {plan.param.name: self.call.out_dtype(plan.param) for plan in outs if plan.required_reason}
        return [replace(base, id=f"{kernel}-wider-than-input", values=values, out=given,
                        out_shapes={name: shape for name in given})], ""

    @staticmethod
    def _out_dtype(base: Case, out: Param, fallback: str) -> str:
        """The dtype of an out= array a shape or rank row gives a wrong shape: the one the error
        base gives it (a family's fixed dtype: an MX scale's FLOAT8_E8M0), so that only its shape is
        wrong, else `fallback`."""
        given = base.out.get(out.name)
        return given if given and given not in (AUTO, UNDOCUMENTED) else fallback

    def _outs_given(self) -> dict[str, str]:
        """Every tensor output passed as out=, in the dtype the base call gives it: a row that changes an
        input's dtype or shape leaves the outputs as they were, so that only the row's condition fails."""
        return {o.name: self.call.out_dtype(o) for o in self.call.tensor_outs}

    def _with_same_shape(self, param: Param, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
        """`shape` for `param` and for the inputs that must have its shape (not those that may broadcast)."""
        same = set(param.related(RelationKind.SAME_SHAPE))
        return {p.name: shape for p in self.call.tensor_inputs if p is param or p.name in same}
