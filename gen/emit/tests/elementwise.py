"""The cases of an API whose tensors' shapes are all related (an elementwise op): dtype promotion,
out= dtypes and layouts, every documented rank, non-contiguous and empty inputs, broadcasting, each
scalar dtype."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Optional

from gen.api.calls import EXPRESSIBLE, SHAPES
from gen.emit.tests.base_call import BaseCall, related
from gen.emit.tests.cases import (NONCONTIGUOUS_LAYOUTS, OUT_LAYOUTS, Case, CaseGroup, broadcast_shape, fits,
                                  layout_dtypes, scalar_value)
from gen.ir import API, Direction, Param, ParamKind, RelationKind, ValueRange, ValueSet

# (first, second) shapes that broadcast, for two inputs whose page allows it.
BROADCAST_PAIRS = (((3, 1), (1, 4)), ((1, 4), (3, 1)), ((2, 3, 4), (4,)), ((4,), (2, 3, 4)), ((), (3, 4)),
                   ((3, 4), ()), ((2, 1, 4), (3, 1)))
EMPTY_SHAPES = ((0,), (2, 0, 3))


def _pair(api: API, kind: RelationKind, stricter: RelationKind) -> Optional[tuple[Param, Param]]:
    """The first two tensor inputs the page relates by `kind`, unless it also relates them by
    the `stricter` relation (a page that says both is read strictly, as the simulator does)."""
    for p in api.inputs:
        for other in p.related(kind):
            q = next((x for x in api.inputs if x.name == other and x.kind is ParamKind.TENSOR), None)
            if p.kind is ParamKind.TENSOR and q is not None and not related(p, q, stricter):
                return p, q
    return None


def broadcast_pair(api: API) -> Optional[tuple[Param, Param]]:
    """Two tensor inputs whose shapes may differ and broadcast."""
    return _pair(api, RelationKind.BROADCAST, RelationKind.SAME_SHAPE)


def promote_pair(api: API) -> Optional[tuple[Param, Param]]:
    """Two tensor inputs whose dtypes may differ and promote."""
    return _pair(api, RelationKind.PROMOTE, RelationKind.SAME_DTYPE)


def within_ranges(api: API, values: Mapping[str, Any]) -> bool:
    """Whether host `values` meet the API's value ranges bounded by numbers or by other values
    (those bounded by shapes are the range cases' business)."""
    numbers = {name: float(v) for name, v in values.items() if isinstance(v, (int, float))}
    rules: tuple[ValueRange | ValueSet, ...] = (*api.value_ranges, *api.value_sets)
    return not any(rule.param in numbers and rule.refuses(numbers[rule.param], numbers) for rule in rules)


class ElementwiseCases:
    """The valid calls of an API whose shapes may vary freely, each the base call changed in one respect."""

    def __init__(self, call: BaseCall) -> None:
        self.call = call
        self.api = call.api
        self.base = call.base

    def groups(self) -> list[CaseGroup]:
        groups = []
        for name, title, cases in (
            ("promotion", "Inputs of different dtypes, promoted (the page's 互推导关系)", self.promotion_cases()),
            ("out_dtypes", "out= of each documented dtype the result casts to", self.out_dtype_cases()),
            ("ranks", "Every documented rank, in every dtype", self.rank_cases()),
            ("layouts", "Non-contiguous inputs (transposed, strided, offset) in every dtype, and device-resident ones",
             self.layout_cases()),
            ("out_layouts", "Non-contiguous out= arrays", self.out_layout_cases()),
            ("empty", "Empty tensors", self.empty_cases()),
            ("broadcast", "Inputs whose shapes broadcast", self.broadcast_cases()),
            ("scalar_dtypes", "NumPy scalars of each documented scalar dtype", self.scalar_cases()),
            ("attributes", "Each value of a bool attribute", self.call.attribute_cases()),
        ):
            if cases:
                groups.append(CaseGroup(name, title, tuple(cases)))
        return groups

    def promotion_cases(self) -> list[Case]:
        pair = promote_pair(self.api)
        if pair is None:
            return []
        a, b = pair
        # Not every pair (12 dtypes give 132): each dtype against the base dtype in both places,
        # and each with the next one listed (integral with integral, 16-bit with 16-bit, ...).
        listed_a = [d for d in a.documented_dtypes() if d in EXPRESSIBLE]
        listed_b = [d for d in b.documented_dtypes() if d in EXPRESSIBLE]
        pairs = [(self.call.base_dtype, d) for d in listed_b] + [(d, self.call.base_dtype) for d in listed_a]
        pairs += [(da, db) for da, db in zip(listed_a, listed_b[1:])]
        cases = []
        for da, db in dict.fromkeys(pairs):
            if da is db or da not in listed_a or db not in listed_b:
                continue
            if a.direction is Direction.INOUT and not db.can_cast(da):
                continue  # the promoted result cannot be written back into selfRef: an error, not a golden
            dtypes = {**self.call.uniform_dtypes(self.call.base_dtype), a.name: da.value, b.name: db.value}
            cases.append(replace(self.base, id=f"{a.name}={da.value}-{b.name}={db.value}",
                                 **self.call.with_integral_scalars(dtypes, self.base.values)))
        return cases

    def out_dtype_cases(self) -> list[Case]:
        cases = []
        for out in self.call.tensor_outs:
            if out.related(RelationKind.SAME_DTYPE) or not out.dtypes:
                cases.append(replace(self.base, id=f"{out.name}={self.call.base_dtype.value}",
                                     out={out.name: self.call.base_dtype.value}))
                continue
            for d in out.documented_dtypes():
                if d in EXPRESSIBLE and d is not self.call.base_dtype and self.call.result_dtype.can_cast(d):
                    cases.append(replace(self.base, id=f"{out.name}={d.value}", out={out.name: d.value}))
        return cases

    def rank_values(self) -> list[int]:
        """Every documented rank but the base one (every other case has it)."""
        lo, hi = self.call.ranks
        return [r for r in range(lo, hi + 1) if r in SHAPES and r != self.call.base_rank]

    def rank_cases(self) -> list[Case]:
        """Every rank in the base dtype; every other dtype at one rank (taken in turn), not every
        rank in every dtype: the dtypes are the dtype cases' concern."""
        ranks = self.rank_values()
        if not ranks:
            return []
        pairs = [(r, self.call.base_dtype) for r in ranks]
        others = [d for d in self.call.computable_dtypes if d is not self.call.base_dtype]
        pairs += [(ranks[i % len(ranks)], d) for i, d in enumerate(others)]
        return [replace(self.base, id=f"rank{r}-{d.value}", shapes=self.call.shapes(SHAPES[r]), **self.call.at_dtype(d))
                for r, d in sorted(pairs, key=lambda rd: rd[0])]

    def layout_cases(self) -> list[Case]:
        eligible = tuple(p.name for p in self.call.tensor_inputs if p.noncontiguous)
        cases = []
        if eligible:
            lo, hi = self.call.ranks
            rank = 3 if lo <= 3 <= hi else self.call.base_rank
            for layout in NONCONTIGUOUS_LAYOUTS:
                if layout == "transposed" and rank < 2 or layout == "strided" and rank < 1:
                    continue
                for d in layout_dtypes(layout, self.call.computable_dtypes):
                    cases.append(replace(self.base, id=f"{layout}-{d.value}", shapes=self.call.shapes(SHAPES[rank]),
                                         layout=layout, noncontiguous=eligible, **self.call.at_dtype(d)))
        cases.append(replace(self.base, id=f"device-{self.call.base_dtype.value}", layout="device"))
        return cases

    def out_layout_cases(self) -> list[Case]:
        outs = [p for p in self.call.tensor_outs if p.noncontiguous]
        if not outs or self.call.base_rank < 2:
            return []
        out = {p.name: (self.call.base_dtype.value if p.related(RelationKind.SAME_DTYPE) or not p.dtypes
                        else self.call.dtype_of(p, self.call.base_dtype)) for p in outs}
        return [replace(self.base, id=f"out-{layout}", out=out, out_layout=layout) for layout in OUT_LAYOUTS]

    def empty_cases(self) -> list[Case]:
        tensors = self.call.tensor_inputs + self.call.tensor_outs
        if not all(p.empty_tensor for p in self.call.tensor_inputs) or any(p.empty_tensor is False for p in tensors):
            return []
        return [replace(self.base, id="empty" + "x".join(map(str, shape)), shapes=self.call.shapes(shape))
                for shape in EMPTY_SHAPES if all(fits(shape, p) for p in tensors)]

    def broadcast_cases(self) -> list[Case]:
        pair = broadcast_pair(self.api)
        if pair is None:
            return []
        a, b = pair
        # An input an output must have the same shape as takes the broadcast shape itself.
        # So does an in-place tensor (selfRef): it holds the result.
        pinned = {p.name for p in self.call.tensor_inputs for o in self.call.tensor_outs
                  if related(p, o, RelationKind.SAME_SHAPE)}
        pinned |= {p.name for p in self.call.tensor_inputs if p.direction is Direction.INOUT}
        cases = []
        for sa, sb in BROADCAST_PAIRS:
            full = broadcast_shape(sa, sb)
            shapes = {**self.call.shapes(full), a.name: sa, b.name: sb}
            if any(shapes[n] != full for n in pinned):
                continue
            if all(fits(shapes[p.name], p) for p in self.call.tensor_inputs) and \
                    all(fits(full, p) for p in self.call.tensor_outs):
                label = "x".join(map(str, sa)) or "scalar"
                cases.append(replace(self.base, id=f"{label}-with-{'x'.join(map(str, sb)) or 'scalar'}", shapes=shapes))
        return cases

    def scalar_cases(self) -> list[Case]:
        cases = []
        for p in self.api.inputs:
            if p.kind is not ParamKind.SCALAR:
                continue
            tensor = self.call.bound_scalars.get(p.name)
            for d in p.documented_dtypes():
                if d not in EXPRESSIBLE:
                    continue
                if tensor is None and not d.can_cast(self.call.base_dtype):
                    continue  # a call the library rejects (a complex alpha to a real sum): an error row's case
                if tensor is None:
                    value = scalar_value(d, self.call.values.values[p.name])
                    if not within_ranges(self.api, {**self.base.values, p.name: value}):
                        continue  # clipValueMax=True (1) below clipValueMin: an error row's case
                    cases.append(replace(self.base, id=f"{p.name}={d.value}", dtypes={**self.base.dtypes, p.name: d.value},
                                         values={**self.base.values, p.name: value}))
                elif d.value == self.call.dtype_of(self.api.param(tensor), d) and d is not self.call.base_dtype:
                    # bound to the tensor's dtype: the two change together
                    cases.append(replace(self.base, id=f"{p.name}={d.value}", **self.call.at_dtype(d)))
        return cases
