"""What a page says about one parameter, before it is typed: a `ParamEntry`.

Parameter tables (HTML or pipe, 3 to 8 columns, Chinese or English headers) and the older
bullet lists (`gradOutput(aclTensor*, 计算输入)：...`) both become entries; `gen.parse.extractors.params`
turns an entry and a prototype parameter into an IR `Param`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence, cast

from gen.parse.extractors import vocab
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import ITEM, TEXT, Block, Table
from gen.parse.readers.tables import cell_is_empty


@dataclass
class ParamEntry:
    name: str
    line: int
    direction: str = ""  # as written: 输入, Input/Output, 计算输入, 出参, ...
    c_type: str = ""  # bullets and "(aclTensor*, 计算输入)" cells state one
    description: str = ""
    usage: str = ""
    dtypes: Optional[str] = None  # the 数据类型 cell; None when the table has no such column
    formats: Optional[str] = None
    rank: Optional[str] = None
    noncontiguous: Optional[str] = None
    # Product notes scoped to this parameter: (line, text) of sub-items under its bullet.
    notes: list[tuple[int, str]] = field(default_factory=list)
    from_table: bool = False

    @property
    def prose(self) -> str:
        return "\n".join(t for t in (self.description, self.usage) if t)


@dataclass(frozen=True)
class TableEntries:
    entries: tuple[ParamEntry, ...]
    unknown_columns: tuple[str, ...]
    line: int
    # Rows whose cells were realigned to the header (`_realigned`): (line, parameter name, offset).
    shifted: tuple[tuple[int, str, int], ...] = ()


# "(aclTensor*, 计算输入)" / "（aclTensor \*，计算输入|计算输出）" / "(aclTensor*, input)". Each part is
# one character class bounded by the next delimiter, so a line without the closing parenthesis
# fails in linear time.
_TYPE_DIR = lazy_pattern(r"^[ \t]*\**[ \t]*[（(]([^,，()（）]*)(?:[,，]([^()（）]*))?[)）][ \t]*\**[ \t]*[：:]?[ \t]*")
# A bullet that documents a parameter: "name(type, direction)：text", "**name** (type, direction): text".
_BULLET = lazy_pattern(
    r"^[ \t]*(?:\*\*)?`?([A-Za-z_]\w*)`?(?:\*\*)?[ \t]*[（(]([^,，()（）]*(?:\([^()]*\)[^,，()（）]*)?)"
    r"(?:[,，]([^()（）]*))?[)）][ \t]*(?:\*\*)?[ \t]*[：:]?[ \t]*(.*)$", re.S)
# "name：text" bullets with no type (a few pages, and 8.5.0's "x：输入 Tensor。" lines).
_BARE = lazy_pattern(r"^\s*`?([A-Za-z_]\w*)`?\s*[：:]\s*(.+)$", re.S)


def entries_from_table(table: Table, known_names: Sequence[str] = ()) -> Optional[TableEntries]:
    """The entries of a parameter table, or None when the table is not one (an error table, a
    product table, ...). A table is a parameter table when a column holds parameter names."""
    roles = [vocab.column_role(h, vocab.PARAM_COLUMNS) for h in table.header]
    if "dtypes_formats" in roles:
        roles = roles + ["dtypes", "formats"]  # both facts are present, from one column
    if "name" not in roles:
        # Header words this parser does not know: a table whose first column holds the
        # prototype's names is still a parameter table.
        if not known_names or not table.rows:
            return None
        firsts = {r.cells[0].text.strip("` *") for r in table.rows if r.cells}
        if len(firsts & set(known_names)) < max(1, min(2, len(known_names))):
            return None
        roles = [cast(Optional[str], "name")] + roles[1:]
    if roles.count("name") > 1 or not (set(roles) & {"direction", "description", "dtypes", "usage"}):
        if not known_names:
            return None
    if set(roles) & {"code"}:
        return None
    unknown = tuple(h for h, r in zip(table.header, roles) if r is None and h.strip())
    entries = []
    shifted = []
    name_column = roles.index("name") if "name" in roles else None
    usage_column = roles.index("usage") if "usage" in roles else None
    previous: Optional[tuple] = None  # the last row's cells, and the entries it made
    for row in table.rows:
        note = _added_note(row.cells, previous, name_column, usage_column)
        if note is not None and previous is not None:
            # A row under the parameter's spanned name cell (`rowspan`): another note of its
            # 使用说明 (aclnnAddmm's self: "需要与mat1@mat2满足broadcast关系" in a row of its own).
            for entry in previous[1]:
                entry.usage = "\n".join(t for t in (entry.usage, note) if t)
            previous = (row.cells, previous[1])
            continue
        values: dict[str, str] = {}
        name_line = row.line_of(roles.index("name")) if "name" in roles else row.line
        texts, skipped, offset = _realigned(roles, [cell.text for cell in row.cells])
        for role, text in zip(roles, texts):
            if role == "dtypes_formats":  # one "数据类型/格式" column: "FLOAT/FLOAT16，ND"
                values.setdefault("dtypes", text)
                values.setdefault("formats", text)
            elif role and role not in values:
                values[role] = text
        if skipped:
            values["usage"] = "\n".join(t for t in (values.get("usage", ""), *skipped) if not cell_is_empty(t))
        made = [_table_entry(name, name_line, values, roles) for name in _names_of(values.get("name", ""), known_names)]
        for entry in made:
            entries.append(entry)
            if offset:
                shifted.append((name_line, entry.name, offset))
        previous = (row.cells, made)
    if not entries:
        return None
    return TableEntries(tuple(entries), unknown, table.line, tuple(shifted))


def _added_note(cells, previous: Optional[tuple], name_column: Optional[int],
                usage_column: Optional[int]) -> Optional[str]:
    """The note a row only adds to the previous row's parameter, if that is all it does: its name
    cell is the one the previous row spans down (the same cell), and its 使用说明 cell is a new,
    non-empty one."""
    if previous is None or name_column is None or usage_column is None or not previous[1]:
        return None
    before = previous[0]
    if max(name_column, usage_column) >= min(len(cells), len(before)):
        return None
    usage = cells[usage_column]
    if cells[name_column] is before[name_column] and usage is not before[usage_column] and not cell_is_empty(usage.text):
        return usage.text
    return None


# A cell that is a list of dtypes and nothing else ("DOUBLE、FLOAT16、BOOL"), qualifiers aside.
_QUALIFIERS = lazy_pattern(r"[（(][^()（）\n]*[)）]")
_LIST_SEPARATORS = lazy_pattern(r"\s*(?:、|,|，|/|\bor\b|\band\b|或|和)\s*")


def _only_dtypes(text: str) -> bool:
    words = [w for w in _LIST_SEPARATORS.split(_QUALIFIERS.sub("", text).strip().rstrip("。.")) if w]
    return bool(words) and all(vocab.dtype_of(w) is not None for w in words)


def _realigned(roles: Sequence[Optional[str]], texts: list[str]) -> tuple[list[str], list[str], int]:
    """A row's cells aligned to the header when they are shifted by one around the 数据类型 column:
    its own cell lists no dtype while the next or previous cell is a list of dtypes alone. A row
    that repeats a cell before the list (aclnnHardtanh's selfRef: two 使用说明 cells) has the list
    one cell late; the repeated cell joins the row's usage. A row that skips a cell (aclnnNeTensor's
    selfRef: no 使用说明 cell, the list under 使用说明 and "ND" under 数据类型) has it one cell early;
    the skipped column is empty. Returns (cells, cells dropped, offset of the list)."""
    if "dtypes" not in roles:
        return texts, [], 0
    column = roles.index("dtypes")
    if column >= len(texts) or vocab.dtypes_in(texts[column])[0]:
        return texts, [], 0
    for offset in (1, -1):
        at = column + offset
        if 0 <= at < min(len(texts), len(roles)) and roles[at] != "name" and _only_dtypes(texts[at]):
            if offset > 0:
                return texts[:column] + texts[at:], texts[column:at], offset
            return texts[:at] + [""] + texts[at:], [], offset
    return texts, [], 0


def _table_entry(name: str, line: int, values: dict[str, str], roles: list) -> ParamEntry:
    entry = ParamEntry(name=name, line=line, from_table=True,
                       direction=values.get("direction", ""),
                       description=values.get("description", ""),
                       usage=_dash_empty(values.get("usage", "")),
                       dtypes=values.get("dtypes") if "dtypes" in roles else None,
                       formats=values.get("formats") if "formats" in roles else None,
                       rank=values.get("rank") if "rank" in roles else None,
                       noncontiguous=values.get("noncontiguous") if "noncontiguous" in roles else None)
    if cell_is_empty(entry.description):
        entry.description = ""
    _split_type_prefix(entry)
    return entry


def _dash_empty(text: str) -> str:
    return "" if cell_is_empty(text) else text


def _names_of(cell: str, known_names: Sequence[str]) -> list[str]:
    """The parameters a name cell documents: one, or several written "kernelH/kernelW"."""
    # Split at the separators, without the spaces around them (`re.split(r"\s*[/、,，]\s*")`
    # rescans a run of spaces from each of its characters).
    parts = re.split(r"[/、,，]", cell.strip(" `*"))
    parts = [part.lstrip() if i else part for i, part in enumerate(parts)]  # the spaces after a separator
    parts = [part.rstrip() for part in parts[:-1]] + parts[-1:]  # and before one
    if len(parts) > 1 and all(re.fullmatch(r"`?[A-Za-z_]\w*`?", p) for p in parts) and \
            any(p.strip("`") in known_names for p in parts):
        return [p.strip("`") for p in parts]
    name = _name_of(cell)
    return [name] if name else []


def _name_of(cell: str) -> str:
    """The parameter name of a name cell ("self", "`self`", "selfRef（可选）", "x1/x2")."""
    match = re.match(r"^\s*[`*]*([A-Za-z_]\w*)", cell)
    return match.group(1) if match else ""


def _split_type_prefix(entry: ParamEntry) -> None:
    """Cells written like bullets: "**(aclTensor\\*, 计算输入)**：Device侧的aclTensor..."."""
    match = _TYPE_DIR.match(entry.description.replace("\\*", "*"))
    if not match:
        return
    c_type, direction = match.group(1) or "", match.group(2) or ""
    if not (re.search(r"acl\w+|int|bool|float|double|char|\*", c_type) or vocab.direction_of(c_type)):
        return
    if not direction and vocab.direction_of(c_type):
        c_type, direction = "", c_type
    entry.c_type = entry.c_type or c_type.strip()
    entry.direction = entry.direction or direction.strip()
    entry.description = entry.description.replace("\\*", "*")[match.end():].strip()


def entry_from_bullet(text: str, line: int, known_names: Sequence[str] = ()) -> Optional[ParamEntry]:
    """A bullet that documents a parameter, or None.

    Typed bullets ("self(aclTensor*, 计算输入)：...") are always entries; untyped ones
    ("self：...") only when they name a known parameter.
    """
    text = text.replace("\\*", "*").replace("\\_", "_")
    match = _BULLET.match(text)
    if match:
        name, c_type, direction, rest = match.groups()
        c_type = (c_type or "").strip()
        direction = (direction or "").strip()
        if not direction and vocab.direction_of(c_type) and not re.search(r"acl|int|bool|float|double|char|\*", c_type):
            c_type, direction = "", c_type
        plausible = bool(re.search(r"acl\w+|int\d*_t|\bint\b|bool|float|double|char|\*|void", c_type)) or \
            vocab.direction_of(direction) is not None
        if plausible and (name in known_names or not known_names or c_type):
            return ParamEntry(name=name, line=line, direction=direction, c_type=c_type, description=rest.strip())
    match = _BARE.match(text)
    if match and match.group(1) in known_names:
        return ParamEntry(name=match.group(1), line=line, description=match.group(2).strip())
    return None


def entries_from_blocks(blocks: Sequence[Block], known_names: Sequence[str]) -> list[ParamEntry]:
    """Bullet-format entries of a run of blocks; deeper blocks under an entry are its notes."""
    entries: list[ParamEntry] = []
    current: Optional[ParamEntry] = None
    current_level = 0
    for block in blocks:
        if block.kind not in (ITEM, TEXT):
            if block.kind != "table":
                continue
            current = None
            continue
        if block.kind == ITEM:
            entry = entry_from_bullet(block.text, block.line, known_names)
            if entry is not None:
                entries.append(entry)
                current, current_level = entry, block.level
                continue
            if current is not None and block.level > current_level:
                current.notes.append((block.line, block.text))
                continue
            current = None
        else:
            # Parameters written as paragraphs ("**self** (aclTensor*, input): ...", or
            # untyped "x：输入 Tensor。" lines): one entry per line that reads as one.
            found = []
            for offset, text_line in enumerate(block.text.split("\n")):
                candidate = entry_from_bullet(text_line, block.line + offset, known_names)
                if candidate is not None and candidate.name in known_names:
                    found.append(candidate)
            if found:
                entries.extend(found)
                current, current_level = found[-1], block.level
                continue
            if current is not None and block.level > current_level:
                current.notes.append((block.line, block.text))
                continue
    return entries
