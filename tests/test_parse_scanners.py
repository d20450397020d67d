"""The parser's scanners (gen.parse.scan) find exactly what their regular expressions find when
run as they stand (quadratic on unclosed constructs, so only on short texts here), on random
texts made of the characters that matter to each construct."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings, strategies as st

from gen.parse import inline, tables

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

