"""Folding op READMEs into the API pages they link to (`python -m gen inspect --merge`).

A README states, for its op, the products and the parameters' dtypes; the API page is the
authority on everything it states itself. Merging fills only what the API page leaves empty:
products it does not list (by chip), and the dtypes (and formats) of parameters whose rows state
none. Each filled fact is noted on the API page, with the README's source and line. A README
whose linked page is not among the pages stays in the list as it is.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from gen.ir import API, Diagnostic, Level, Page, PageKind, Param


def merge_readmes(pages: Sequence[Page]) -> list[Page]:
    readmes = [p for p in pages if p.kind is PageKind.OP_README]
    merged: dict[int, Page] = {i: p for i, p in enumerate(pages) if p.kind is not PageKind.OP_README}
    leftover: list[Page] = []
    for readme in readmes:
        targets = [i for i, page in merged.items() if any(a.name in {l.api for l in readme.links} for a in page.apis)]
        if not targets:
            leftover.append(readme)
            continue
        for i in targets:
            merged[i] = merge_readme(merged[i], readme)
    out = [merged[i] if i in merged else None for i in range(len(pages))]
    result = [p for p in out if p is not None]
    # READMEs that were folded disappear; unlinked ones keep their place at the end.
    return result + leftover


def merge_readme(page: Page, readme: Page) -> Page:
    notes: list[Diagnostic] = []
    products = list(page.products)
    known = {p.soc for p in products if p.soc is not None}
    for product in readme.products:
        if product.soc is not None and product.soc not in known:
            products.append(product)
            known.add(product.soc)
            notes.append(_note(readme, 1, product.line, f"product {product.name!r} added from the README"))
    linked = {l.api for l in readme.links}
    apis = [(_merge_api(api, readme, notes) if api.name in linked else api) for api in page.apis]
    return dataclasses.replace(page, products=tuple(products), apis=tuple(apis),
                               diagnostics=page.diagnostics + tuple(notes))


def _merge_api(api: API, readme: Page, notes: list[Diagnostic]) -> API:
    by_name = {p.name: p for p in readme.params}
    params = []
    for param in api.params:
        other = by_name.get(param.name)
        params.append(_merge_param(param, other, readme, notes) if other is not None else param)
    return dataclasses.replace(api, params=tuple(params))


def _merge_param(param: Param, other: Param, readme: Page, notes: list[Diagnostic]) -> Param:
    updates: dict = {}
    if not param.dtypes and other.dtypes:
        updates.update(dtypes=other.dtypes, dtypes_by_product=other.dtypes_by_product)
    if not param.formats and other.formats:
        updates["formats"] = other.formats
    if not updates:
        return param
    notes.append(_note(readme, param.line, other.line,
                       f"{param.name}: {', '.join(sorted(updates))} taken from the README"))
    return dataclasses.replace(param, **updates)


def _note(readme: Page, line: int, readme_line: int, message: str) -> Diagnostic:
    """A note on the API page's `line`, citing the README line the fact came from."""
    return Diagnostic(Level.INFO, line, "merged-from-readme", f"{message} ({readme.source}:{readme_line})")
