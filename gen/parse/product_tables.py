"""Tables with a column per product ("约束类型 | Ascend 950PR/Ascend 950DT | Atlas A2 训练系列产品 | ..."):
the dtypes their cells exclude for each chip are read as product notes; the rest of what they
state per chip is said to be unread."""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from gen.ir import Diagnostic, Level, Soc
from gen.parse.extractors import prose, vocab
from gen.parse.extractors.relations import CONDITION
from gen.parse.readers.document import Block, Document, TABLE
from gen.parse.readers.scan import MARKUP


PER_PRODUCT_TABLE = "per-product-table-unread"


def _product_tables(doc: Document) -> list[tuple[Block, dict[int, tuple[Soc, ...]]]]:
    """Tables with a column per product ("约束类型 | Ascend 950PR/Ascend 950DT | Atlas A2 训练系列产品 |
    ..."), with the chips of each such column."""
    found = []
    for block in doc.blocks:
        if block.kind != TABLE or block.table is None:
            continue
        header = [MARKUP.sub("", h) for h in block.table.header]
        columns = {i: vocab.socs_in(h) for i, h in enumerate(header) if i and vocab.socs_in(h)}
        if columns and not vocab.socs_in(header[0]):
            found.append((block, columns))
    return found


def per_product_tables(doc: Document) -> list[Diagnostic]:
    """What a table with a column per product states in prose beyond the dtypes it excludes
    (`product_table_notes`: "L维度的大小应该在[1,255]的范围内", cubeMathType's modes) is not read:
    said, naming its rows."""
    found = []
    for block, columns in _product_tables(doc):
        assert block.table is not None
        rows = [row.texts[0].strip() for row in block.table.rows if row.texts and row.texts[0].strip()]
        listed = ", ".join(rows[:6]) + (", ..." if len(rows) > 6 else "")
        found.append(Diagnostic(Level.WARNING, block.line, PER_PRODUCT_TABLE,
                                f"a table with a column per product ({len(columns)} product column(s); rows: {listed}): "
                                f"only the dtypes its cells exclude ('数据类型不支持...') are read; the rest of what it "
                                f"states per chip is not checked"))
    return found


def product_table_notes(doc: Document, names: Sequence[str]) -> list[prose.DTypeNote]:
    """The dtypes a table with a column per product excludes for its chips, as product notes of
    the parameters section: "input、weight数据类型不支持HIFLOAT8、FLOAT8_E4M3FN" (the row "input、weight"
    of the column "Atlas A2 训练系列产品"), "不支持BFLOAT16、HIFLOAT8" (the row "dtype约束": every tensor
    whose list has them). Only unconditional exclusions: "只有在transposed=true...时，数据类型才支持..."
    and "当input是HIFLOAT8时，不支持带bias" are not read."""
    notes: list[prose.DTypeNote] = []
    for block, columns in _product_tables(doc):
        assert block.table is not None
        for row in block.table.rows:
            label = prose.names_in(row.texts[0], names) if row.texts else ()
            for column, socs in columns.items():
                if column >= len(row.cells):
                    continue
                for sentence in re.split(r"[。；;\n]", row.cells[column].text):
                    if CONDITION.search(sentence):
                        continue
                    for note in prose.note_statements(socs, sentence, row.line_of(column), names):
                        if note.op == prose.REMOVE:
                            notes.append(dataclasses.replace(note, params=note.params or label))
    return notes
