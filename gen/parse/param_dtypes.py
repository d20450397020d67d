"""The dtypes of parameters whose rows list none, from what else the page says: a reference to
another parameter ("与self一致"), its dtype-combination rows, the constraints' one operator-wide
list, the error table, the tensors a host scalar is cast to; and the per-chip narrowing and the
same-dtype relations the combination rows decide."""

from __future__ import annotations

import dataclasses
import re
from typing import Optional, Sequence

from gen import conventions
from gen.ir import (DType, DTypeCombination, Diagnostic, ErrorCase, Level, Param, ParamKind, ProductDTypes,
                    RelationKind, Soc)
from gen.parse.extractors import prose, vocab
from gen.parse.extractors.combinations import dtypes_from
from gen.parse.extractors.entries import ParamEntry
from gen.parse.extractors.relations import CONDITION
from gen.parse.param_roles import is_reserved
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import Section
from gen.parse.sections import constraint_lines


_SAME_AS = lazy_pattern(r"一致|相同|同|same|identical|consistent|follows?", re.I)


def resolve_references(params: list[Param], entries: Sequence[Optional[ParamEntry]],
                       diags: list[Diagnostic]) -> list[Param]:
    """Dtypes and ranks stated by reference: a 数据类型 cell "与“varRef”参数一致" / "同self",
    or prose "数据类型必须和gradOut一致" with no list of its own, take the other parameter's."""
    by_name = {p.name: i for i, p in enumerate(params)}
    names = list(by_name)
    for _ in range(3):  # references may chain (c like b, b like a)
        changed = False
        for i, (param, entry) in enumerate(zip(params, entries)):
            if entry is None:
                continue
            updates: dict = {}
            if not param.dtypes and param.kind in vocab.DTYPED_KINDS:
                source, stated = _dtype_source(param, entry, names)
                if source is not None and params[by_name[source]].dtypes:
                    other = params[by_name[source]]
                    updates.update(dtypes=other.dtypes, dtypes_by_product=other.dtypes_by_product)
                    if stated:
                        diags.append(Diagnostic(Level.INFO, entry.line, "dtypes-by-reference",
                                                f"{param.name}: dtypes are {source}'s, as the page states"))
                    else:
                        diags.append(Diagnostic(
                            Level.INFO, entry.line, "dtypes-by-relation",
                            f"{param.name}: no list of its own; the page relates its dtype to {source}'s "
                            f"(castable or promotable), so {source}'s dtypes are recorded as the ones surely accepted"))
            if param.rank is None and entry.rank and param.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST):
                source = _reference(entry.rank, param.name, names)
                if source is not None and params[by_name[source]].rank is not None:
                    updates.update(rank=params[by_name[source]].rank)
            if updates:
                params[i] = dataclasses.replace(param, **updates)
                changed = True
        if not changed:
            break
    return params


_CASTABLE_TO_PARAM = lazy_pattern(r"(?:可转换(?:成|为)|可以转换(?:成|为)|convertible\s+to|converted\s+to)\s*(?:the\s+data\s+type\s+"
                                r"(?:of|deduced\s+from)\s+)?`?(\w+)`?\s*(?:的|与|和|'s|\s)", re.I)


def _dtype_source(param: Param, entry: ParamEntry, names: Sequence[str]) -> tuple[Optional[str], bool]:
    """The parameter whose dtypes this one takes: (name, whether the page states equality)."""
    if entry.dtypes:
        source = _reference(entry.dtypes, param.name, names)
        if source is not None:
            return source, True
    same = param.related(RelationKind.SAME_DTYPE)
    if same:
        return same[0], True
    # Weaker statements: "castable to self's dtype", "promotable with self": the other's own
    # dtypes always qualify (a dtype casts to and promotes with itself).
    castable = _CASTABLE_TO_PARAM.search(entry.prose)
    if castable and castable.group(1) in names and castable.group(1) != param.name:
        return castable.group(1), False
    for kind in (RelationKind.CAST_FROM, RelationKind.PROMOTE):
        related = param.related(kind)
        if related:
            return related[0], False
    return None, False


def _reference(cell: str, own: str, names: Sequence[str]) -> Optional[str]:
    if not _SAME_AS.search(cell) or prose.dtype_cell(cell)[0].dtypes:
        return None
    named = [n for n in prose.names_in(cell, names) if n != own]
    return named[0] if named else None


def dtypes_from_combinations(param: Param, combinations: Sequence[DTypeCombination]) -> Param:
    """A parameter whose row gives no dtypes ("参见约束说明") with the dtypes the page's
    combination rows give it (per chip where the rows name chips)."""
    if param.dtypes or param.kind not in vocab.DTYPED_KINDS:
        return param
    general, per_soc = dtypes_from(param.name, combinations)
    if not general:
        return param
    order = list(Soc)
    by_product = tuple(ProductDTypes(soc, dtypes) for soc, dtypes in sorted(per_soc.items(), key=lambda i: order.index(i[0])))
    return dataclasses.replace(param, dtypes=general, dtypes_by_product=by_product)


def dtypes_decided_by_combinations(param: Param, combinations: Sequence[DTypeCombination]) -> Param:
    """`param` with, on each chip, the dtypes the combination rows applying there give it, where
    every such row lists its dtypes (rows that share none with its list leave the list as it is): aclnnAddRmsNormQuant's English page lists FLOAT32 for
    x1 in its row and gives Ascend910B only FLOAT16 and BFLOAT16 rows, which phase 1 holds every
    call to. The list a chip's rows leave out is refused there either way (a dtype outside the
    list, or a call no row matches, both 161002); written per chip, it is what the bindings'
    documentation, the generated suites and `Param.dtypes_for` say the chip takes. A row that
    leaves the parameter free (no cell, or "与x一致") narrows nothing, nor a chip without rows."""
    if not param.dtypes or param.kind not in vocab.DTYPED_KINDS:
        return param

    def narrowed(current: tuple[DType, ...], rows: Sequence[DTypeCombination]) -> tuple[DType, ...]:
        cells = [row.cell(param.name) for row in rows]
        if not cells or any(c is None or c.same_as or not c.dtypes for c in cells):
            return current
        kept = tuple(d for d in current if any(d in c.dtypes for c in cells if c))
        if not kept:
            return current  # rows that share no dtype with the list: the page contradicts itself
        # A dtype a row of the chip gives and the list lacks is a call the page documents there
        # (aclnnRmsNormQuantV3's offsetOptional: its row lists no INT32, whose dtypes it defers to the
        # constraints, where Ascend950's rows pair INT32 with a FLOAT scale): refusing it would be
        # stricter than the page.
        added = tuple(dict.fromkeys(d for c in cells if c for d in c.dtypes if d not in kept))
        return kept + added

    general = narrowed(param.dtypes, [r for r in combinations if not r.products])
    stated = [e.soc for e in param.dtypes_by_product]
    by_product = []
    for soc in stated + [soc for soc in Soc if soc not in stated]:  # the page's entries keep their order
        dtypes = narrowed(param.dtypes_for(soc) if soc in stated else general,
                          [r for r in combinations if r.applies_to(soc)])
        if soc in stated or dtypes != general:
            by_product.append(ProductDTypes(soc, dtypes))
    if general == param.dtypes and tuple(by_product) == param.dtypes_by_product:
        return param
    return dataclasses.replace(param, dtypes=general, dtypes_by_product=tuple(by_product))


def dtype_relations_the_combinations_keep(api: str, params: list[Param], combinations: Sequence[DTypeCombination],
                                           diags: list[Diagnostic]) -> list[Param]:
    """`params` without the same-dtype relations a row of the page's own dtype-combination table
    breaks (the row gives the two parameters dtypes they cannot share): aclnnAddRmsNormQuant's English
    page says xOut's "data type is the same as that of zeroPoints1Optional" (its Chinese page: x1's),
    and its rows pair a FLOAT16 xOut with an INT32 zeroPoints1Optional. The table lists every call
    it allows; a sentence that contradicts it is copied from another row."""
    out = []
    for param in params:
        broken = set()
        for other in param.related(RelationKind.SAME_DTYPE):
            for row in combinations:
                mine, theirs = row.cell(param.name), row.cell(other)
                if (mine and theirs and mine.dtypes and theirs.dtypes and not mine.same_as and not theirs.same_as
                        and not set(mine.dtypes) & set(theirs.dtypes)):
                    broken.add(other)
                    diags.append(Diagnostic(Level.INFO, row.line, "relation-contradicts-combinations",
                                            f"{api}.{param.name}: its dtype is said to be {other}'s, and the "
                                            f"combination row gives them {'/'.join(d.value for d in mine.dtypes)} "
                                            f"and {'/'.join(d.value for d in theirs.dtypes)}: the table is followed"))
                    break
        if broken:
            relations = []
            for relation in param.relations:
                kept = tuple(o for o in relation.others if relation.kind is not RelationKind.SAME_DTYPE or o not in broken)
                if kept:
                    relations.append(dataclasses.replace(relation, others=kept))
            param = dataclasses.replace(param, relations=tuple(relations))
        out.append(param)
    return out


def _page_statement(constraints: Optional[Section], names: Sequence[str]) -> tuple[tuple[int, prose.DTypeList], ...]:
    """The operator-wide dtype statements of a constraints section: a top-level line that states a
    list ("数据类型支持FLOAT16、INT8、FLOAT。", "Supported data types are FLOAT16 and BFLOAT16.") and
    names no parameter, no product and no condition: (line, list) of each."""
    if constraints is None:
        return ()
    found = []
    for line, text in constraint_lines(constraints.blocks):
        if prose.names_in(text, names) or vocab.socs_in(text) or CONDITION.search(text):
            continue
        statements = prose.dtype_statements(text)
        if len(statements) == 1:
            found.append((line, statements[0][1]))
    return tuple(found)


def dtypes_from_page_statement(api: str, params: list[Param], matched: Sequence[Optional[ParamEntry]],
                                constraints: Optional[Section], diags: list[Diagnostic]) -> list[Param]:
    """Tensors whose rows state no dtype take the one list the constraints state for the whole
    operator (aclnnMatmulAdd: rows "a: Required 2-D tensor", and "Supported data types are FLOAT16 and
    BFLOAT16." under Constraints). Only when the page has one such list: two would leave open which
    tensor each is for. Reserved rows keep no dtypes."""
    wanting = [i for i, (param, entry) in enumerate(zip(params, matched))
               if entry is not None and not param.dtypes and not is_reserved(entry)
               and param.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST)]
    if not wanting:
        return params
    statements = _page_statement(constraints, [p.name for p in params])
    if len({listed.dtypes for _, listed in statements}) != 1:
        return params
    line, listed = statements[0]
    out = list(params)
    for i in wanting:
        out[i] = dataclasses.replace(params[i], dtypes=listed.dtypes)
        diags.append(Diagnostic(Level.INFO, line, "dtypes-from-constraints",
                                f"{api}.{params[i].name}: its row states no dtype; the constraints state the "
                                f"operator's ({', '.join(d.value for d in listed.dtypes)}) naming no parameter"))
    return out


def dtypes_from_errors(api: str, params: list[Param], matched: Sequence[Optional[ParamEntry]],
                        errors: Sequence[ErrorCase], diags: list[Diagnostic]) -> list[Param]:
    """Tensors whose rows state no dtype take the one the error table requires of them: aclnnUnique's
    inverseOut, its row silent, has the error "returnInverse为True，inverseOut的数据类型不为INT64"
    (the only dtype the page lets it have, whenever it is written)."""
    out = list(params)
    for i, (param, entry) in enumerate(zip(params, matched)):
        if entry is None or param.dtypes or param.kind not in (ParamKind.TENSOR, ParamKind.TENSOR_LIST):
            continue
        name = re.escape(param.name)
        required = re.compile(rf"(?<![\w.]){name}\s*的?\s*数据类型\s*(?:不为|不是|不等于)\s*|"
                              rf"\bdata\s+type\s+of\s+`?{name}`?\s+is\s+not\s+", re.I)
        for error in errors:
            match = required.search(error.condition)
            listed = prose.DTYPE_LIST.match(error.condition, match.end()) if match else None
            dtypes = prose.parse_dtype_list(listed.group(0)).dtypes if listed else ()
            if dtypes:
                out[i] = dataclasses.replace(param, dtypes=dtypes)
                diags.append(Diagnostic(Level.INFO, error.line, "dtypes-from-errors",
                                        f"{api}.{param.name}: its row states no dtype; the error table rejects any "
                                        f"but {', '.join(d.value for d in dtypes)}"))
                break
    return out


def scalar_dtypes_from_tensors(api: str, params: list[Param], matched: Sequence[Optional[ParamEntry]],
                                diags: list[Diagnostic]) -> list[Param]:
    """Host scalars whose rows list no dtype, with the dtypes of the tensors they are cast to
    (gen.conventions.unlisted_scalar_dtypes)."""
    out = list(params)
    for i, (param, entry) in enumerate(zip(params, matched)):
        if entry is None or is_reserved(entry):
            continue
        dtypes = conventions.unlisted_scalar_dtypes(param, params)
        if dtypes:
            out[i] = dataclasses.replace(param, dtypes=dtypes)
            diags.append(Diagnostic(Level.INFO, entry.line, "scalar-dtypes-from-tensors",
                                    f"{api}.{param.name}: its row lists no dtype; a host scalar is cast to its "
                                    f"tensors' dtypes: {', '.join(d.value for d in dtypes)}"))
    return out
