"""One test per rule the page states across parameters (a dtype-combination row, a value range, an
array's length, a dimension equality, a divisibility, a shape rule): calls at its edge that phase 1 accepts, calls
just outside it that phase 1 refuses."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Optional, Sequence

from gen.api.calls import EXPRESSIBLE, SHAPES
from gen.emit.tests.base_call import BaseCall, matches
from gen.emit.tests.cases import AUTO, BASE_RANK, Case, broadcast_shape, with_absences
from gen.emit.tests.errors import NULLPTR, PARAM_INVALID
from gen.ir import (DEFAULT_SOC, ArrayLength, ArrayProduct, Bound, Condition, DimBytes, DimEquality, Direction, Divisibility, DType, DTypeCombination, Extent, PaddedShape, Param, ReducedShape,
                    MAX_RANK, ParamKind, RelationKind, ShapeForm, ShapeRule, Soc, ValueRange, ValueSet, enforced_ranks)


@dataclass(frozen=True)
class RuleTest:
    """The test of one rule the page states across parameters (gen.ir: a dtype-combination row, a
    value range, a dimension equality, a divisibility, a shape rule): calls at its edge that phase 1
    accepts, calls just outside it that phase 1 refuses with `status`, or why it is skipped."""

    function: str
    line: int
    text: str  # the rule, as `python -m gen lint` shows it
    accepted: tuple[Case, ...] = ()
    refused: tuple[Case, ...] = ()
    socs: tuple[str, ...] = ()  # the chips it holds on (() every chip)
    status: int = 0
    skip: str = ""
    # The host arguments whose value it bounds (a value range's, a value set's): an error row that names
    # them under the rule's status is provoked by its refused calls (gen.emit.tests.errors).
    bounds: tuple[str, ...] = ()


class RulePlanner:
    """The calls that test the page's cross-parameter rules, each varying the error rows' base call
    (`BaseCall.error_base`, which the golden tests show valid) in what the rule is about only."""

    def __init__(self, call: BaseCall) -> None:
        self.call = call
        self.api = call.api
        self.base = call.error_base
        semantics = call.bound.semantics
        self.semantics = semantics
        # Outputs whose out= shape the suite can give: the golden's, or the broadcast of related inputs.
        self.golden = bool(semantics and semantics.golden)
        self.shaped_outs = {plan.param.name for plan in call.plans
                            if plan.required_reason is None and plan.shape_from}

    def tests(self) -> list[RuleTest]:
        tests: list[RuleTest] = []
        tests += self.combination_tests()
        tests += self.rank_relation_tests()
        planned: tuple[tuple[str, Sequence[Any], Callable[[Any], tuple[list[Case], list[Case], str]]], ...] = (
            ("value_range", self.api.value_ranges, self.range_cases),
            ("value_set", self.api.value_sets, self.set_cases),
            ("array_length", self.api.array_lengths, self.length_cases),
            ("dim_equality", self.api.dim_equalities, self.dim_cases),
            ("divisibility", self.api.divisibility, self.divisible_cases),
            ("shape_rule", self.api.shape_rules, self.shape_cases),
            ("dim_bytes", self.api.dim_bytes, self.bytes_cases),
            ("array_product", self.api.array_products, self.product_cases),
            ("padded_shape", self.api.padded_shapes, self.padded_cases),
            ("reduced_shape", self.api.reduced_shapes, self.reduced_cases))
        for kind, rules, plan in planned:
            for index, rule in enumerate(rules, start=1):
                function = f"test_rule_line{rule.line}_{kind}{index}"
                elsewhere: list[RuleTest] = []
                accepted, refused, why = plan(rule) if not self.call.base_known else ([], [], self.call.base_known)
                refused = [self._outputs_of_the_valid_call(case) for case in refused]
                # A value rule (or a divisibility) of some chips is tested on them; its status is the
                # error table's.
                valued = isinstance(rule, (ValueRange, ValueSet, Divisibility, DimBytes))
                products = rule.products if valued else ()
                socs = tuple(s.value for s in products)
                if products and DEFAULT_SOC not in products and (accepted or refused):
                    # The base call is the default chip's: another's may refuse its dtypes first, unless
                    # each of its dtypes is documented there too.
                    if not (isinstance(rule, DimBytes) and self._dtypes_documented_on(products[0])):
                        accepted, refused, why = [], [], f"it holds on {', '.join(socs)}, not on the base call's chip"
                    else:
                        socs = (products[0].value,)
                        if refused:
                            # The same call on the default chip, where the rule does not hold: not refused by it.
                            elsewhere.append(RuleTest(f"{function}_elsewhere", rule.line,
                                                  f"{rule.describe()}: not on {DEFAULT_SOC.value}",
                                                  tuple(replace(c, id=f"{c.id}-on-{DEFAULT_SOC.value}") for c in refused),
                                                  (), (DEFAULT_SOC.value,), PARAM_INVALID))
                when = rule.when if isinstance(rule, (ValueRange, ValueSet, Divisibility)) else None
                if when is not None and (accepted or refused) and not self._meets(when):
                    # Another value of the argument may ask for other shapes or values: only a base call
                    # under the condition tests it.
                    accepted, refused, why = [], [], f"the base call does not have {when.param} == {when.value:g}"
                # A dimension equality or a shape rule's shape answers the status of shapes that disagree
                # (an output given where it must be null is no shape: 161002).
                shaped = isinstance(rule, (DimEquality, PaddedShape, ReducedShape)) or isinstance(rule, ShapeRule) and \
                    rule.form not in (ShapeForm.ABSENT, ShapeForm.PRESENT)
                ranked = isinstance(rule, ShapeRule) and rule.form is ShapeForm.RANK
                required = isinstance(rule, ShapeRule) and rule.form is ShapeForm.PRESENT
                padded = isinstance(rule, (PaddedShape, ReducedShape)) and rule.status  # its error row's status, else a shape's
                status = rule.status if valued or padded or isinstance(rule, (ArrayLength, ArrayProduct)) else \
                    self.api.rank_status() if ranked else self.api.shape_status() if shaped else \
                    NULLPTR if required else 0
                tests.append(RuleTest(function, rule.line, rule.describe(), tuple(accepted), tuple(refused), socs,
                                      status=status or PARAM_INVALID,
                                      skip="" if accepted or refused else why,
                                      bounds=(rule.param,) if isinstance(rule, (ValueRange, ValueSet)) else ()))
                tests += elsewhere
        return tests

    def rank_relation_tests(self) -> list[RuleTest]:
        """One test per tensor whose rank the page ties to others' ("维度需要与self和gradInput一致"): the base
        call, and the tensor one dimension wider (a leading 1) where its documented ranks allow it, else
        one narrower (without its first), which phase 1 refuses with the status of shapes that disagree."""
        tests = []
        for index, param in enumerate((p for p in self.api.params if p.related(RelationKind.SAME_RANK)), start=1):
            relation = next(r for r in param.relations if r.kind is RelationKind.SAME_RANK)
            accepted, refused, why = self.rank_relation_cases(param, relation.others) if not self.call.base_known \
                else ([], [], self.call.base_known)
            tests.append(RuleTest(f"test_rule_line{param.line}_same_rank{index}", param.line, relation.describe(param.name),
                                  tuple(accepted), tuple(refused), status=self.api.shape_status() or PARAM_INVALID,
                                  skip="" if accepted or refused else why))
        return tests

    def rank_relation_cases(self, param: Param, others: Sequence[str]) -> tuple[list[Case], list[Case], str]:
        if param.kind is not ParamKind.TENSOR:
            return [], [], f"{param.name} is not one tensor: the suite widens no list's members"
        if any(param.name in (p.name, *r.others) for p in self.api.params
               for r in p.relations if r.kind in (RelationKind.SAME_SHAPE, RelationKind.BROADCAST)):
            # Its shape is tied too: another shape check would refuse the wider tensor first.
            return [], [], f"a shape relation ties {param.name}'s shape too"
        other = next((self._dims(n) for n in others if self._dims(n) is not None), None)
        own = self._dims(param.name) if param.direction is not Direction.OUT else other
        if own is None or other is None:
            return [], [], "the base call does not give the tensors' shapes"
        if len(own) != len(other):
            return [], [], "the base call does not meet it"
        low, high = param.enforced_rank or (0, MAX_RANK)
        if low <= len(own) + 1 <= min(high, MAX_RANK):
            wider = (1, *own)
        elif low <= len(own) - 1:
            wider = own[1:]  # at its documented maximum already: one dimension short instead
        else:
            return [], [], f"{param.name}'s documented ranks are {len(own)} alone"
        label = f"{param.name}-rank{len(wider)}"
        if param.direction is Direction.OUT:
            given = self.base.out.get(param.name)
            refused = replace(self.base, id=label, out={**self.base.out, param.name: given if given not in (None, AUTO)
                                                         else self.call.out_dtype(param)},
                              out_shapes={**self.base.out_shapes, param.name: wider})
        else:
            refused = replace(self.base, id=label, shapes={**self.base.shapes, param.name: wider})
        return [replace(self.base, id="base")], [refused], ""

    def _outputs_of_the_valid_call(self, case: Case) -> Case:
        """A refused call that changes host arguments only passes out= arrays of the valid call's
        outputs (the runtime's out_arrays takes the base's golden for them): left to the bindings,
        an output sized from the changed argument (an inputSize of five values makes a 5-d gradient)
        would be refused by its own rank check before the rule."""
        if not self.golden or case.dtypes != self.base.dtypes or case.shapes != self.base.shapes:
            return case
        sized = {p.name: AUTO for p in self.call.tensor_outs if p.name not in case.out and p.name not in case.none}
        return replace(case, out={**case.out, **sized}) if sized else case

    def _meets(self, when: Condition) -> bool:
        value = self.base.values.get(when.param)
        return isinstance(value, (int, float)) and float(value) == when.value

    # -- dtype combinations -------------------------------------------------------------------------

    def combination_tests(self) -> list[RuleTest]:
        """One call per row (with that row's dtypes, on a chip it holds on), and one call whose
        dtypes are each documented for their parameter on the default chip but together are no
        row of that chip's: refused."""
        tests: list[RuleTest] = []
        accepted_on_default: list[tuple[DTypeCombination, Case]] = []
        for index, row in enumerate(self.api.dtype_combinations, start=1):
            socs = tuple(s.value for s in row.products)
            function = f"test_rule_line{row.line}_dtype_combination{index}"
            case, why = self.combination_case(row) if not self.call.base_known else (None, self.call.base_known)
            tests.append(RuleTest(function, row.line, row.describe(), (case,) if case else (), (), socs,
                                  PARAM_INVALID, "" if case else why))
            if case is not None and row.applies_to(DEFAULT_SOC):
                accepted_on_default.append((row, case))
        if accepted_on_default:
            refused = self.uncombined(accepted_on_default)
            row = accepted_on_default[0][0]
            socs = (DEFAULT_SOC.value,) if any(r.products for r in self.api.dtype_combinations) else ()
            tests.append(RuleTest("test_rule_dtype_combination_not_listed", row.line,
                                  f"dtypes each documented but in no combination of the table at line {row.line}",
                                  (), (refused,) if refused else (), socs, PARAM_INVALID,
                                  "" if refused else "every combination of documented dtypes is a row of the table"))
        return tests

    def combination_case(self, row: DTypeCombination) -> tuple[Optional[Case], str]:
        base = self.base
        dtypes, values, out = dict(base.dtypes), dict(base.values), dict(base.out)
        shapes: dict[str, Any] = dict(base.shapes)
        out_shapes: dict[str, Any] = dict(base.out_shapes)
        none = list(base.none)
        for cell in row.cells:
            param = self.api.param(cell.param)
            dtype = next((d for d in cell.dtypes if d in EXPRESSIBLE), None)
            if dtype is None and cell.dtypes and not cell.absent and not cell.same_as:
                return None, f"NumPy cannot hold {cell.param}'s {'/'.join(d.value for d in cell.dtypes)}"
            if dtype is None and cell.same_as:
                same = dtypes.get(cell.same_as) or out.get(cell.same_as) or values.get(cell.same_as)
                dtype = DType(same) if same and same != AUTO else None
            if dtype is None:  # "null" alone: the parameter left out, where it may be
                if cell.absent and param.name in self.call.takes_none and param.direction is not Direction.OUT:
                    none.append(param.name)
                    continue
                if cell.absent and param.direction is Direction.OUT:
                    return None, f"the row has {cell.param} NULL, which out= cannot pass"
                return None, f"the row gives {cell.param} no dtype the suite can pass"
            if param.direction is Direction.OUT:
                if param.kind is not ParamKind.TENSOR and not self.golden:
                    # A list's members are shaped by the golden only (one out= array each).
                    return None, f"{cell.param} is an output list, which the suite shapes by the golden only"
                if not self.golden and param.name not in self.shaped_outs:
                    return None, f"the suite cannot shape {cell.param} without a golden"
                out[param.name] = dtype.value
                if self.golden:
                    out_shapes[param.name] = AUTO
            elif param.kind is ParamKind.DTYPE:
                values[param.name] = dtype.value
            elif param.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST, ParamKind.SCALAR):
                if param.name in none:
                    none.remove(param.name)
                if param.name not in shapes and param.kind is not ParamKind.SCALAR:
                    # An optional tensor the base call leaves out: the semantics file's shape for it.
                    shape = self.semantics.optional_shape(param.name) if self.semantics else None
                    if shape is None:
                        return None, f"the base call gives {cell.param} no shape"
                    shapes[param.name] = (tuple(tuple(s) for s in shape) if param.kind is ParamKind.TENSOR_LIST
                                          else tuple(shape))
                dtypes[param.name] = dtype.value
        case = replace(base, id=f"line{row.line}", dtypes=dtypes, shapes=shapes, values=values, out=out,
                       out_shapes=out_shapes, none=tuple(none))
        # The chip the test runs on may ask its tensors for more bytes than the base call's dtypes needed.
        return self.call.bytes_kept(case), ""

    def uncombined(self, accepted: list[tuple[DTypeCombination, Case]]) -> Optional[Case]:
        """A row's call with one input's dtype changed to another its own row documents on the
        default chip, so that no row of that chip matches: only the table can refuse it."""
        rows = [r for r in self.api.dtype_combinations if r.applies_to(DEFAULT_SOC)]
        row, case = accepted[0]
        for cell in row.cells:
            param = self.api.param(cell.param)
            if param.direction is Direction.OUT or param.kind is not ParamKind.TENSOR or param.name not in case.dtypes:
                continue
            for dtype in param.dtypes_for(DEFAULT_SOC):
                if dtype not in EXPRESSIBLE or dtype.value == case.dtypes[param.name]:
                    continue
                assignment = {**self.call.dtype_assignment(case), param.name: dtype}
                if not any(matches(r, assignment) for r in rows):
                    return replace(case, id=f"{param.name}={dtype.value}", dtypes={**case.dtypes, param.name: dtype.value})
        return None

    # -- value ranges --------------------------------------------------------------------------------

    def _bound(self, bound: Optional[Bound], high: bool = False, array: Any = None) -> Optional[int]:
        """What a bound stands for in the base call (None: unbounded, or not known); for an element
        bound (which bounds each element by the same one of another array: the first elements of
        both are the ones the cases vary), the integers' edge below it (`high`) or above it."""
        if bound is None:
            return None
        extent: float = 0
        if bound.extent is Extent.ELEMENT:
            other = self.base.values.get(bound.tensor)
            if not isinstance(other, (tuple, list)) or not other or not isinstance(other[0], int):
                return None
            quotient = bound.offset + bound.sign * other[0] / bound.divisor
            if float(quotient).is_integer():
                return int(quotient)
            # Between two integers: the one whose edge (inclusive or not, as range_cases reads it) is inside.
            return math.floor(quotient) + (0 if bound.inclusive else 1) if high else \
                math.ceil(quotient) - (0 if bound.inclusive else 1)
        if bound.extent in (Extent.NUMBER, Extent.VALUE):
            number = self._number_bound(bound)
            if number is None:
                return None
            extent = number
        else:
            shape = self.base.shapes.get(bound.tensor)
            if not isinstance(shape, tuple) or not all(isinstance(d, int) for d in shape):
                return None
            if bound.extent is Extent.RANK:
                extent = max(len(shape), 1)
            elif bound.extent is Extent.DIMENSION:
                # The cases vary the first element: the first dimension the array stands for, or every
                # one of them for a one-element array (the nearest edge of them all).
                if not -len(shape) <= int(bound.axis) or not isinstance(array, (tuple, list)):
                    return None
                spread = shape[int(bound.axis):] if len(array) == 1 else shape[int(bound.axis):][:1]
                extent = min(spread) if high else max(spread)
            else:
                axis = int(bound.axis) if bound.axis.lstrip("-").isdigit() else self.base.values.get(bound.axis)
                if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
                    return None
                extent = shape[axis]
        value = bound.offset + bound.sign * extent
        return int(value) if float(value).is_integer() else None

    def range_cases(self, rule: ValueRange) -> tuple[list[Case], list[Case], str]:
        param = self.api.param(rule.param)
        current = self.base.values.get(rule.param)
        integral_scalar = param.kind is ParamKind.SCALAR and isinstance(current, int) and not isinstance(current, bool)
        real = param.kind is ParamKind.FLOAT or param.kind is ParamKind.SCALAR and isinstance(current, float)
        if param.direction is Direction.OUT or \
                param.kind not in (ParamKind.INT, ParamKind.INT_ARRAY) and not integral_scalar and not real:
            return [], [], f"{rule.param} is no number the suite sets"
        if real:
            return self.real_range_cases(rule)
        if param.kind is ParamKind.INT_ARRAY and not current:
            return [], [], f"the base call gives {rule.param} no element"
        low, high = self._bound(rule.low, array=current), self._bound(rule.high, high=True, array=current)
        edges = []
        if low is not None and rule.low is not None:
            edge = low if rule.low.inclusive else low + 1
            edges.append((edge, edge - 1))
        if high is not None and rule.high is not None:
            edge = high if rule.high.inclusive else high - 1
            edges.append((edge, edge + 1))
        if not edges:
            return [], [], "its bounds cannot be evaluated on the base call"
        # A number bounding an argument of a kernel family (a pool's kernel, a group count, a step) is
        # one of the conditions the family's arithmetic ties to the shapes and the other arguments:
        # its edge alone is no valid call in general; outside it, the call is refused whatever the rest.
        tied = self.call.family is not None and all(
            b is None or b.extent in (Extent.NUMBER, Extent.VALUE, Extent.ELEMENT) for b in (rule.low, rule.high))
        accepted: list[Case] = []
        refused: list[Case] = []
        for inside, outside in edges:
            for value, bucket in ((inside, accepted), (outside, refused)):
                given: Any = value
                if param.kind is ParamKind.INT_ARRAY and isinstance(current, tuple):
                    # the first element the rule bounds at the edge, the others as they were
                    at = self._first_bounded(rule, len(current))
                    if at is None:
                        return [], [], f"the base call's {rule.param} has none of the elements it bounds"
                    given = current[:at] + (value,) + current[at + 1:]
                    if value in given[:at] + given[at + 1:]:
                        continue
                if bucket is accepted and given != current and (tied or rule.param in self.call.shape_arguments):
                    continue  # valid only with the tensors' shapes changed to follow it
                if bucket is refused and tied and value < 0 and rule.param in self.call.output_dims_arguments:
                    continue  # the bindings cannot size an output of a negative extent to call with
                case = replace(self.base, id=f"{rule.param}={value}", values={**self.base.values, rule.param: given})
                if case not in bucket:
                    bucket.append(case)
        return accepted, refused, ""

    def real_range_cases(self, rule: ValueRange) -> tuple[list[Case], list[Case], str]:
        """A real argument (a float, a floating aclScalar) at each bound the base call evaluates (accepted where
        the bound is inclusive), a step beyond it (refused), and NaN where a bound is a number (refused: a NaN
        lies in no range of numbers, gen.ir.ValueRange.refuses). The step is half a unit, exact in float and
        double alike, or a millionth of the bound where half a unit would be lost in a float's rounding."""
        low, high = self._real_bound(rule.low), self._real_bound(rule.high)
        # A value check of the semantics file on the argument refuses some of what the range admits, with its
        # written reason (aclnnCrossEntropyLoss's lseSquareScaleForZloss, [0, 1) but "当前暂不支持"): the
        # range's inside is not the page's alone to say.
        checked = any(arg.param == rule.param for c in self.call.semantics_checks for arg in c.violation)
        accepted: list[Case] = []
        refused: list[Case] = []
        for edge, bound, sign in ((low, rule.low, -1), (high, rule.high, 1)):
            if edge is None or bound is None:
                continue
            step = 0.5 if abs(edge) < 2 ** 20 else abs(edge) * 1e-6
            inside = edge if bound.inclusive else edge - sign * step
            for value, bucket in ((inside, [] if checked else accepted),
                                  (edge + sign * step if bound.inclusive else edge, refused)):
                case = self._with_value(rule.param, value)
                if case not in bucket:
                    bucket.append(case)
        if any(b is not None and b.extent is Extent.NUMBER for b in (rule.low, rule.high)):
            refused.append(self._with_value(rule.param, math.nan))
        if not accepted and not refused:
            return [], [], "its bounds cannot be evaluated on the base call"
        return accepted, refused, ""

    def _real_bound(self, bound: Optional[Bound]) -> Optional[float]:
        """What a bound of a real argument stands for in the base call: a number, or another argument's value."""
        if bound is None or bound.extent not in (Extent.NUMBER, Extent.VALUE):
            return None
        number = self._number_bound(bound)
        return None if number is None else float(bound.offset + bound.sign * number / bound.divisor)

    def _number_bound(self, bound: Bound) -> Optional[float]:
        """The number a bound of a number or of another argument's value measures from (0 for a number, the
        argument's value in the base call); None where the base call gives that argument no number."""
        if bound.extent is Extent.NUMBER:
            return 0
        other = self.base.values.get(bound.tensor)
        return None if not isinstance(other, (int, float)) or isinstance(other, bool) else other

    def _with_value(self, name: str, value: float) -> Case:
        return replace(self.base, id=f"{name}={value:g}", values={**self.base.values, name: value})

    @staticmethod
    def _first_bounded(rule: ValueRange, length: int) -> Optional[int]:
        """The position of the first element of an array of `length` that the rule bounds (None: none)."""
        if rule.elements is None:
            return 0 if length else None
        first, count = rule.elements
        at = length + first if first < 0 else first
        return at if 0 <= at < length and count > 0 else None

    def set_cases(self, rule: ValueSet) -> tuple[list[Case], list[Case], str]:
        """The base call with the argument at its set's values (accepted where the argument shapes
        nothing) and at the least integer above the set's largest that is not in it (refused)."""
        param = self.api.param(rule.param)
        current = self.base.values.get(rule.param)
        if param.kind not in (ParamKind.INT, ParamKind.INT_ARRAY) or param.direction is Direction.OUT:
            return [], [], f"{rule.param} is no integer argument the suite sets"
        if param.kind is ParamKind.INT_ARRAY and not current:
            return [], [], f"the base call gives {rule.param} no element"

        def given(value: int) -> Any:
            return (value,) + current[1:] if param.kind is ParamKind.INT_ARRAY and isinstance(current, tuple) else value

        first = current[0] if param.kind is ParamKind.INT_ARRAY and isinstance(current, tuple) else current
        accepted: list[Case] = []
        if first in rule.values:
            accepted.append(replace(self.base, id=f"{rule.param}={first}"))
        # A gap of the set between its values where it has one (the value a range would admit), else
        # past its largest.
        gaps = [v for v in range(rule.values[0] + 1, rule.values[-1]) if v not in rule.values]
        outside = gaps[0] if gaps else rule.values[-1] + 1
        refused = [replace(self.base, id=f"{rule.param}={outside}",
                           values={**self.base.values, rule.param: given(outside)})]
        return accepted, refused, ""

    def length_cases(self, rule: ArrayLength) -> tuple[list[Case], list[Case], str]:
        """The array with its last element repeated up to the least length above its own that the
        rule does not list (refused): elements the page's other rules admit, so that only the length
        can be refused. No accepted call: the base call is one, which the golden tests run."""
        param = self.api.param(rule.param)
        current = self.base.values.get(rule.param)
        if param.kind not in (ParamKind.INT_ARRAY, ParamKind.BOOL_ARRAY, ParamKind.FLOAT_ARRAY) or \
                param.direction is Direction.OUT:
            return [], [], f"{rule.param} is no array the suite sets"
        if not isinstance(current, tuple) or not current:
            return [], [], f"the base call gives {rule.param} no element"
        if len(current) not in rule.lengths:
            return [], [], "the base call does not meet it"
        longer = next(n for n in range(len(current) + 1, rule.lengths[-1] + 2) if n not in rule.lengths)
        refused = replace(self.base, id=f"{rule.param}-length{longer}",
                          values={**self.base.values, rule.param: current + (current[-1],) * (longer - len(current))})
        return [], [refused], ""

    def product_cases(self, rule: ArrayProduct) -> tuple[list[Case], list[Case], str]:
        """The array as the tensor's last dimensions with one of them a step smaller (refused: its product
        falls short by that dimension's cofactor), its elements still positive. No accepted call but the
        base call: another array would size the outputs anew."""
        param, shape, current = self.api.param(rule.param), self._dims(rule.tensor), self.base.values.get(rule.param)
        if param.kind is not ParamKind.INT_ARRAY or not isinstance(current, tuple) or shape is None:
            return [], [], f"the base call gives no {rule.param} or no shape of {rule.tensor}"
        if rule.refuses(current, shape) or len(shape) < rule.last or len(current) != rule.last:
            return [], [], "the base call does not meet it"
        dims = list(shape[-rule.last:])
        at = next((k for k in reversed(range(len(dims))) if dims[k] >= 2), None)
        if at is None:
            return [], [], f"{rule.tensor}'s dimensions are all 1: no positive elements fall short of them"
        dims[at] -= 1
        refused = replace(self.base, id=f"{rule.param}-product{math.prod(dims)}", values={**self.base.values, rule.param: tuple(dims)})
        return [replace(self.base, id="base")], [refused], ""

    def padded_cases(self, rule: PaddedShape) -> tuple[list[Case], list[Case], str]:
        """The output at the padded shape (accepted), and with its last dimension one longer (refused:
        not the input's widened by its pair)."""
        shape, padding = self._dims(rule.tensor), self.base.values.get(rule.padding)
        if shape is None or not isinstance(padding, tuple):
            return [], [], f"the base call gives no shape of {rule.tensor} or no {rule.padding}"
        want = rule.expected(shape, padding)
        given = self.base.out_shapes.get(rule.param)
        if want is None or (isinstance(given, tuple) and given != want):
            return [], [], "the base call does not meet it"
        wider = (*want[:-1], want[-1] + 1)
        accepted = replace(self.base, id="padded", out={**self.base.out, rule.param: self.call.out_dtype(self.api.param(rule.param))},
                           out_shapes={**self.base.out_shapes, rule.param: want})
        refused = replace(accepted, id=f"{rule.param}-dim-1={wider[-1]}", out_shapes={**self.base.out_shapes, rule.param: wider})
        return [accepted], [refused], ""

    def reduced_cases(self, rule: ReducedShape) -> tuple[list[Case], list[Case], str]:
        """The output in the form keepdim asks for (accepted; the other form, which phase 1 accepts too by
        gen.conventions 4., is tests/families/test_phase1_page_rules.py's: the golden has keepdim's form),
        and the kept form with its last dimension one longer (refused: neither form)."""
        shape, dims, keepdim = self._dims(rule.tensor), self.base.values.get(rule.dims), self.base.values.get(rule.keepdim)
        if shape is None or not shape or not isinstance(keepdim, bool):
            return [], [], f"the base call gives no shape of {rule.tensor} with dimensions, or no {rule.keepdim}"
        named = (dims,) if isinstance(dims, int) else dims if isinstance(dims, tuple) else None
        forms = rule.forms(shape, named)
        if forms is None:
            return [], [], f"the base call's {rule.dims} is out of range"
        kept, dropped = forms
        want = kept if keepdim else dropped
        out = {**self.base.out, rule.param: self.call.out_dtype(self.api.param(rule.param))}
        accepted = [replace(self.base, id="reduced", out=out, out_shapes={**self.base.out_shapes, rule.param: want})]
        wider = (*kept[:-1], kept[-1] + 1)
        refused = replace(self.base, id=f"{rule.param}-dim-1={wider[-1]}", out=out,
                          out_shapes={**self.base.out_shapes, rule.param: wider})
        return accepted, [refused], ""

    # -- dimensions ----------------------------------------------------------------------------------

    def _dims(self, name: str) -> Optional[tuple[int, ...]]:
        shape = self.base.shapes.get(name)
        return shape if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape) else None

    def dim_cases(self, rule: DimEquality) -> tuple[list[Case], list[Case], str]:
        a, b = self._dims(rule.param), self._dims(rule.other)
        if a is None or b is None:
            return [], [], "the base call does not give both tensors' shapes"
        if not (-len(a) <= rule.axis < len(a) and -len(b) <= rule.other_axis < len(b)):
            return [], [], "the base call's tensors lack the dimensions it names"
        if a[rule.axis] != b[rule.other_axis]:
            return [], [], "the base call does not meet it"
        changed = list(a)
        changed[rule.axis] += 1
        refused = replace(self.base, id=f"{rule.param}-dim{rule.axis}", shapes={**self.base.shapes,
                                                                                rule.param: tuple(changed)})
        return [replace(self.base, id="base")], [refused], ""

    def divisible_cases(self, rule: Divisibility) -> tuple[list[Case], list[Case], str]:
        base = self.base
        if rule.when_dtype is not None and not rule.when_dtype.meets(self.call.dtype_assignment(base)):
            # Another dtype may ask for other shapes: only a call under the condition tests it, the base call
            # with the output or the input the condition names in its dtype (an INT4 y, dstType 29).
            met = self.call.meeting(rule.when_dtype, base)
            if met is None:
                return [], [], f"the base call does not meet it {rule.when_dtype.describe()}"
            base = met
        shape = self._dims(rule.param)
        divisor = int(rule.divisor) if rule.divisor.isdigit() else base.values.get(rule.divisor)
        if shape is None or rule.axis is None or not isinstance(divisor, int) or divisor < 2:
            return [], [], "the base call does not give the tensor's shape or the divisor"
        if not -len(shape) <= rule.axis < len(shape) or shape[rule.axis] % divisor:
            return [], [], "the base call does not meet it"
        changed = list(shape)
        changed[rule.axis] += 1
        refused = replace(base, id=f"{rule.param}-dim{rule.axis}={changed[rule.axis]}",
                          shapes={**base.shapes, rule.param: tuple(changed)})
        return [replace(base, id="base" if base is self.base else base.id)], [refused], ""

    def _dtypes_documented_on(self, soc: Soc) -> bool:
        """Whether each dtype of the base call is one its parameter documents on `soc`."""
        return all(dtype in self.api.param(name).dtypes_for(soc) for name, dtype in self.call.dtype_assignment(self.base).items()
                   if self.api.param(name).kind is ParamKind.TENSOR)

    def bytes_cases(self, rule: DimBytes) -> tuple[list[Case], list[Case], str]:
        # One sentence names several tensors whose last axes agree: its first tensor's test changes them
        # all (so that only the byte rule refuses the call); the others' would be the same call.
        group = [r for r in self.api.dim_bytes if r.line == rule.line and r.products == rule.products]
        if group[0] is not rule:
            return [], [], f"the same call as {group[0].param}'s test of the line"
        assignment = self.call.dtype_assignment(self.base)
        shape, dtype = self._dims(rule.param), assignment.get(rule.param)
        if rule.axis != -1 and not (rule.axis is None and shape is not None and len(shape) == 1):
            # The whole of a 1-D tensor is its last axis.
            return [], [], "only a last axis's size is followed by the other tensors'"
        least = rule.least_size(dtype) if dtype is not None else None
        step = rule.size_step(dtype) if dtype is not None else None
        if not shape or least is None or step is None:
            return [], [], "the base call does not give the tensor's shape and whole-byte dtype"
        for other in group:
            dims, other_dtype = self._dims(other.param), assignment.get(other.param)
            if not dims or other_dtype is None or not other_dtype.size:
                continue
            if dims[-1] < (other.least_size(other_dtype) or 0) or dims[-1] % (other.size_step(other_dtype) or 1):
                return [], [], f"the base call does not meet it ({other.param}'s last dimension)"
        # Short of the least length, or one element past an aligned one (the least length kept).
        broken = least - 1 if rule.minimum and least > 1 else shape[-1] + 1 if step > 1 else None
        if broken is None:
            return [], [], "no other size of the dimension breaks it"
        # The tensors whose last axis is the same size follow (beta with x and gamma): only the byte rule
        # then refuses the call, which the same call on a chip it does not hold on shows (`_elsewhere`).
        shapes = dict(self.base.shapes)
        for name in self.base.shapes:
            dims = self._dims(name)
            if dims and dims[-1] == shape[-1]:
                shapes[name] = (*dims[:-1], broken)
        refused = replace(self.base, id=f"{rule.param}-dim-1={broken}", shapes=shapes)
        return [replace(self.base, id="base")], [refused], ""

    # -- shape rules ---------------------------------------------------------------------------------

    def shape_cases(self, rule: ShapeRule) -> tuple[list[Case], list[Case], str]:
        param = self.api.param(rule.param)
        if param.direction is Direction.OUT and param.kind is not ParamKind.TENSOR:
            return [], [], f"{rule.param} is an output list"
        if rule.when_dtype is not None:
            # The base call's dtypes decide: a rule under another dtype is not provoked by this call.
            carried = {n: d for n in rule.when_dtype.params if (d := self._carried(n)) is not None}
            if not rule.meets(carried):
                return [], [], "the base call's dtypes do not meet the condition"
            label, values = "-".join(f"{n}={d.value}" for n, d in carried.items()), dict(self.base.values)
        else:
            value = _condition_value(self.api.param(rule.when), rule)
            if value is None:
                return [], [], f"no value of {rule.when} is known to meet the condition"
            label, values = f"{rule.when}={value}", {**self.base.values, rule.when: value}
        if rule.form is ShapeForm.ABSENT:
            # Passed as None under the condition; given anyway, refused.
            given = replace(self.base, id=f"{label}-{rule.param}-given", values=values,
                            none=tuple(n for n in self.base.none if n != rule.param))
            if rule.param not in given.shapes and rule.param not in given.out:
                return [], [], f"the base call does not give {rule.param}"
            return [with_absences(replace(given, id=f"{label}"), self.api)], [given], ""
        if rule.form is ShapeForm.PRESENT:
            if param.direction is Direction.OUT:
                return [], [], f"the bindings allocate {rule.param}: a null one cannot be passed"
            # Given under the condition; a null pointer, refused.
            required = replace(self.base, id=f"{label}", values=values)
            if rule.param not in required.shapes:
                return [], [], f"the base call does not give {rule.param}"
            return [required], [replace(required, id=f"{label}-{rule.param}-null",
                                        none=tuple(dict.fromkeys((*required.none, rule.param))))], ""
        if rule.form is ShapeForm.RANK:
            return self._rank_cases(rule, param, label, values)
        if rule.form is ShapeForm.SCALAR:
            # One element, of the least rank the page allows (aclnnDynamicQuantV4's pertensor
            # scaleOut, of rank 1-7: (1,)).
            shape: tuple[int, ...] = (1,) * (param.enforced_rank[0] if param.enforced_rank else 0)
            wrong: tuple[int, ...] = SHAPES[BASE_RANK]
        else:
            shapes = [self._dims(n) for n in rule.others]
            if any(s is None for s in shapes):
                return [], [], "the base call does not give the tensors' shapes"
            shape = functools.reduce(broadcast_shape, shapes, ())  # type: ignore[arg-type]
            wrong = (1,) if shape and functools.reduce(lambda x, y: x * y, shape, 1) != 1 else (2,)
        if param.direction is not Direction.OUT:
            # A rule on an input (a backward's gradOutput: one element once the forward reduced)
            # shapes the input itself.
            accepted = replace(self.base, id=f"{label}", values=values,
                               shapes={**self.base.shapes, rule.param: shape})
            return [accepted], [replace(accepted, id=f"{label}-{rule.param}{list(wrong)}",
                                        shapes={**self.base.shapes, rule.param: wrong})], ""
        dtype = self.call.out_dtype(param)
        accepted = replace(self.base, id=f"{label}", values=values, out={**self.base.out, rule.param: dtype},
                           out_shapes={**self.base.out_shapes, rule.param: shape})
        refused = replace(accepted, id=f"{label}-{rule.param}{list(wrong)}",
                          out_shapes={**self.base.out_shapes, rule.param: wrong})
        return [accepted], [refused], ""

    def _carried(self, name: str) -> Optional[DType]:
        """The dtype the base call gives a tensor (an output: the one shape_cases passes)."""
        param = self.api.param(name)
        text = self.call.out_dtype(param) if param.direction is Direction.OUT else self.base.dtypes.get(name)
        return next((d for d in DType if d.value == text), None)

    def _rank_cases(self, rule: ShapeRule, param: Param, label: str, values: dict) -> tuple[list[Case], list[Case], str]:
        """The base call under the condition, and the tensor one dimension short of (or past) the
        rule's ranks where the table's own ranks allow that rank: the rule, not the table, refuses it.
        The tensors of the base call's shape follow it (x and y of one shape)."""
        shape = self._dims(rule.param)
        if shape is None:
            return [], [], f"the base call does not give {rule.param}'s shape"
        low, high = enforced_ranks(rule.ranks)
        if not low <= len(shape) <= high:
            return [], [], f"the base call's {rule.param} is of rank {len(shape)}"
        table = param.enforced_rank or (0, MAX_RANK)
        wrong = next((r for r in (low - 1, high + 1) if 0 <= r <= MAX_RANK and table[0] <= r <= table[1]), None)
        if wrong is None:
            return [], [], "the table's ranks are the rule's"
        accepted = replace(self.base, id=f"{label}", values=values)
        moved = SHAPES[wrong]
        shapes = {n: moved if self._dims(n) == shape else dims for n, dims in self.base.shapes.items()}
        out_shapes = {n: moved if dims == shape else dims for n, dims in self.base.out_shapes.items()}
        refused = replace(accepted, id=f"{label}-{rule.param}-rank{wrong}", shapes=shapes,
                          out_shapes=out_shapes)
        return [accepted], [refused], ""


def _condition_value(when: Param, rule: ShapeRule) -> Any:
    """A value of the host argument that makes the rule hold: one of its values, or for a negated
    rule on a reduction, another of CANN's reductions (none/mean/sum, 0/1/2)."""
    if when.kind is ParamKind.BOOL:
        held = [v for v in (True, False) if rule.holds(v)]
        return held[0] if held else None
    if not rule.negated:
        value = rule.values[0]
        return int(value) if when.kind is ParamKind.INT and value.lstrip("-").isdigit() else (
            value if when.kind is ParamKind.STRING else None)
    if "reduction" not in when.name.lower():
        return None
    choices = ("0", "1", "2") if when.kind is ParamKind.INT else ("none", "mean", "sum")
    left = [c for c in choices if c not in rule.values]
    if not left:
        return None
    return int(left[0]) if when.kind is ParamKind.INT else left[0]
