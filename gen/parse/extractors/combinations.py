"""Dtype-combination tables: one row per valid combination of several parameters' dtypes, per
product ("输入和输出支持以下数据类型组合", "各产品型号支持数据类型说明").

    - <term>Ascend 950PR/Ascend 950DT</term>：

      | x数据类型 | gamma数据类型 | scale数据类型 | offsetOptional数据类型 | y数据类型 |
      | FLOAT16   | FLOAT16       | FLOAT16       | INT8                  | INT8、INT4 |

A table is one when at least two of its columns name parameters of the API that carry a dtype
(the name alone, or followed by 数据类型/dtype/类型, in backticks or not). The chips it applies to
are those of the product line right above it (none: every chip).

A cell is read when every word of it is a dtype, a word for NULL ("null", "空指针"), "与x一致"
(the dtype the parameter x has in the call) or a word that says nothing about the dtype
("必选", "可选"). A cell with anything else ("FLOAT（仅x为BFLOAT16）", a shape) is left out of its
row, so the row constrains that parameter less, never more: the simulator then accepts some
calls the page rules out rather than rejecting one it allows. Such cells are diagnosed.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from gen.ir import CombinationCell, Diagnostic, DTypeCombination, Level, Param, ParamKind, Soc
from gen.parse.extractors import vocab
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import ITEM, TABLE, TEXT, Block, Table
from gen.parse.readers.scan import MARKUP

UNREAD_CELL = "combination-cell-unread"

_HEADER_MARKUP = lazy_pattern(r"<[^<>]+>|`|\*|\s")
_HEADER_SUFFIX = lazy_pattern(r"(?<=\w)的?(?:数据类型|data\s*types?|dtypes?|类型)$", re.I)
# A clause of a cell about something else than the dtype ("shape需要与x1后几维保持一致；FLOAT32").
_OTHER_CLAUSE = lazy_pattern(r"shape|维|format|格式", re.I)
_NULL = lazy_pattern(r"^(?:null|nullptr|空指针|none|空|不传|无需赋值|无需传入|-)(?:[（(][^()（）]*[)）])?$", re.I)
_NEUTRAL = lazy_pattern(r"^(?:必选|必需|必须|可选|optional|required)$", re.I)
_SAME_AS = lazy_pattern(r"^(?:与|和|同)`?([A-Za-z_]\w*)`?(?:的数据类型)?(?:一致|相同)$")
_SEPARATORS = lazy_pattern(r"[、/,，;；]|\s+|或者?|\bor\b|<br\s*/?>")


def column_params(header: Sequence[str], params: Sequence[Param]) -> dict[int, str]:
    """The columns of a table header that name a parameter of the API with a dtype, by index."""
    by_name = {p.name: p for p in params if p.kind in vocab.DTYPED_KINDS or p.kind is ParamKind.DTYPE}
    found: dict[int, str] = {}
    for i, text in enumerate(header):
        name = _HEADER_SUFFIX.sub("", _HEADER_MARKUP.sub("", text))
        if name in by_name and name not in found.values():
            found[i] = name
    return found


def read_cell(param: str, text: str, names: Sequence[str]) -> Optional[CombinationCell]:
    """What one cell allows, or None when it says something this reader does not take (or
    nothing about the dtype: "必选"). Clauses about the shape or format are skipped."""
    text = re.sub(r"<(?!br)[^>]+>", "", text).strip()
    clauses = [c for c in re.split(r"[；;]", text) if c.strip() and not _OTHER_CLAUSE.search(c)]
    text = "，".join(clauses)
    dtypes: list = []
    absent = False
    same_as = ""
    for token in _SEPARATORS.split(text):
        token = token.strip()
        if not token or _NEUTRAL.match(token):
            continue
        dtype = vocab.dtype_of(token)
        if dtype is not None:
            if dtype not in dtypes:
                dtypes.append(dtype)
            continue
        if _NULL.match(token):
            absent = True
            continue
        same = _SAME_AS.match(token)
        if same and same.group(1) in names and not same_as:
            same_as = same.group(1)
            continue
        return None
    if not (dtypes or absent or same_as):
        return None
    return CombinationCell(param, tuple(dtypes), absent, same_as)


# An introduction that restricts its table to some cases ("涉及...的", "针对...场景", "当...时").
_CONDITIONAL = lazy_pattern(r"涉及|针对|场景|" + vocab.WHEN + r".{0,40}时|如果|若")


def _products_above(blocks: Sequence[Block], index: int) -> Optional[tuple[Soc, ...]]:
    """The chips of the product line right above the table at `index` ("- <term>Atlas A2 ...</term>："),
    () when the text above is something else, None when it makes the table conditional."""
    for block in reversed(blocks[:index]):
        if block.kind == TABLE:
            return ()
        if block.kind not in (ITEM, TEXT):
            continue
        text = MARKUP.sub("", block.text).strip()
        if len(text) > 160 or not re.search(r"[：:]\s*$", text):
            return ()
        socs = vocab.socs_in(text)
        if not socs and _CONDITIONAL.search(text):
            # aclnnCast: "针对输入、输出类型，涉及COMPLEX32、...的，只支持如下表格中的转换路径：" (under
            # the 950 chips only): the table holds only where its condition does.
            return None
        return socs
    return ()


def combinations_in(api: str, blocks: Sequence[Block], params: Sequence[Param],
                    diags: list[Diagnostic]) -> tuple[DTypeCombination, ...]:
    """Every row of every dtype-combination table among `blocks` (a constraints section)."""
    names = [p.name for p in params]
    found: list[DTypeCombination] = []
    for index, block in enumerate(blocks):
        if block.kind != TABLE or block.table is None:
            continue
        table: Table = block.table
        columns = column_params(table.header, params)
        transposed = _transposed(api, table, params, names, diags) if len(columns) < 2 else None
        if len(columns) < 2 and not transposed:
            continue
        products = _products_above(blocks, index)
        if products is None and transposed:
            products = ()  # "在不同量化场景下...": the cases the condition names are the table's columns
        if products is None:
            diags.append(Diagnostic(Level.INFO, block.line, "combination-conditional",
                                    f"{api}: the dtype-combination table holds under a condition of the text "
                                    "above it; it is not checked"))
            continue
        if transposed:
            found.extend(DTypeCombination(cells, products, line) for line, cells in transposed)
            continue
        for row in table.rows:
            cells: list[CombinationCell] = []
            for column, name in columns.items():
                if column >= len(row.cells):
                    continue
                cell = read_cell(name, row.cells[column].text, names)
                if cell is None:
                    text = row.cells[column].text.strip()
                    if text and not all(_NEUTRAL.match(t) for t in _SEPARATORS.split(text) if t.strip()):
                        diags.append(Diagnostic(Level.INFO, row.line_of(column), UNREAD_CELL,
                                                f"{api}.{name}: the combination cell {text[:60]!r} is not read; "
                                                f"this row does not constrain {name}"))
                    continue
                cells.append(cell)
            if len(cells) >= 1:
                found.append(DTypeCombination(tuple(cells), products, row.line))
    return tuple(found)


_DTYPE_HEADER = lazy_pattern(r"^(?:dtype|数据类型|data\s*type)$", re.I)


def _transposed(api: str, table: Table, params: Sequence[Param], names: Sequence[str],
                diags: list[Diagnostic]) -> list[tuple[int, tuple[CombinationCell, ...]]]:
    """The combinations of a table written the other way round: one row per parameter, one
    dtype column per case, under a header row that says "dtype" over those columns (aclnnMlaProlog's
    "在不同量化场景下，参数的dtype和shape组合": a dtype and a shape column per quantisation case,
    "无需赋值" where the case passes no tensor). Each dtype column is one combination, at its
    header's line."""
    dtyped = {p.name for p in params if p.kind in vocab.DTYPED_KINDS}
    marks = next((row for row in table.rows if sum(bool(_DTYPE_HEADER.match(t.strip())) for t in row.texts) >= 2), None)
    if marks is None:
        return []
    rows = [(row, row.texts[0].strip(" `*")) for row in table.rows if row.texts and row.texts[0].strip(" `*") in dtyped]
    if len(rows) < 2:
        return []
    found = []
    for column, mark in enumerate(marks.texts):
        if not _DTYPE_HEADER.match(mark.strip()):
            continue
        cells = []
        for row, name in rows:
            cell = read_cell(name, row.texts[column], names) if column < len(row.texts) else None
            if cell is None and column < len(row.texts) and row.texts[column].strip():
                diags.append(Diagnostic(Level.INFO, row.line_of(column), UNREAD_CELL,
                                        f"{api}.{name}: the combination cell {row.texts[column].strip()[:60]!r} is "
                                        f"not read; this case does not constrain {name}"))
            elif cell is not None:
                cells.append(cell)
        if cells:
            found.append((marks.line_of(column), tuple(cells)))
    return found


def dtypes_from(param: str, combinations: Sequence[DTypeCombination]) -> tuple[tuple, dict[Soc, tuple]]:
    """The dtypes the combination rows give `param` (in row order): over every row, and per chip
    for rows that name chips. For a parameter whose row says "参见约束说明"."""
    general: list = []
    per_soc: dict[Soc, list] = {}
    for combination in combinations:
        cell = combination.cell(param)
        if cell is None:
            continue
        targets = [general] + [per_soc.setdefault(soc, []) for soc in combination.products]
        for target in targets:
            for dtype in cell.dtypes:
                if dtype not in target:
                    target.append(dtype)
    return tuple(general), {soc: tuple(d) for soc, d in per_soc.items()}
