"""gen.parse.patterns.NamedPattern: a pattern compiled once for any names finds what the pattern
with the names spelt out finds, on texts where the two could part (another identifier where a name
goes, a name list joined by an English "or", a case-insensitive pattern, the letters re folds to ASCII)."""

import re

import pytest

from gen.parse.patterns import NAME, NAME_ANYWHERE, NamedPattern, bounded, name_list, name_matches

NAMES = frozenset({"self", "dim", "kernelSize", "or_else"})
TEXTS = (
    "dim大于0", "foo或dim大于0", "self、dim必须大于0", "self或foo小于0", "self or dim less than 0",
    "x.dim大于0", "kernelSize/2小于dim", "Self大于0", "DIM大于0", "ſelf大于0", "dimx大于0, dim大于1",
    "当self的维度为0时, dim大于0", "self、or_else大于0", "", "大于0", "xdim为0", "dims为1", "DIM is 2", "当dim为0时",
    "dimis 3", "kernelSizex为2, dim为4",
)
LISTED = name_list(r"\s*(?:、|或|\bor\b)\s*")
TEMPLATES = (
    (rf"(?:(?P<lead>{NAME})\s*的)?\s*维度", 0),
    (rf"(?P<names>{LISTED})\s*(?:大于|小于|less\s+than)\s*(?P<bound>\d+|{NAME})", 0),
    (rf"(?P<names>{LISTED})\s*(?:大于|小于|less\s+than)\s*(?P<bound>\d+|{NAME})", re.I),
    (rf"^\s*(?P<name>{NAME})?\s*大于", re.I),
    (rf"(?:当|if)?\s*(?P<w>{NAME_ANYWHERE})\s*(?:为|is)\s*(?P<v>\d+)", re.I),
    (rf"(?P<a>{NAME})\s*大于\s*(?P<b>{NAME_ANYWHERE})", 0),
)


def spelt(template: str, names: frozenset[str]) -> str:
    """The template with the names written in, as the parser wrote its patterns before NamedPattern."""
    alternatives = bounded(sorted(names, key=len, reverse=True))
    anywhere = "(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + ")" if names else r"(?!x)x"
    return re.sub("\x00list(.*?)\x00", lambda m: f"{alternatives}(?:{m.group(1)}{alternatives})*",
                  template.replace(NAME, alternatives).replace(NAME_ANYWHERE, f"(?-i:{anywhere})"))


def spans(matches) -> list:
    return [(m.span(), {k: v for k, v in m.groupdict().items() if not k.startswith("_slot")}) for m in matches]


@pytest.mark.parametrize("template,flags", TEMPLATES)
@pytest.mark.parametrize("names", [NAMES, frozenset(), frozenset({"dim"})])
def test_named_pattern_finds_what_the_names_pattern_finds(template, flags, names):
    pattern, expected = NamedPattern(template, flags), re.compile(spelt(template, names), flags)
    for text in TEXTS:
        assert spans(pattern.finditer(names, text)) == spans(expected.finditer(text)), text
        assert spans(filter(None, [pattern.search(names, text)])) == spans(filter(None, [expected.search(text)])), text
        assert spans(filter(None, [pattern.match(names, text)])) == spans(filter(None, [expected.match(text)])), text


def test_name_matches_are_the_whole_identifiers_that_are_names():
    text = "self、dimx、x.dim、dim和kernelSize/2"
    assert [m.group(0) for m in name_matches(NAMES, text)] == \
        re.findall(bounded(sorted(NAMES, key=len, reverse=True)), text) == ["self", "dim", "kernelSize"]


@pytest.mark.parametrize("template", [rf"({NAME})\s*=\s*\1", rf"(a)?(?(1){NAME}|b)"])
def test_a_template_that_refers_to_a_group_by_number_is_refused(template):
    with pytest.raises(ValueError, match="by name only"):
        NamedPattern(template)
