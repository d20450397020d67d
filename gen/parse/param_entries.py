"""The table rows and bullets that document an API's parameters: read from its scope, matched to
the prototype's parameters (by name, case, stem, or as the one leftover of the same type), found
in a constraints line about one parameter alone, and the coverage diagnostics for a parameter no
entry documents or whose entry states no dtype."""

from __future__ import annotations

import difflib
import re
from typing import Optional, Sequence

from gen.ir import Diagnostic, ErrorCase, Level, Param
from gen.parse.extractors import prose, vocab
from gen.parse.extractors.entries import ParamEntry, entries_from_blocks, entries_from_table
from gen.parse.extractors.params import note_socs, product_notes
from gen.parse.extractors.prototypes import CParam, normalise_type
from gen.parse.extractors.relations import CONDITION
from gen.parse.param_roles import is_reserved
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import Block, HEADING, ITEM, Section, TABLE, TEXT


PARAM_UNDOCUMENTED = "param-undocumented"
PARAM_NO_DTYPES = "param-no-dtypes"


def documented_entries(blocks: Sequence[Block], names: Sequence[str],
             diags: list[Diagnostic]) -> tuple[dict[str, ParamEntry], list[prose.DTypeNote]]:
    entries: dict[str, ParamEntry] = {}
    for block in blocks:
        if block.kind == TABLE and block.table is not None:
            found = entries_from_table(block.table, names)
            if found is None:
                continue
            if not any(e.name in names for e in found.entries):
                continue
            if found.unknown_columns:
                columns = ", ".join(map(repr, found.unknown_columns))
                diags.append(Diagnostic(Level.INFO, found.line, "unknown-column",
                                        f"parameter table column(s) {columns} are not ones this parser knows; ignored"))
            for line, name, offset in found.shifted:
                diags.append(Diagnostic(Level.WARNING, line, "row-cells-shifted",
                                        f"{name}: the row's 数据类型 cell lists no dtype but the cell {offset:+d} from it "
                                        f"lists dtypes alone; the row is read realigned to the header"))
            for entry in found.entries:
                entries.setdefault(entry.name, entry)
    for entry in entries_from_blocks(blocks, names):
        existing = entries.get(entry.name)
        if existing is None:
            entries[entry.name] = entry
    claimed = {line for e in entries.values() for line, _ in e.notes}
    return entries, section_notes(blocks, names, claimed)


def section_notes(blocks: Sequence[Block], names: Sequence[str], claimed: set[int]) -> list[prose.DTypeNote]:
    """Product notes outside any parameter's bullet (after a table, in the section's prose)."""
    notes: list[prose.DTypeNote] = []
    inherited: tuple = ()
    inherited_level = 0
    for block in blocks:
        if block.kind not in (ITEM, TEXT) or block.line in claimed:
            if block.kind in (HEADING, TABLE):
                inherited = ()
            continue
        if inherited and block.level <= inherited_level:
            inherited = ()
        for offset, line_text in enumerate(block.text.split("\n")):
            socs = note_socs(line_text)
            found = product_notes(line_text, block.line + offset, names, inherited)
            notes.extend(found)
            if socs and not found:
                inherited, inherited_level = socs, block.level
    return notes


# What makes a product bullet of the constraints more than a list of dtypes: a condition, or the
# computation behind the dtype ("Cube单元不支持FLOAT32计算。当输入为FLOAT32，可通过设置cubeMathType=1...",
# "当输入数据是FLOAT类型时，会转换为FLOAT16类型进行计算", precision and value ranges): CANN accepts the
# dtype there, and such a bullet is no rule of the dtypes.
_NOT_A_DTYPE_LIST = lazy_pattern(r"计算|精度|转换|cast|Cube|取值|范围|结果|对齐|整除|维|shape|格式|format|组合", re.I)


def constraint_notes(constraints: Optional[Section], names: Sequence[str]) -> list[prose.DTypeNote]:
    """The product bullets of the constraints section that list dtypes and say nothing else
    ("- Atlas 推理系列产品：x1、x2、beta、gamma、biasOptional支持FLOAT32、FLOAT16", "- Ascend 950PR/Ascend 950DT：
    不支持INT16、INT8、UINT8"): read as the notes under a table are."""
    if constraints is None:
        return []
    # Each line's text, and whether it opens the section's top level (not under another bullet, whose
    # words may scope it: "MLA场景：" over "- 数据类型仅支持BFLOAT16").
    lines = {block.line + offset: (text, block.level <= 1) for block in constraints.blocks if block.kind in (ITEM, TEXT)
             for offset, text in enumerate(block.text.split("\n"))}
    kept = []
    for note in section_notes(constraints.blocks, names, set()):
        text, top = lines.get(note.line, ("", False))
        # A bullet that opens with its chips, itself plain; one that names no parameter speaks of the
        # whole API only at the top level.
        if note_socs(text) and not CONDITION.search(text) and not _NOT_A_DTYPE_LIST.search(text) and (note.params or top):
            kept.append(note)
    return kept


def match_entry(name: str, entries: dict[str, ParamEntry], diags: list[Diagnostic]) -> Optional[ParamEntry]:
    if name in entries:
        return entries[name]
    lowered = {k.lower(): v for k, v in entries.items()}
    if name.lower() in lowered:
        return lowered[name.lower()]
    stem = _stem(name)
    for key, entry in entries.items():
        if _stem(key) == stem and stem:
            diags.append(Diagnostic(Level.INFO, entry.line, "param-name-mismatch",
                                    f"the table documents {key!r} for the prototype's {name!r}"))
            return entry
    return None


_SECOND_PHASE = frozenset({"workspace", "workspaceSize", "executor", "stream"})


def pair_leftovers(cparams: Sequence[CParam], matched: list[Optional[ParamEntry]],
                    entries: dict[str, ParamEntry], diags: list[Diagnostic]) -> None:
    """Prototype parameters and table rows left over, of the same type: the page names a parameter
    differently in the two places (a typo, or a renamed parameter); they are paired. One of each is
    one pair; with more, each parameter is paired with the one row whose name is like its own and
    like no other's (aclnnNsaSelectedAttentionInfer: `actualKvSeqLenOptional` and `layoutOptional`
    in the prototype, rows `actualSelKvSeqLenOptional` and `inputLayoutOptional`)."""
    missing = [i for i, e in enumerate(matched) if e is None]
    used = {id(e) for e in matched if e is not None}
    spare = [e for e in entries.values() if id(e) not in used and e.name not in _SECOND_PHASE]
    if not missing or not spare:
        return
    if len(missing) == 1 and len(spare) == 1:
        pairs = [(missing[0], spare[0])]
    else:
        alike = {i: [e for e in spare if _alike(cparams[i].name, e.name)] for i in missing}
        pairs = [(i, found[0]) for i, found in alike.items() if len(found) == 1 and
                 sum(any(e is found[0] for e in others) for others in alike.values()) == 1]
    for i, entry in pairs:
        cparam = cparams[i]
        if entry.c_type and vocab.kind_of(normalise_type(entry.c_type)) not in (None, vocab.kind_of(cparam.c_type)):
            continue
        matched[i] = entry
        diags.append(Diagnostic(Level.WARNING, entry.line, "param-name-mismatch",
                                f"the page documents {entry.name!r} where the prototype declares {cparam.name!r}; "
                                f"they are read as the same parameter"))


# A constraints line that is about one parameter: "`approximate` 当前仅支持取值为1", "innerPrecise: 当前0、1为
# 保留配置值，2为..." (the name first, then a colon or a statement, not a list of names).
_ABOUT_ONE = lazy_pattern(r"^\s*(?:\*\*)?`?([A-Za-z_]\w*)`?(?:\*\*)?\s*(?:[：:]\s*|\s+(?![、,，/和与及或]|and\b|or\b))(\S.*)$",
                        re.S)


def constraint_entries(cparams: Sequence[CParam], matched: list[Optional[ParamEntry]],
                        constraints: Optional[Section], diags: list[Diagnostic]) -> None:
    """A parameter no table row or bullet documents, documented by a top-level line of the
    constraints section about it alone (aclnnFusedMatmulGelu's `approximate`, whose table omits it:
    "`approximate` 当前仅支持取值为1（tanh近似模式）"): the line starts with its name, and its first
    clause names no other parameter."""
    missing = {cparams[i].name: i for i, e in enumerate(matched) if e is None}
    if not missing or constraints is None:
        return
    for block in constraints.blocks:
        if block.kind not in (ITEM, TEXT) or block.level > 1:
            continue
        match = _ABOUT_ONE.match(block.text)
        if match is None or match.group(1) not in missing:
            continue
        name = match.group(1)
        if prose.names_in(re.split(r"[，,。；;]", match.group(2))[0], [c.name for c in cparams if c.name != name]):
            continue  # "`out` shape 必须等于 `self` shape": about the two
        matched[missing.pop(name)] = ParamEntry(name=name, line=block.line, description=match.group(2).strip())
        diags.append(Diagnostic(Level.INFO, block.line, "param-documented-in-constraints",
                                f"{name}: no table row documents it; a line of the constraints is about it alone"))


def _alike(declared: str, documented: str) -> bool:
    """Whether two names differ by a word or a few letters (layoutOptional, inputLayoutOptional)."""
    a, b = _stem(declared).lower(), _stem(documented).lower()
    if len(a) < 4 or len(b) < 4:
        return False
    return a in b or b in a or difflib.SequenceMatcher(None, a, b).ratio() >= 0.8


def _stem(name: str) -> str:
    """A name without the suffixes pages add or drop between prototype and table (selfRef/self,
    biasOptional/bias, yOut/y)."""
    return re.sub(r"(?<=[a-z0-9])(?:Optional|Ref|Out)+$", "", name)


def diagnose_coverage(api: str, param: Param, entry: Optional[ParamEntry], diags: list[Diagnostic],
                       line: int, errors: Sequence[ErrorCase] = ()) -> None:
    """The two gaps that make a parameter unusable for generation; messages start with
    "<api>.<param>:" so that coverage figures can be computed from diagnostics alone. A parameter
    only the error table names (aclnnFlashAttentionScore's paddingMaskOptional and softmaxOutOut,
    in "...的数据类型不在支持的范围内" and nowhere else) is said to be so: the page's gap, not the parser's."""
    if entry is None:
        named = next((e.line for e in errors if param.name in e.params), None)
        where = f"; only the error table names it (line {named}), with no dtype" if named else ""
        diags.append(Diagnostic(Level.WARNING, line, PARAM_UNDOCUMENTED,
                                f"{api}.{param.name}: the prototype declares it but no table row or bullet "
                                f"documents it{where}"))
    elif param.kind in vocab.DTYPED_KINDS and not param.dtypes and not is_reserved(entry):
        diags.append(Diagnostic(Level.WARNING, entry.line, PARAM_NO_DTYPES,
                                f"{api}.{param.name}: its row states no data type"))
