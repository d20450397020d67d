"""Op READMEs (seed 004): the op's products, its parameter table (no prototypes), and the
调用说明 table whose links name the aclnn pages of its APIs.

Without a prototype there is no C type: a parameter's kind is inferred from its dtype column
(tensor dtypes on an input or output: a tensor; a single dtype on an attribute: that scalar
kind), and left unknown otherwise.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional

from gen.ir import Diagnostic, Direction, DType, Level, Link, Page, PageKind, Param, ParamKind, Product
from gen.parse.extractors import vocab
from gen.parse.guarded import guarded
from gen.parse.param_entries import documented_entries
from gen.parse.sections import FUNCTION_SECTION, first_section
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import TABLE, Document, block_text
from gen.parse.extractors.params import ParamContext, build_param
from gen.parse.extractors.products import find_products
from gen.parse.extractors.prototypes import CParam

_README_FILE = lazy_pattern(r"(?:^|[/\\])README[^/\\]*$", re.I)
_INVOCATION = lazy_pattern(r"调用说明|调用方式|Invocation|Calling|How\s+to\s+(?:Call|Use)", re.I)
_PARAMS = lazy_pattern(r"参数说明|Parameters?", re.I)
_API_LINK = lazy_pattern(r"(aclnn[A-Za-z0-9_]+)")
_ATTR_KINDS = {DType.INT64: ParamKind.INT, DType.INT32: ParamKind.INT, DType.INT8: ParamKind.INT,
               DType.INT16: ParamKind.INT, DType.UINT64: ParamKind.INT, DType.FLOAT: ParamKind.FLOAT,
               DType.DOUBLE: ParamKind.FLOAT, DType.BOOL: ParamKind.BOOL, DType.STRING: ParamKind.STRING}


def is_readme(doc: Document, source: str) -> bool:
    if _README_FILE.search(source):
        return True
    title = doc.title
    if title.startswith("aclnn") or any("aclnnStatus" in b.text for b in doc.blocks):
        return False
    return any(_INVOCATION.search(s.title) for s in doc.sections())


def build_readme(doc: Document, source: str, diags: list[Diagnostic]) -> Page:
    sections = doc.sections()
    products: tuple[Product, ...] = guarded(diags, 1, "the product list", lambda: find_products(sections, diags), ())
    function = first_section(sections, FUNCTION_SECTION)
    params: tuple[Param, ...] = guarded(diags, 1, "the parameter table", lambda: _params(doc, diags), ())
    links: tuple[Link, ...] = guarded(diags, 1, "the API links", lambda: _links(doc), ())
    if not links:
        diags.append(Diagnostic(Level.INFO, 1, "readme-no-links", "the README links to no aclnn page"))
    return Page(source=source, kind=PageKind.OP_README, title=doc.title,
                description=block_text(function.blocks) if function else "",
                products=products, links=links, params=params)


def _params(doc: Document, diags: list[Diagnostic]) -> tuple[Param, ...]:
    sections = doc.sections()
    section = first_section(sections, _PARAMS)
    blocks = section.blocks if section is not None else doc.blocks
    names = _table_names(blocks)
    entries, notes = documented_entries(blocks, names, diags)
    ctx = ParamContext(api_params=names, section_notes=notes)
    params: list[Param] = []
    for name in names:
        entry = entries.get(name)
        if entry is None:
            continue
        param = build_param(CParam("", name), entry, ctx, [], entry.line)
        params.append(dataclasses.replace(param, kind=_kind(param, entry.direction)))
    if not params:
        diags.append(Diagnostic(Level.INFO, section.line if section else 1, "readme-no-params",
                                "the README has no parameter table this parser can read"))
    return tuple(params)


def _table_names(blocks) -> list[str]:
    from gen.parse.extractors.entries import entries_from_table

    names: list[str] = []
    for block in blocks:
        if block.kind == TABLE and block.table is not None:
            found = entries_from_table(block.table)
            if found is None:
                continue
            for entry in found.entries:
                if entry.name not in names and entry.name not in vocab.PROTOCOL_PARAMS:
                    names.append(entry.name)
    return names


def _kind(param: Param, direction_text: str) -> Optional[ParamKind]:
    attribute = "属性" in direction_text or "attr" in direction_text.lower()
    if not param.dtypes:
        return None
    if attribute:
        kinds = {_ATTR_KINDS.get(d) for d in param.dtypes}
        return kinds.pop() if len(kinds) == 1 else None
    if param.direction in (Direction.IN, Direction.OUT, Direction.INOUT):
        return ParamKind.TENSOR
    return None


def _links(doc: Document) -> tuple[Link, ...]:
    links: list[Link] = []
    seen: set[tuple[str, str]] = set()
    for section in doc.sections():
        if not _INVOCATION.search(section.title):
            continue
        for block in section.blocks:
            candidates: list[tuple[str, str, int]] = [(t, href, block.line) for t, href in block.links]
            if block.kind == TABLE and block.table is not None:
                for row in block.table.rows:
                    for cell in row.cells:
                        candidates.extend((t, href, row.line) for t, href in cell.links)
            for text, href, line in candidates:
                api = _api_of(text, href)
                if api and (api, href) not in seen:
                    seen.add((api, href))
                    links.append(Link(api=api, doc=href, line=line))
    return tuple(links)


def _api_of(text: str, href: str) -> str:
    """The API a link names: its text when that is an API name, else the page file's name."""
    match = _API_LINK.fullmatch(text.strip("` "))
    if match and href.endswith((".md", ".html", ".htm")):
        return match.group(1)
    if re.search(r"aclnn[^/]*\.md$", href):
        stem = href.rsplit("/", 1)[-1][:-3]
        first = stem.split("&")[0]
        return first if _API_LINK.fullmatch(first) else ""
    return ""
