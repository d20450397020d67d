"""Text repair (gen.parse.repair.text): decoding, line ends, invisible characters; line N stays line N.

The mojibake repair has its own tests in test_mojibake.py.
"""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gen.ir import Level
from gen.parse.repair.text import MAX_LINE_DIAGNOSTICS, RepairedText, repair_text
from tests.parse.timing import assert_linear

ROOT = Path(__file__).resolve().parents[2]
CHINESE = "表示Selu计算的损失函数，公式中的E。"


def lines_in(raw: bytes) -> int:
    """Lines as the page's author saw them: CRLF, CR and LF each end one."""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1


def codes(result: RepairedText) -> list[str]:
    return [d.code for d in result.diagnostics]


# --- decoding ------------------------------------------------------------------------------------


def test_clean_utf8_is_kept_as_is_without_diagnostics():
    raw = f"# aclnnFoo\n\n{CHINESE}\n|a|b|\n".encode()
    result = repair_text(raw)
    assert result.text == raw.decode() and result.diagnostics == ()


def test_empty_input_gives_empty_text():
    assert repair_text(b"") == RepairedText("", ())


def test_bytearray_and_memoryview_are_accepted():
    assert repair_text(bytearray(b"a\r\nb")).text == "a\nb"
    assert repair_text(memoryview(b"a\rb")).text == "a\nb"


def test_invalid_utf8_is_replaced_and_diagnosed_at_its_line():
    result = repair_text(b"line one\nline \xff two\nthree \xc3\n")
    assert result.text == "line one\nline \ufffd two\nthree \ufffd\n"
    assert [(d.level, d.line, d.code) for d in result.diagnostics] == [
        (Level.WARNING, 2, "invalid-utf8"), (Level.WARNING, 3, "invalid-utf8")]


def test_invalid_utf8_line_numbers_count_cr_and_crlf_line_ends():
    result = repair_text(b"a\r\nb\rc\n\xfe")
    assert [d.line for d in result.diagnostics] == [4]


def test_many_bad_lines_give_a_bounded_number_of_diagnostics():
    raw = b"\n".join(b"bad \xff" for _ in range(500))
    result = repair_text(raw)
    assert len(result.diagnostics) == MAX_LINE_DIAGNOSTICS + 1
    summary = result.diagnostics[-1]
    assert summary.line == MAX_LINE_DIAGNOSTICS + 1 and "480 more lines" in summary.message


def test_a_page_entirely_valid_gb18030_is_decoded_as_gb18030():
    text = f"# aclnnFoo\n\n- 参数说明：\n  {CHINESE}\n"
    result = repair_text(text.encode("gb18030"))
    assert result.text == text
    assert codes(result) == ["decoded-gb18030"] and result.diagnostics[0].line == 3


def test_utf8_with_a_stray_byte_is_not_taken_for_gb18030():
    # These bytes are valid GB18030 too, but read as GB18030 they are gibberish.
    raw = CHINESE.encode() + b"\x81\x40"
    raw.decode("gb18030")  # the premise
    result = repair_text(raw)
    assert result.text == CHINESE + "\ufffd@" and codes(result) == ["invalid-utf8"]


def test_latin1_text_is_not_taken_for_gb18030():
    result = repair_text("Gr\xf6\xdfe und L\xe4nge".encode("latin-1"))
    assert "\ufffd" in result.text and codes(result) == ["invalid-utf8"]


# --- line ends -----------------------------------------------------------------------------------


def test_crlf_becomes_lf():
    assert repair_text(b"a\r\nb\r\n").text == "a\nb\n"


def test_lone_cr_becomes_lf():
    assert repair_text(b"a\rb\r").text == "a\nb\n"


def test_mixed_line_ends_keep_every_line():
    raw = b"1\r\n2\r3\n4\r\r\n5\n\r6"
    text = repair_text(raw).text
    assert text == "1\n2\n3\n4\n\n5\n\n6" and text.count("\n") + 1 == lines_in(raw)


def test_unicode_line_separators_become_spaces_so_every_reader_counts_the_same_lines():
    text = repair_text("a\u2028b\u2029c\x85d\x0be\x0cf\x1cg".encode()).text
    assert text == "a b c d e f g" and len(text.splitlines()) == 1


# --- invisible characters ------------------------------------------------------------------------


def test_bom_is_removed():
    assert repair_text(b"\xef\xbb\xbf# Title\n").text == "# Title\n"


def test_bom_inside_the_text_is_removed():
    assert repair_text("a\ufeffb".encode()).text == "ab"


def test_zero_width_characters_are_removed():
    raw = "aclnn\u200bFoo\u200c|\u200d1\u2060\n".encode()
    assert repair_text(raw).text == "aclnnFoo|1\n"


def test_nbsp_and_its_relatives_become_spaces():
    assert repair_text("a\u00a0b\u202fc\u2007d".encode()).text == "a b c d"


def test_clean_ups_are_silent():
    assert repair_text("\ufeffa\u200b\u00a0b\r\n".encode()).diagnostics == ()


# --- seeds, robustness, time ---------------------------------------------------------------------


def test_clean_seed_pages_are_only_normalised():
    for name in ("leaky_relu_backward.md", "leaky_relu_backward.web.txt", "leaky_relu_grad.README.md"):
        raw = (ROOT / "op_docs" / name).read_bytes()
        result = repair_text(raw)
        assert result.diagnostics == (), name
        expected = raw.decode().replace("\r\n", "\n").replace("\r", "\n")
        for ch in "\ufeff\u200b\u200c\u200d\u2060":
            expected = expected.replace(ch, "")
        assert result.text == expected.replace("\u00a0", " "), name


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_give_text_with_the_same_lines(raw):
    result = repair_text(raw)
    assert result.text.count("\n") + 1 == lines_in(raw)
    assert "\r" not in result.text
    assert "text-repair-failure" not in codes(result)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(
    # code-page characters of both pages, telling sequences, line ends and invisible characters
    [chr(c) for c in range(0x80, 0x100)] + list("€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸĞİŞğış")
    + ["Ã—", "æŽ¥", "ã€", "ğŸ“„", "a", " ", "\r", "\n", "\r\n", "\u200b", "\ufeff", "中", "\u2028"]),
    max_size=120).map("".join))
def test_any_text_of_tricky_characters_keeps_its_lines(text):
    raw = text.encode()
    result = repair_text(raw)
    assert result.text.count("\n") + 1 == lines_in(raw)
    assert "text-repair-failure" not in codes(result)


def test_random_bytes_take_time_linear_in_their_size():
    # A megabyte against 100 KB (0.3-0.4 s for the megabyte on the 2-core machine).
    rng = random.Random(7)
    raw = bytes(rng.randrange(256) for _ in range(1 << 20))
    result = repair_text(raw)
    assert result.text.count("\n") + 1 == lines_in(raw)
    assert_linear(lambda: repair_text(raw[: len(raw) // 10]), lambda: repair_text(raw), "repairing random bytes")


def test_gb18030_diagnostic_line_counts_crlf_as_one_line_end():
    text = "# aclnnFoo\r\n\r\n- 参数说明：\r\n"
    result = repair_text(text.encode("gb18030"))
    assert result.text == "# aclnnFoo\n\n- 参数说明：\n" and result.diagnostics[0].line == 3


# --- byte-order marks (issue 15, finding 7) --------------------------------------------------------

_PAGE = f"# aclnnFoo\r\n\r\n{CHINESE}\n|a|b|\n"


def test_utf16_and_utf32_pages_with_a_byte_order_mark_are_decoded():
    expected = repair_text(_PAGE.encode("utf-8"))
    for codec in ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"):
        raw = ("\ufeff" + _PAGE).encode(codec) if codec[-3:] in ("-le", "-be") else _PAGE.encode(codec)
        assert repair_text(raw) == expected, codec


def test_a_page_with_a_byte_order_mark_and_a_bad_code_unit_is_decoded_and_diagnosed():
    raw = ("\ufeff" + _PAGE).encode("utf-16-le") + b"\x00\xd8" + "tail\n".encode("utf-16-le")  # a lone surrogate
    result = repair_text(raw)
    assert result.text.startswith("# aclnnFoo\n") and "\ufffd" in result.text and result.text.endswith("tail\n")
    (diag,) = result.diagnostics
    assert (diag.code, diag.line, diag.level) == ("invalid-unicode", 5, Level.WARNING)


def test_utf16_without_a_byte_order_mark_is_not_guessed():
    # Without the mark the bytes are read as before: as UTF-8 with its bad bytes diagnosed.
    result = repair_text(_PAGE.encode("utf-16-le"))
    assert "aclnnFoo" not in result.text and "a\x00c\x00l\x00n\x00n\x00F\x00o\x00o" in result.text
    assert "invalid-utf8" in codes(result)


# --- unresolved merge conflicts ------------------------------------------------------------------


def test_a_merge_conflict_reads_its_first_side_and_keeps_the_lines():
    # The corpus's aclnnGroupedMatmulFinalizeRoutingV3 prototype: read whole, its parameters were
    # declared twice and the ABI bound wrong.
    raw = ("f(\n    int a,\n<<<<<<< HEAD\n    int b,\n||||||| base\n    int old,\n=======\n    int a,\n    int b,\n"
           ">>>>>>> 06d1011 (update)\n    int c)\n").encode()
    result = repair_text(raw)
    assert result.text.split("\n") == ["f(", "    int a,", "", "    int b,", "", "", "", "", "", "", "    int c)", ""]
    assert [(d.level, d.line, d.code) for d in result.diagnostics] == [(Level.WARNING, 3, "merge-conflict")]
    assert "lines 3-10" in result.diagnostics[0].message


def test_a_merge_conflict_without_its_end_is_kept_and_diagnosed():
    raw = b"a\n<<<<<<< HEAD\nb\n=======\nc\n"
    result = repair_text(raw)
    assert result.text == raw.decode()
    assert [(d.line, d.code) for d in result.diagnostics] == [(2, "merge-conflict-unclosed")]


def test_a_line_of_equals_signs_alone_is_no_conflict():
    raw = "标题\n=======\n正文\n".encode()  # a setext heading's underline
    assert repair_text(raw) == RepairedText(raw.decode(), ())
