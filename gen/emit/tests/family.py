"""The cases of an API a kernel family computes.

Its tensors' shapes are tied by the family's rule (a reduction's output, a product's inner
dimension), not by elementwise broadcasting: the cases vary the base call (the semantics
file's valid call, else the page's example) in what cannot break the rule: the dtypes, the
memory layouts of the inputs and of out=, device residence, bool attributes, and the
shapes the family's rule allows (gen.families.Op.variations): the rank, and
broadcasting where the page speaks of it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from gen import families
from gen.api.calls import SHAPES
from gen.emit.tests.base_call import BaseCall
from gen.emit.tests.cases import (AUTO, NONCONTIGUOUS_LAYOUTS, OUT_LAYOUTS, Case, CaseGroup, broadcast_shape, fits,
                                  layout_dtypes)
from gen.ir import Direction



class FamilyCases:
    """The valid calls of an API a kernel family computes, each the base call changed as the family's rule allows."""

    def __init__(self, call: BaseCall) -> None:
        self.call = call
        self.api = call.api
        self.base = call.base
        self.bound = call.bound
        self.family = call.family
        self.plans = call.plans

    def groups(self) -> list[CaseGroup]:
        groups = []
        for name, title, cases in (
            ("ranks", "The inputs at every documented rank the family's rule and the call's dimensions allow",
             self.rank_cases()),
            ("broadcast", "Inputs whose shapes broadcast as the family's rule allows", self.broadcast_cases()),
            ("layouts", "Non-contiguous inputs (transposed, strided, offset) in every dtype, and device-resident ones",
             self.layout_cases()),
            ("out_layouts", "Non-contiguous out= arrays", self.out_layout_cases()),
            ("attributes", "Each value of a bool attribute", self.call.attribute_cases()),
        ):
            if cases:
                groups.append(CaseGroup(name, title, tuple(cases)))
        return groups

    def _variations(self, *kinds: str) -> list[tuple[str, list[Optional[str]]]]:
        """The family's shape variations of this API's op: (kind, the parameter playing each role,
        None where none does)."""
        semantics = self.bound.semantics
        assert semantics is not None and self.family is not None
        roles = self.bound.family_roles
        return [(kind, [roles.get(r) for r in named]) for kind, named in
                families.shape_variations(self.family, semantics.op, kinds)]

    def _valid_shapes(self, shapes: dict[str, tuple[int, ...]]) -> bool:
        return all(fits(shape, self.api.param(name)) for name, shape in shapes.items())

    def rank_cases(self) -> list[Case]:
        """The inputs at ranks 1 to 4 (within the page's bounds) as the family's rule allows them
        to vary together: alike ("rank", where every dimension the call names exists), or with a
        weight keeping its trailing dimensions ("trailing") or its channel ("channels")."""
        cases: list[Case] = []
        for kind, params in self._variations("rank", "trailing", "channels"):
            lead = params[0]
            if lead is None or self.base.shapes.get(lead) is None:
                continue
            others = [p for p in params[1:] if p is not None and self.base.shapes.get(p) is not None]
            if kind == "rank" and any(self.base.shapes.get(p.name) not in (None, ()) and p.name not in params
                                      for p in self.call.tensor_inputs):
                continue  # another tensor keeps its shape, made for the base rank (aclnnAminmax's minOut)
            lo, hi = self.api.param(lead).rank or (1, 4)
            for rank in range(max(lo, 2 if kind == "channels" else 1), min(hi, 4) + 1):
                shape = SHAPES[rank]
                if shape == self.base.shapes[lead]:
                    continue
                shapes, values = {lead: shape}, {}
                if kind == "rank":
                    if not self._dims_fit(rank):
                        continue
                    shapes.update({p: shape for p in others})
                elif kind == "trailing":
                    # A tensor of fewer dimensions than the lead's (a weight) keeps as many trailing ones.
                    kept = {p: len(self.base.shapes[p]) for p in others
                            if len(self.base.shapes[p]) < len(self.base.shapes[lead])}
                    if any(n > rank for n in kept.values()):
                        continue
                    shapes.update({p: shape[rank - kept[p]:] if p in kept else shape for p in others})
                    values.update(self._normalized_shape(shape))
                else:
                    shapes.update({p: (shape[1],) for p in others})
                if not self._valid_shapes(shapes):
                    continue
                cases.append(replace(self.base, id=f"rank{rank}", shapes={**self.base.shapes, **shapes},
                                     values={**self.base.values, **values}))
        return cases

    def _dims_fit(self, rank: int) -> bool:
        """Whether every dimension the call's `dim` role names exists at `rank`."""
        dim_param = self.bound.semantics.role("dim") if self.bound.semantics else None
        dim_param = dim_param or ("dim" if any(p.name == "dim" for p in self.api.params) else None)
        given = self.base.values.get(dim_param) if dim_param else None
        dims = list(given) if isinstance(given, (tuple, list)) else [given] if isinstance(given, int) else []
        return all(-rank <= d < rank for d in dims)

    def _normalized_shape(self, shape: tuple[int, ...]) -> dict[str, Any]:
        """normalized_shape (a layer norm's) as the trailing dimensions of `shape` it counted in the base call."""
        name = self.bound.semantics.role("normalized_shape") if self.bound.semantics else None
        old = self.base.values.get(name) if name else None
        if not name or not isinstance(old, (tuple, list)) or len(old) > len(shape):
            return {}
        return {name: tuple(shape[len(shape) - len(old):])}

    def broadcast_cases(self) -> list[Case]:
        """Inputs of shapes that broadcast, as the family's rule allows, where the page speaks of
        broadcasting: each of where's inputs (a mask) in turn smaller than the others' common
        shape; a product's operands with broadcasting batch dimensions, or one a vector; an added
        tensor (addmm's self) broadcasting to the product's shape."""
        if not self.api.speaks_of_broadcasting:
            return []
        cases: list[Case] = []
        for kind, params in self._variations("broadcast", "batch", "bias"):
            present = [p for p in params if p is not None and self.base.shapes.get(p) is not None]
            if kind == "broadcast":
                full: tuple[int, ...] = ()
                for tensor in self.call.tensor_inputs:
                    if self.base.shapes.get(tensor.name) is not None:
                        full = broadcast_shape(full, self.base.shapes[tensor.name])
                for p in present:  # shapes that broadcast to the common one, which stays the output's
                    for shape in dict.fromkeys((full[1:], (1,) + full[1:], full[:-1] + (1,), ())):
                        cases += self._shape_case(p, {p: shape})
            elif kind == "batch" and len(present) == 2:
                a, b = present
                sa, sb = self.base.shapes[a], self.base.shapes[b]
                if len(sa) < 2 or len(sb) < 2:
                    continue
                for ba, bb in (((2, 1), (3,)), ((), (2,)), ((2,), ()), ((1,), (2,)), ((2,), (1,))):
                    cases += self._shape_case(f"{a}-{b}", {a: ba + sa[-2:], b: bb + sb[-2:]})
                cases += self._shape_case(f"{a}-vector", {a: sa[-1:]})
                cases += self._shape_case(f"{b}-vector", {b: sb[-2:-1]})
            elif kind == "bias" and present and self.api.param(present[0]).direction is Direction.IN:
                product = self._product_shape()
                if product is None:
                    continue
                rows = product[:-1]
                for shape in dict.fromkeys((product[-1:], (1,) * len(rows) + product[-1:], rows + (1,),
                                            (1,) * len(product), (1,), product[1:])):
                    cases += self._shape_case(present[0], {present[0]: shape})
        return [c for c in dict((c.id, c) for c in cases).values()]

    def _shape_case(self, label: str, shapes: dict[str, tuple[int, ...]]) -> list[Case]:
        """The base call with `shapes`, if they differ from its own and the page allows their ranks."""
        if all(self.base.shapes.get(p) == s for p, s in shapes.items()) or not self._valid_shapes(shapes):
            return []
        text = "-".join("x".join(map(str, s)) or "scalar" for s in shapes.values())
        return [replace(self.base, id=f"{label}-{text}", shapes={**self.base.shapes, **shapes})]

    def _product_shape(self) -> Optional[tuple[int, ...]]:
        """The shape of the base call's product (the matmul family's a @ b, with gemm's transposes,
        baddbmm's batch, addbmm's sum over it), which its added tensor broadcasts to."""
        semantics = self.bound.semantics
        assert semantics is not None
        roles = self.bound.family_roles
        a, b = (self.base.shapes.get(roles.get(r, "")) for r in ("a", "b"))
        if a is None or b is None or not a or not b:
            return None

        def transposed(shape: tuple[int, ...], role: str) -> tuple[int, ...]:
            flag = self.base.values.get(roles.get(role, ""))
            return shape[:-2] + shape[:-3:-1] if flag and len(shape) >= 2 else shape

        a, b = transposed(a, "trans_a"), transposed(b, "trans_b")
        if len(b) == 1:  # a matrix times a vector
            return a[:-1]
        batch = broadcast_shape(a[:-2], b[:-2]) if semantics.op != "addbmm" else ()
        return batch + (a[-2], b[-1])

    def layout_cases(self) -> list[Case]:
        cases = []
        for layout in NONCONTIGUOUS_LAYOUTS:
            least = 2 if layout == "transposed" else 1
            eligible = tuple(p.name for p in self.call.tensor_inputs
                             if p.name in self.base.shapes and len(self.base.shapes[p.name]) >= least)
            if not eligible:
                continue
            for d in layout_dtypes(layout, self.call.computable_dtypes or [self.call.base_dtype]):
                cases.append(replace(self.base, id=f"{layout}-{d.value}", layout=layout, noncontiguous=eligible,
                                     **self.call.at_dtype(d)))
        cases.append(replace(self.base, id=f"device-{self.call.base_dtype.value}", layout="device"))
        return cases

    def out_layout_cases(self) -> list[Case]:
        """out= arrays of the golden's shape and the family's dtype (AUTO), laid out non-contiguously."""
        if not self.call.tensor_outs:
            return []
        # An output the kernel fills from its first element and sizes by its view shape must be
        # contiguous (the pages of masked_select, nonzero and unique: non-contiguous unsupported).
        if any(families.data_dependent(plan.family_shape) for plan in self.plans):
            return []
        # The base's other out entries stay (a page whose table marks an int parameter 输出).
        out = {**self.base.out, **{p.name: AUTO for p in self.call.tensor_outs}}
        return [replace(self.base, id=f"out-{layout}", out=out, out_layout=layout) for layout in OUT_LAYOUTS]
