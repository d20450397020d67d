"""The parser's scanners (gen.parse.readers.scan) find exactly what their regular expressions find when
run as they stand (quadratic on unclosed constructs, so only on short texts here), on random
texts made of the characters that matter to each construct."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings, strategies as st

from gen.parse.extractors import conditions, entries, errors, params, products, prose, rules

from gen.parse.readers import inline, tables

EXAMPLES = settings(max_examples=400, deadline=None, derandomize=True, database=None)


def _texts(alphabet: str, max_size: int = 40) -> st.SearchStrategy[str]:
    return st.text(st.sampled_from(alphabet), max_size=max_size)


@EXAMPLES
@given(_texts("`` `x\n"))
def test_code_spans_are_the_expressions_matches(text):
    expected = [(m.start(), m.end(), m.group(2)) for m in inline._CODE_SPAN.finditer(text)]
    assert list(inline._code_spans(text)) == expected


@EXAMPLES
@given(_texts('[]()!<>" \n\tx/'))
def test_links_are_the_expressions_matches(text):
    expected = [(m.span(), m.groups()) for m in inline._LINK.finditer(text)]
    assert [(m.span(), m.groups()) for m in inline._links(text)] == expected


@EXAMPLES
@given(_texts('[]()" \n\tx'))
def test_links_in_html_cells_are_the_expressions_matches(text):
    expected = [(m.span(), m.groups()) for m in tables._MD_LINK.finditer(text)]
    assert [(m.span(), m.groups()) for m in tables._md_links(text)] == expected


@EXAMPLES
@given(_texts("**__ x\n"))
def test_bold_is_the_expressions_matches(text):
    expected = [(m.span(), m.groups()) for m in inline._BOLD.finditer(text)]
    assert [(m.span(), m.groups()) for m in inline._bold(text)] == expected


@EXAMPLES
@given(_texts("<!-->x\n"))
def test_comments_are_removed_as_a_lazy_expression_removes_them(text):
    assert inline._without_comments(text) == re.sub(r"<!--.*?-->", "", text, flags=re.S)


@EXAMPLES
@given(_texts("<sup>/ 1,\u3000x", max_size=30))
def test_footnote_marks_are_those_with_spaces_around_them_too(text):
    # The expression once read `<sup>\s*[...\s]+\s*</sup>`: cubic on a run of spaces, and the same
    # language, since the class holds the spaces.
    before = re.compile(r"<sup>\s*[\d*†‡,，、\s]+\s*</sup>", re.I)
    assert inline._FOOTNOTE.sub("", text) == before.sub("", text)


@EXAMPLES
@given(st.text(st.sampled_from("&#xX0123456789aF;"), max_size=24))
def test_unescape_is_html_unescape(text):
    assert inline.unescape(text) == html.unescape(text)


def test_unescape_of_a_number_of_thousands_of_digits_is_the_replacement_character():
    # html.unescape raises here (int() refuses strings of more than 4300 digits): the whole page
    # was lost as a parser failure.
    assert inline.unescape("a &#" + "9" * 5000 + "; b") == "a \ufffd b"
    assert inline.unescape("&#x" + "f" * 5000) == "\ufffd"
    assert inline.unescape("&#" + "0" * 5000 + "65;") == "A"


def test_inline_text_of_unclosed_constructs():
    assert inline.inline_text("see [x](y and ![i](j and **b and `c and <!-- d") == (
        "see [x](y and ![i](j and **b and `c and <!-- d", ())
    assert inline.inline_text("[a](b) **c** `` `d` `` <!-- e -->f") == ("a c `d` f", (("a", "b"),))


# --- expressions rewritten to stay linear: the same matches as they had -------------------------

def _joined(pieces: list[str], max_size: int = 12) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=max_size).map("".join)


def _span_and_groups(match):
    return match and (match.span(), match.groups())


_PRODUCT_PIECES = ["Atlas", "A200I", "昇腾", " ", "\u2003", "\n", "：", ":", "x", "-", "•", "。", "；", "\t"]


@EXAMPLES
@given(_joined(_PRODUCT_PIECES))
def test_product_heads_end_where_the_lazy_expressions_ended(text):
    # A lazy head followed by `\s*[：:]` rescanned a run of spaces from each character before it.
    before = {
        params._NOTE_HEAD: re.compile(r"^\s*((?:(?:Atlas|Ascend|Kirin|昇腾|A200I)[^：:]*?))\s*[：:]\s*(.*)$", re.S),
        prose._PRODUCT_PREFIX: re.compile(
            r"^\s*[-*•]?\s*((?:(?:Atlas|Ascend|Kirin|昇腾|A200I)[^：:]*?))\s*([：:])\s*(.*)$", re.S),
        products._ITEM: re.compile(r"^(.*?)\s*[：:]\s*(.*)$", re.S),
    }
    for now, then in before.items():
        assert _span_and_groups(now.match(text)) == _span_and_groups(then.match(text)), now.pattern
    then = re.compile(r"(?:^|\n|。|；)\s*[-*•]?\s*((?:Atlas|Ascend|Kirin|昇腾)[^：:\n。]*?)[：:]([^\n]*)")
    assert [_span_and_groups(m) for m in params._PRODUCT_LINE.finditer(text)] == \
        [_span_and_groups(m) for m in then.finditer(text)]


@EXAMPLES
@given(_joined(["is", "are", "IS", " and ", "and", " ", ",", ".", ";", "且", "x", "\n", "\u2003", "AND"]))
def test_two_fact_conditions_are_those_the_expression_found(text):
    then = re.compile(r"且|\b(?:is|are)\b[^.;]*?,?\s+and\s|场景下|情况下", re.I)
    assert conditions._says_both(text) == bool(then.search(text))


@EXAMPLES
@given(_joined(["a", "b", "/", "、", ",", " ", "\u2003", "`", "*", "\t", "x1"]))
def test_name_cells_split_as_the_expression_split_them(text):
    known = ("a", "b", "x1")
    parts = re.split(r"\s*[/、,，]\s*", text.strip(" `*"))
    if len(parts) > 1 and all(re.fullmatch(r"`?[A-Za-z_]\w*`?", p) for p in parts) and \
            any(p.strip("`") in known for p in parts):
        expected = [p.strip("`") for p in parts]
    else:
        expected = [entries._name_of(text)] if entries._name_of(text) else []
    assert entries._names_of(text, known) == expected


@EXAMPLES
@given(_joined(["返回", "Return", "s", " ", "\u2003", "**", "-", "161001", "ACLNN_ERR_X", "(", ")", "：", "x", "\t"]))
def test_error_group_heads_are_those_the_backtracking_expression_read(text):
    # The backtracking expression, with the heads without parentheses ("161001 ACLNN_ERR_PARAM_NULLPTR:").
    then = re.compile(
        r"^\s*(?:[-*•]\s*)?(?:\*\*)?(?:返回|Return(?:s|ed)?\s*)?\s*(?:\*\*)?\s*"
        r"(?:([1-9]\d{5})\s*(?:[（(]\s*(ACLNN_[A-Z0-9_]+)\s*[)）]|(ACLNN_[A-Z0-9_]+))|"
        r"(ACLNN_[A-Z0-9_]+)\s*(?:[（(]\s*([1-9]\d{5})\s*[)）]|([1-9]\d{5}))|"
        r"(ACLNN_[A-Z0-9_]+)|([1-9]\d{5}))\s*(?:\*\*)?\s*(?:[：:]|$)\s*(?:\*\*)?\s*(.*)$", re.I)
    assert _span_and_groups(errors._GROUP_HEAD.match(text)) == _span_and_groups(then.match(text))


@EXAMPLES
@given(_joined(["/*", "*/", "//", "\n", "x", "<a", "<", ">", "/", "*", " "]))
def test_declaration_comments_and_tags_are_removed_as_the_expressions_removed_them(text):
    from gen.parse.extractors import prototypes

    assert prototypes._without_comments(text) == prototypes._COMMENT.sub(" ", text)
    end = text.rfind(">") + 1
    assert prototypes._HTML_TAG.sub(" ", text[:end]) + text[end:] == prototypes._HTML_TAG.sub(" ", text)



# counts_from_zero's single pattern before it became a search from the words' first characters.
_FROM_ZERO = re.compile(r"第\s*0\s*(?:个)?(?:维|轴)|第零维|\bdim(?:ension)?\s*0\b|\baxis\s*0\b", re.I)


@pytest.mark.parametrize("text, counts", [
    ("第0维", True), ("第 0 个维度", True), ("第0轴", True), ("第零维", True), ("dim 0", True), ("Dim0", True),
    ("DIMENSION 0", True), ("the axis 0 is", True), ("(dim 0)", True), ("xdim 0", False), ("dim 01", False),
    ("的dim 0", False), ("_dim 0", False), ("axis 10", False), ("第1维", False), ("", False), ("零", False),
])
def test_a_page_counts_dimensions_from_zero_in_any_of_its_forms(text, counts):
    assert rules.counts_from_zero(text) is counts


@EXAMPLES
@given(_texts("第零个维轴0 1_xdimensionDIMAXISaxs(.的"))
def test_counting_from_zero_is_found_as_the_pattern_finds_it(text):
    assert rules.counts_from_zero(text) == bool(_FROM_ZERO.search(text))
