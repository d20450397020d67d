"""A prototype parameter and the page's entry for it into an IR `Param`.

The C type gives the kind; the entry (table row or bullet) gives direction, dtypes, formats,
rank, support flags and the prose; product notes narrow or widen dtypes per chip. Every
conflict or gap is diagnosed on the entry's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import AbstractSet, Collection, Optional, Sequence

from gen import conventions
from gen.ir import DEFAULT_SOC, Diagnostic, Direction, DType, Level, Param, ParamKind, ProductDTypes, ProductLine, Soc
from gen.parse.extractors import prose, relations, vocab
from gen.parse.extractors.entries import ParamEntry
from gen.parse.extractors.prototypes import CParam
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.tables import cell_is_empty

_ARRAY_ELEMENT = {ParamKind.INT_ARRAY: DType.INT64, ParamKind.FLOAT_ARRAY: DType.FLOAT,
                  ParamKind.BOOL_ARRAY: DType.BOOL}
_EXAMPLE_DTYPE = lazy_pattern(r"(?:常见的数值类型|common\s+data\s+types)[^。.]{0,24}?(?:如|such\s+as)\s*`?([A-Z][A-Z0-9_]*)", re.I)
_CASTABLE_TO = lazy_pattern(r"(?:可转换(?:为|成)|可以转换(?:为|成)|convertible\s+to|can\s+be\s+(?:converted|cast)\s+to)\s*"
                          r"`?((?:DT_|ACL_)?[A-Z][A-Z0-9_]*)`?\s*(?:的|\(|（|\.|。|$|\s)", re.I)
# "数据类型要求为BOOL可转换的数据类型": the dtypes BOOL converts to (the dtype comes first).
_CASTABLE_FROM = lazy_pattern(r"(?<![A-Za-z0-9_])`?((?:DT_|ACL_)?[A-Z][A-Z0-9_]*)`?\s*(?:可以|可)转换的数据类型")
_SOC_ORDER = {soc: i for i, soc in enumerate(Soc)}
_OPTIONAL_WORDS = lazy_pattern(r"可选|可为空|可以为空|可以传入空指针|可传入空指针|支持传入空指针|允许为空|传入nullptr|"
                             r"(?<!不)可以?(?:是|为)\s*(?:nullptr|空指针)|"
                             r"\boptional\b|can\s+be\s+(?:null|nullptr|empty\s+pointer)|may\s+be\s+null", re.I)


_WHEN_PASSED = lazy_pattern(r"传入\s*([A-Za-z_][A-Za-z0-9_]*)\s*时")


def _said_when_passed(name: str, text: str) -> bool:
    """The row states what holds "传入sorter时" (when sorter is passed): not passing it is valid
    (aclnnSearchSorted's sorter, which torch.searchsorted without sorter= passes as null)."""
    return name in _WHEN_PASSED.findall(text)


@dataclass
class ParamContext:
    """What building one API's parameters shares: its parameter names and the section's notes."""

    # Made a set once per API (__post_init__): each parameter's notes look names up in it.
    api_params: Collection[str]
    section_notes: Sequence[prose.DTypeNote] = ()
    # The product bullets of the constraints section (约束说明): "- Atlas 推理系列产品：x1、x2、beta、gamma支持
    # FLOAT32、FLOAT16". They narrow a chip's list as the notes under the table do; one that lists a dtype
    # the parameter's table does not is a contradiction, diagnosed, and the table kept.
    constraint_notes: Sequence[prose.DTypeNote] = ()

    def __post_init__(self) -> None:
        self.api_params = prose.name_set(self.api_params)


def build_param(cparam: CParam, entry: Optional[ParamEntry], ctx: ParamContext,
                diags: list[Diagnostic], decl_line: int) -> Param:
    kind = vocab.kind_of(cparam.c_type)
    line = entry.line if entry else decl_line
    if kind is None:
        diags.append(Diagnostic(Level.WARNING, decl_line, "unknown-c-type",
                                f"{cparam.name}: C type {cparam.c_type!r} is not a known parameter kind"))
    if entry is None:
        return Param(name=cparam.name, c_type=cparam.c_type, kind=kind,
                     direction=_direction(cparam, None, diags, line),
                     optional=cparam.name.endswith("Optional"), line=line)

    description = entry.description
    usage = entry.usage
    text = entry.prose
    direction = _direction(cparam, entry, diags, line)
    optional = cparam.name.endswith("Optional") or bool(_OPTIONAL_WORDS.search(entry.direction)) or \
        bool(_OPTIONAL_WORDS.search(text)) or _said_when_passed(cparam.name, text)

    dtypes, by_product, note_lines = _dtypes(cparam.name, kind, entry, ctx, diags)
    formats = prose.formats_in(entry.formats) if entry.formats is not None and not cell_is_empty(entry.formats) \
        else prose.formats_in_prose(text)
    rank = None
    if entry.rank is not None and not cell_is_empty(entry.rank):
        rank = prose.rank_cell(entry.rank)
        if rank is None:
            rank = prose.rank_in_prose(entry.rank)
    if rank is None and kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST, None):
        rank = prose.rank_in_prose(text)
    noncontiguous = None
    if entry.noncontiguous is not None and not cell_is_empty(entry.noncontiguous):
        noncontiguous = vocab.support_mark(entry.noncontiguous)
    if noncontiguous is None and kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST):
        noncontiguous = prose.noncontiguous_in(text)
    empty = prose.empty_tensor_in(text) if kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST, None) else None
    negative = prose.negative_indices_in(text) if kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST) else None

    rels = relations.relations_in("\n".join([text] + [t for _, t in entry.notes]), cparam.name, ctx.api_params)
    return Param(name=cparam.name, c_type=cparam.c_type, kind=kind, direction=direction, optional=optional,
                 dtypes=dtypes, dtypes_by_product=by_product, dtype_note_lines=note_lines, formats=formats, rank=rank,
                 noncontiguous=noncontiguous, empty_tensor=empty, description=description, usage=usage,
                 relations=rels, line=line, negative_indices=negative)


_DESCRIBED_AS_OUT = lazy_pattern(r"与out|和out|及out|输入输出")
_DESCRIBED_AS_RESULT = lazy_pattern(r"输出|\boutput\b", re.I)
# The forward pass's output passed back in (a backward's y): described as an output, but read.
_FORWARD_WORDS = lazy_pattern(r"前向|正向|\bforward\b", re.I)
_DESCRIBED_AS_INPUT_ONLY = lazy_pattern(r"^(?:表示)?输入(?:Tensor|tensor|张量)")


def _describes_own_result(description: str) -> bool:
    return bool(_DESCRIBED_AS_RESULT.search(description)) and not _FORWARD_WORDS.search(description)


def _direction(cparam: CParam, entry: Optional[ParamEntry], diags: list[Diagnostic], line: int) -> Direction:
    """The table's word, cross-checked with the C type and the name (selfRef is in and out)."""
    stated = vocab.direction_of(entry.direction) if entry and entry.direction else None
    const = cparam.c_type.startswith("const ")
    pointer_out = not const and cparam.c_type.endswith("*") and cparam.c_type.rstrip("*") in (
        "aclTensor", "aclTensorList")
    ref = bool(re.search(r"Ref$|Ref(?=Optional$)|^inout|InOut", cparam.name))
    if stated is None:
        if entry is not None and entry.direction and not cell_is_empty(entry.direction):
            diags.append(Diagnostic(Level.INFO, line, "unknown-direction",
                                    f"{cparam.name}: direction {entry.direction!r} is not a known word"))
        if ref:
            return Direction.INOUT
        if pointer_out and re.search(r"^(?:out|y$|result)|Out(?:put)?(?:Optional)?$|Ref$", cparam.name):
            return Direction.OUT
        if pointer_out and entry is not None and _describes_own_result(entry.description):
            # aclnnSqrtBackward's table has no direction column; `aclTensor *z` is "反向输出梯度".
            diags.append(Diagnostic(Level.INFO, line, "direction-from-description",
                                    f"{cparam.name}: no direction stated; a writable tensor described as the "
                                    "output is the output"))
            return Direction.OUT
        return Direction.IN
    if stated is Direction.IN and ref and pointer_out:
        diags.append(Diagnostic(Level.INFO, line, "direction-from-name",
                                f"{cparam.name}: the table says input, the name says it is also written; inout"))
        return Direction.INOUT
    if stated is Direction.IN and ref and const and cparam.c_type.rstrip("*").endswith("aclTensor"):
        # aclnnInplaceTril declares `const aclTensor* selfRef` and its table says 输入; the in-place
        # op writes it (the name says so), whatever the qualifier.
        diags.append(Diagnostic(Level.INFO, line, "direction-from-name",
                                f"{cparam.name}: the table says input and the C type is const; the name says it "
                                "is written in place: inout"))
        return Direction.INOUT
    if stated is Direction.IN and pointer_out and cparam.name == "out":
        # aclnnTril's table says 输入 for `aclTensor* out` ("表示输出张量"): the name and the C type agree.
        diags.append(Diagnostic(Level.INFO, line, "direction-from-name",
                                f"{cparam.name}: the table says input; a writable tensor named out is the output"))
        return Direction.OUT
    if stated is Direction.IN and cparam.name == "out" and cparam.c_type.rstrip("*").endswith("aclTensor") and \
            entry is not None and _DESCRIBED_AS_RESULT.search(entry.description):
        # aclnnFastGeluV2 declares `const aclTensor *out`, its table says 输入 and its description "公式中的输出
        # `y`" (aclnnFusedBiasLeakyRelu: "输出张量（需预分配）"): the name and the description both say
        # the result is written there.
        diags.append(Diagnostic(Level.INFO, line, "direction-from-description",
                                f"{cparam.name}: the table says input; a tensor named out described as the output is the output"))
        return Direction.OUT
    if stated is Direction.IN and pointer_out and entry is not None and _describes_own_result(entry.description):
        # aclnnExpSegsumBackward's table says 输入 for `aclTensor *gradInput`, "表示反向计算的输出"
        # (aclnnAminmax's minOut: "输出的最小值tensor"): the C type and the description agree.
        diags.append(Diagnostic(Level.INFO, line, "direction-from-description",
                                f"{cparam.name}: the table says input; a writable tensor described as the output "
                                "is the output"))
        return Direction.OUT
    if stated is Direction.INOUT and const and not ref and entry is not None and \
            _DESCRIBED_AS_INPUT_ONLY.search(entry.description) and not _DESCRIBED_AS_RESULT.search(entry.description):
        # aclnnConfusionTranspose's cell for `const aclTensor *x` repeats its column's header, 输入/输出,
        # while its description says "输入Tensor": the C type and the description say it is only read.
        diags.append(Diagnostic(Level.INFO, line, "direction-from-description",
                                f"{cparam.name}: the table says {stated.value}; a const tensor described as the "
                                "input is an input"))
        return Direction.IN
    # aclnnInplaceAddmm: `const aclTensor *selfRef`, 输入, "即公式中的输入self与out": the name and the
    # description both say the result is written there, the const and the table are the page's slips.
    if stated is Direction.IN and ref and entry is not None and _DESCRIBED_AS_OUT.search(entry.description):
        diags.append(Diagnostic(Level.INFO, line, "direction-from-description",
                                f"{cparam.name}: the table says input, the description says it is also the output; inout"))
        return Direction.INOUT
    if stated is Direction.OUT and ref and const and cparam.c_type.rstrip("*").endswith("aclTensor"):
        # aclnnInplaceOne declares `const aclTensor* selfRef` and its table says 输出: an in-place op
        # writes the caller's tensor, whose shape and dtype it takes (the C type says it is read, the
        # table and the name that it is written): inout.
        diags.append(Diagnostic(Level.INFO, line, "direction-from-name",
                                f"{cparam.name}: the table says out and the C type is const; the name says it is "
                                "the caller's tensor written in place: inout"))
        return Direction.INOUT
    if stated is Direction.OUT and cparam.c_type and "*" not in cparam.c_type:  # "": no prototype (a README)
        # aclnnFusedInferAttentionScoreV2's table says 输出 for `int64_t keyAntiquantMode`: a value the
        # caller passes cannot be written back.
        diags.append(Diagnostic(Level.INFO, line, "direction-from-type",
                                f"{cparam.name}: the table says out, but {cparam.c_type} is passed by value: in"))
        return Direction.IN
    if stated is not Direction.IN and const and cparam.c_type.rstrip("*").endswith(("aclTensor", "aclTensorList")):
        diags.append(Diagnostic(Level.INFO, line, "direction-const-conflict",
                                f"{cparam.name}: the table says {stated.value} but the C type is const"))
    return stated


def _dtypes(name: str, kind: Optional[ParamKind], entry: ParamEntry, ctx: ParamContext,
            diags: list[Diagnostic]) -> tuple[tuple[DType, ...], tuple[ProductDTypes, ...], tuple[ProductLine, ...]]:
    if kind is not None and kind not in vocab.DTYPED_KINDS:
        return (), (), ()
    general: tuple[DType, ...] = ()
    restricted: tuple = ()
    per_product: dict[Soc, list[DType]] = {}
    unknown: tuple[str, ...] = ()

    notes: list[prose.DTypeNote] = []
    if entry.dtypes is not None and not cell_is_empty(entry.dtypes):
        listed, product_lines = prose.dtype_cell(entry.dtypes)
        general, restricted, unknown = listed.dtypes, listed.restricted, listed.unknown
        for socs, plist in product_lines:
            notes.append(prose.DTypeNote(socs, prose.SET, plist.dtypes, (), entry.line))
        if not general and not product_lines:
            # A cell that is not a list ("与self一致", "见约束说明"): the prose may still list them.
            general, restricted, unknown = _prose_dtypes(entry.prose)
    else:
        general, restricted, unknown = _prose_dtypes(_general_prose(entry.prose))
        notes.extend(_inline_product_notes(entry.prose, entry.line, ctx.api_params))
    for note_line, note_text in entry.notes:
        notes.extend(product_notes(note_text, note_line, ctx.api_params))
    for word in unknown:
        diags.append(Diagnostic(Level.WARNING, entry.line, "unknown-dtype",
                                f"{name}: {word!r} is not a known data type"))

    base = list(general)
    for dtype, _ in restricted:
        if dtype in base:
            base.remove(dtype)
    for dtype, socs in restricted:
        for soc in socs:
            per_product.setdefault(soc, list(base))
    for dtype, socs in restricted:
        for soc in socs:
            if dtype not in per_product[soc]:
                per_product[soc].append(dtype)
    for soc in per_product:
        order = {d: i for i, d in enumerate(general)}
        per_product[soc].sort(key=lambda d: order.get(d, len(order)))

    own = [n for n in notes if not n.params or name in n.params]
    section = [n for n in ctx.section_notes if _section_note_applies(n, name, kind, base)]
    section += _agreeing_constraint_notes(name, kind, base, ctx.constraint_notes, diags)
    # The note under the table that last set a product's list: its refusals cite that line.
    note_lines: dict[Soc, int] = {}
    # The scenario whose list a chip's list is: a list under another scenario of the same chip adds
    # to it (aclnnTransposeQuantBatchMatMul's Ascend950 K-C, MX and T-C bullets: x1 is FLOAT8_E5M2 or
    # FLOAT8_E4M3FN in K-C, FLOAT8_E4M3FN in MX, HIFLOAT8 in T-C; the chip takes all three).
    scenario_set: dict[Soc, str] = {}
    for note in own + section:
        for soc in note.socs:
            current = per_product.get(soc, list(base))
            if note.op == prose.SET and note.scenario and scenario_set.get(soc, "") not in ("", note.scenario):
                united = current + [d for d in note.dtypes if d not in current]
                per_product[soc] = sorted(united, key=lambda d: base.index(d) if d in base else len(base))
            else:
                per_product[soc] = _apply(note, current)
            if note.op == prose.SET:
                scenario_set[soc] = note.scenario
            if note.line != entry.line:
                note_lines[soc] = note.line
    _keep_exclusive(own + section, per_product, base)
    per_product = conventions.twin_chip_dtypes(name, per_product, base, entry.line, diags)

    if not base and not per_product:
        castable = _CASTABLE_TO.search(entry.prose) or _EXAMPLE_DTYPE.search(entry.prose)
        target = vocab.dtype_of(castable.group(1)) if castable else None
        if castable is not None and target is not None:
            # "数据类型需要是可转换为FLOAT的数据类型": any dtype castable to FLOAT (gen.conventions.
            # castable_to). "支持常见的数值类型，如FLOAT类型" names FLOAT as one example: FLOAT alone.
            base = list(conventions.castable_to(target)) if _CASTABLE_TO.search(entry.prose) else [target]
            recorded = f"the dtypes castable to {target.value} are" if len(base) > 1 else f"{target.value} is"
            diags.append(Diagnostic(Level.INFO, entry.line, "dtypes-castable",
                                    f"{name}: the page lists no dtypes but names {target.value} as accepted "
                                    f"({castable.group(0).strip()!r}); {recorded} recorded"))
    if not base and not per_product:
        source = _CASTABLE_FROM.search(entry.prose)
        origin = vocab.dtype_of(source.group(1)) if source else None
        if source is not None and origin is not None:
            base = list(conventions.castable_from(origin))
            diags.append(Diagnostic(Level.INFO, entry.line, "dtypes-castable",
                                    f"{name}: the page lists no dtypes but accepts the ones {origin.value} converts to "
                                    f"({source.group(0).strip()!r}); they are recorded"))
    if not base and not per_product and kind in _ARRAY_ELEMENT:
        # The C type fixes an array's element type (aclIntArray holds int64_t, ...).
        base = [_ARRAY_ELEMENT[kind]]
    if not base and per_product:
        preferred = DEFAULT_SOC if DEFAULT_SOC in per_product else next(iter(per_product))
        base = list(per_product[preferred])
    entries = tuple(ProductDTypes(soc, tuple(dts)) for soc, dts in sorted(per_product.items(),
                                                                          key=lambda kv: _SOC_ORDER[kv[0]])
                    if tuple(dts) != tuple(base))
    lines = tuple(ProductLine(e.soc, note_lines[e.soc]) for e in entries if e.soc in note_lines)
    return tuple(base), entries, lines


def _keep_exclusive(notes: Sequence[prose.DTypeNote], per_product: dict[Soc, list[DType]], base: list[DType]) -> None:
    """The other half of a list a note's chips alone support ("Ascend 950PR/Ascend 950DT：COMPLEX32、COMPLEX64仅
    支持该产品", aclnnTril's): the note's chips have them (`_apply`), every other chip refuses them, those with a
    list of their own and those that take the general one, which no longer holds them. Where a later note gives
    another chip one of them again, that note is the page's word for that chip and stays."""
    for at, note in enumerate(notes):
        if note.op != prose.EXCLUSIVE:
            continue
        given_again = {soc for later in notes[at + 1:] if later.op in (prose.SET, prose.ADD)
                       for soc in later.socs if set(later.dtypes) & set(note.dtypes)}
        for soc in note.socs:
            per_product.setdefault(soc, _apply(note, list(base)))
        for soc, dtypes in per_product.items():
            if soc not in note.socs and soc not in given_again:
                dtypes[:] = [d for d in dtypes if d not in note.dtypes]
        base[:] = [d for d in base if d not in note.dtypes]


def _apply(note: prose.DTypeNote, current: list[DType]) -> list[DType]:
    if note.op == prose.SET:
        return list(note.dtypes)
    if note.op in (prose.ADD, prose.EXCLUSIVE):
        return current + [d for d in note.dtypes if d not in current]
    return [d for d in current if d not in note.dtypes]


def _agreeing_constraint_notes(name: str, kind: Optional[ParamKind], base: list[DType],
                               notes: Sequence[prose.DTypeNote], diags: list[Diagnostic]) -> list[prose.DTypeNote]:
    """The constraints section's product bullets that apply to a parameter (as a note after the table
    does) and agree with its table: a bullet that gives a chip a dtype the table lists for no chip
    contradicts it, and the page does not say which one CANN follows: diagnosed, not applied (the
    table's list stays, as it was before the bullet was read)."""
    agreeing = []
    for note in notes:
        if not _section_note_applies(note, name, kind, base):
            continue
        extra = [d for d in note.dtypes if d not in base] if note.op != prose.REMOVE and base else []
        if extra:
            chips = ", ".join(s.value for s in note.socs)
            diags.append(Diagnostic(Level.WARNING, note.line, "constraint-contradicts-table",
                                    f"{name}: the constraints give {chips} {', '.join(d.value for d in extra)}, "
                                    f"which its table does not list; the table's list is kept"))
            continue
        agreeing.append(note)
    return agreeing


def _section_note_applies(note: prose.DTypeNote, name: str, kind: Optional[ParamKind], base: list[DType]) -> bool:
    """A note after the table applies to the parameters it names; when it names none, to the
    tensor parameters whose list it narrows (or that have no list of their own)."""
    if note.params:
        return name in note.params
    if kind not in (ParamKind.TENSOR, ParamKind.TENSOR_LIST, None):
        return False
    if note.op == prose.SET:
        return not base or set(note.dtypes) <= set(base)
    if note.op in (prose.REMOVE, prose.EXCLUSIVE):
        return bool(set(note.dtypes) & set(base))
    return bool(base)


def _prose_dtypes(text: str):
    statements = prose.dtype_statements(text)
    if not statements:
        return (), (), ()
    listed = statements[0][1]
    return listed.dtypes, listed.restricted, listed.unknown


_PRODUCT_LINE = lazy_pattern(r"(?:^|\n|。|；)\s*(?:[-*•]\s*)?((?:Atlas|Ascend|Kirin|昇腾)[^：:\n。]*?)[：:]([^\n]*)")


def _general_prose(text: str) -> str:
    """Prose without its product-prefixed sentences, which are notes, not the general list."""
    return _PRODUCT_LINE.sub("\n", text)


def _inline_product_notes(text: str, line: int, names: Collection[str]) -> list[prose.DTypeNote]:
    notes = []
    for match in _PRODUCT_LINE.finditer(text):
        socs = vocab.socs_in(match.group(1))
        if socs:
            notes.extend(prose.note_statements(socs, match.group(2), line, names))
    return notes


# The head ends at its last non-space before the colon (as a lazy `[^：:]*?\s*` would, but
# without rescanning a run of spaces from each of its characters).
_NOTE_HEAD = lazy_pattern(r"^\s*((?:Atlas|Ascend|Kirin|昇腾|A200I)(?:[^：:]*[^：:\s])?)\s*[：:]\s*(.*)$", re.S)


def product_notes(text: str, line: int, names: Collection[str],
                  inherited: tuple[Soc, ...] = ()) -> list[prose.DTypeNote]:
    """The dtype notes of one bullet: "<products>：statement", or a statement under such a bullet."""
    match = _NOTE_HEAD.match(text)
    if match:
        socs = vocab.socs_in(match.group(1))
        if socs:
            return prose.note_statements(socs, match.group(2), line, names)
        return []
    if inherited:
        return prose.note_statements(inherited, text, line, names)
    return []


def note_socs(text: str) -> tuple[Soc, ...]:
    """The products a bullet is about, when it starts with them ("<term>Atlas 推理系列产品</term>：")."""
    match = _NOTE_HEAD.match(text)
    return vocab.socs_in(match.group(1)) if match else ()
