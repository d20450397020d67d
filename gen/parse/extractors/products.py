"""The products a page lists (产品支持情况 / 支持的产品型号 / Supported Products).

Pages write them as a two-column table (product, √/×), as bullets ("<term>Atlas A3 ...</term>：支持"),
or as a bare list of the supported products (the web dump). Each becomes a `Product` with the
name as written, whether it is supported, and the chip (`Soc`) behind the name.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from gen.ir import Diagnostic, Level, Product
from gen.parse.extractors import vocab
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import ITEM, TABLE, TEXT, Block, Section

PRODUCT_SECTION = lazy_pattern(r"产品支持|支持的产品|支持产品|Supported\s+Products?|Product\s+Support|Applicable\s+Products?|"
                             r"Supported\s+(?:Models|Hardware)", re.I)
_PRODUCT_HEADER = lazy_pattern(r"^(?:产品|产品型号|支持产品|product|products|产品名称|model)$", re.I)
_SUPPORT_HEADER = lazy_pattern(r"^(?:是否支持|支持情况|支持|supported|support|是否支持该接口|supported\?)$", re.I)
# "<product>：<support>": the product ends at its last non-space before the first colon.
_ITEM = lazy_pattern(r"^((?:[^：:]*[^：:\s])?)\s*[：:]\s*(.*)$", re.S)


def find_products(sections: Sequence[Section], diags: list[Diagnostic]) -> tuple[Product, ...]:
    for section in sections:
        if PRODUCT_SECTION.search(section.title):
            products = products_in(section.blocks, diags)
            if not products:
                diags.append(Diagnostic(Level.WARNING, section.line, "products-unreadable",
                                        f"the section {section.title!r} lists no product this parser can read"))
            return products
    return ()


def products_in(blocks: Sequence[Block], diags: list[Diagnostic]) -> tuple[Product, ...]:
    products: list[Product] = []
    for block in blocks:
        if block.kind == TABLE and block.table is not None:
            products.extend(_from_table(block, diags))
        elif block.kind in (ITEM, TEXT):
            for offset, line in enumerate(block.text.split("\n")):
                product = _from_line(line, block.line + offset, bare_ok=block.kind == ITEM)
                if product is not None:
                    products.append(product)
    seen: set[str] = set()
    unique = []
    for p in products:
        if p.name not in seen:
            seen.add(p.name)
            unique.append(p)
    for p in unique:
        if p.soc is None:
            diags.append(Diagnostic(Level.INFO, p.line, "unknown-product",
                                    f"product {p.name!r} maps to no known chip"))
    return tuple(unique)


def _from_table(block: Block, diags: list[Diagnostic]) -> list[Product]:
    table = block.table
    assert table is not None
    keys = [vocab.header_key(h) for h in table.header]
    name_col = next((i for i, k in enumerate(keys) if _PRODUCT_HEADER.match(k)), None)
    mark_col = next((i for i, k in enumerate(keys) if _SUPPORT_HEADER.match(k)), None)
    if name_col is None or mark_col is None:
        if len(table.header) == 2 and vocab.PRODUCT_WORD.search(" ".join(r.cells[0].text for r in table.rows[:1]
                                                                         if r.cells)):
            name_col, mark_col = 0, 1
        elif name_col is not None:
            return _listed(table, name_col)
        else:
            return []
    out = []
    for row in table.rows:
        if len(row.cells) <= max(name_col, mark_col):
            continue
        name = row.cells[name_col].text.strip(" `*")
        mark = vocab.support_mark(row.cells[mark_col].text)
        if not name:
            continue
        if mark is None:
            diags.append(Diagnostic(Level.WARNING, row.line, "unknown-support-mark",
                                    f"product {name!r}: support mark {row.cells[mark_col].text!r} is not √/×"))
            continue
        out.append(Product(name=name, supported=mark, soc=vocab.soc_of(name), line=row.line))
    return out


def _listed(table, name_col: int) -> list[Product]:
    """A product table without a support column lists the supported products; the chip may be
    named in another column ("产品型号 | 芯片号 | ...")."""
    out = []
    for row in table.rows:
        if len(row.cells) <= name_col or not row.cells[name_col].text.strip():
            continue
        name = row.cells[name_col].text.strip(" `*")
        soc = vocab.soc_of(name) or vocab.soc_of(" ".join(row.texts))
        out.append(Product(name=name, supported=True, soc=soc, line=row.line))
    return out


def _from_line(text: str, line: int, bare_ok: bool) -> Optional[Product]:
    text = text.strip().lstrip("-*•").strip()
    if not vocab.PRODUCT_WORD.search(text):
        return None
    match = _ITEM.match(text)
    if match and vocab.support_mark(match.group(2)) is not None:
        name = match.group(1).strip(" `*")
        return Product(name=name, supported=bool(vocab.support_mark(match.group(2))), soc=vocab.soc_of(name), line=line)
    if bare_ok and len(text) < 120:
        # The web dump's bare list: "Atlas 推理系列产品。" names a supported product.
        name = text.rstrip("。.;；").strip(" `*")
        return Product(name=name, supported=True, soc=vocab.soc_of(name), line=line)
    return None
