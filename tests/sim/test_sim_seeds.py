"""The simulator's tests run on hand-made IR of the seed pages (tests/support/sim_seed_ir.py); this checks it
against the parser's IR on every fact the simulator reads, so that the two cannot drift apart."""

import pytest

from tests.support.sim_seed_ir import parsed_seed_pages, seed_pages


def facts(page):
    """What gen.emit.sim reads of a page, order-insensitive where the page's order does not matter."""
    apis = {}
    for api in page.apis:
        params = []
        for p in api.params:
            params.append(dict(
                name=p.name, c_type=p.c_type.replace(" ", ""), kind=p.kind, direction=p.direction,
                optional=p.optional, dtypes=frozenset(p.dtypes),
                dtypes_by_product={e.soc: frozenset(e.dtypes) for e in p.dtypes_by_product},
                formats=frozenset(p.formats), rank=p.rank, empty_tensor=p.empty_tensor,
                relations=frozenset((r.kind, frozenset(r.others)) for r in p.relations)))
        errors = sorted((e.code, e.category.value if e.category else "", tuple(sorted(e.params))) for e in api.errors)
        apis[api.name] = dict(params=params, errors=errors, header=api.header,
                              ranges=frozenset(r.describe() for r in (*api.value_ranges, *api.value_sets)))
    products = frozenset((p.soc, p.supported) for p in page.products if p.soc)
    return dict(products=products, apis=apis)


PAIRS = list(zip(seed_pages(), parsed_seed_pages()))


@pytest.mark.parametrize("hand,parsed", PAIRS, ids=[h.source for h, _ in PAIRS])
def test_hand_made_seed_ir_agrees_with_the_parser(hand, parsed):
    expected, actual = facts(hand), facts(parsed)
    assert actual["products"] == expected["products"]
    assert actual["apis"].keys() == expected["apis"].keys()
    for name, api in expected["apis"].items():
        got = actual["apis"][name]
        assert got["header"] == api["header"]
        assert got["errors"] == api["errors"]
        assert got["ranges"] == api["ranges"]
        assert len(got["params"]) == len(api["params"])
        for mine, theirs in zip(api["params"], got["params"]):
            differing = {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}
            assert not differing, f"{name}.{mine['name']} (hand, parser): {differing}"
