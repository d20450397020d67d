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

from gen.ir import API, Diagnostic, DType, Level, Page, PageKind, Param, ParamKind

# What a README's 数据类型 column gives an attribute that names a dtype: the integer the kernel
# stores the enum in ("dtype | int64", SignBitsUnpack's experimental README), not the dtypes an
# aclDataType argument may name (FLOAT16 and FLOAT, its API page's usage cell).
_ENUM_STORAGE = frozenset({DType.INT32, DType.INT64})


def merge_readmes(pages: Sequence[Page]) -> list[Page]:
    targets = readmes_by_page(pages)
    result: list[Page] = []
    for page in pages:
        if page.kind is not PageKind.OP_README:
            for readme in targets.get(page.source, ()):
                page = merge_readme(page, readme)
            result.append(page)
    folded = {readme.source for readmes in targets.values() for readme in readmes}
    # READMEs that were folded disappear; unlinked ones keep their place at the end.
    return result + [p for p in pages if p.kind is PageKind.OP_README and p.source not in folded]


def readmes_by_page(pages: Sequence[Page]) -> dict[str, list[Page]]:
    """The READMEs each page takes facts from (by the page's source, in the READMEs' order): those
    that link to an API the page documents."""
    by_api: dict[str, list[str]] = {}
    for page in pages:
        if page.kind is not PageKind.OP_README:
            for api in page.apis:
                by_api.setdefault(api.name, []).append(page.source)
    targets: dict[str, list[Page]] = {}
    for readme in (p for p in pages if p.kind is PageKind.OP_README):
        for source in dict.fromkeys(s for link in readme.links for s in by_api.get(link.api, ())):
            targets.setdefault(source, []).append(readme)
    return targets


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
    if not param.dtypes and other.dtypes and not _states_enum_storage(param, other):
        updates.update(dtypes=other.dtypes, dtypes_by_product=other.dtypes_by_product)
    if not param.formats and other.formats:
        updates["formats"] = other.formats
    if not updates:
        return param
    notes.append(_note(readme, param.line, other.line,
                       f"{param.name}: {', '.join(sorted(updates))} taken from the README"))
    return dataclasses.replace(param, **updates)


def _states_enum_storage(param: Param, other: Param) -> bool:
    """Whether the README row `other` gives the aclDataType argument `param` only the integer its
    attribute is stored in: read as dtypes the argument names, it would refuse every dtype the page
    allows."""
    return param.kind is ParamKind.DTYPE and set(other.dtypes) <= _ENUM_STORAGE


def _note(readme: Page, line: int, readme_line: int, message: str) -> Diagnostic:
    """A note on the API page's `line`, citing the README line the fact came from."""
    return Diagnostic(Level.INFO, line, "merged-from-readme", f"{message} ({readme.source}:{readme_line})")
