"""gen.parse.readers.markdown: code fences that pages close wrongly are repaired in place (no line moves)."""

from gen.parse.readers.document import CODE, TEXT
from gen.parse.readers.markdown import read_markdown


def _blocks(markdown: str):
    doc = read_markdown(markdown)
    return doc, [(b.kind, b.line, b.text) for b in doc.blocks]


def test_fence_closed_with_a_stray_word_is_closed_there():
    doc, blocks = _blocks("```cpp\nint x = 1;\n```l\n\nafter the code\n")
    assert blocks == [(CODE, 1, "int x = 1;\n"), (TEXT, 5, "after the code")]
    assert [(line, code) for _, line, code, _ in doc.notes] == [(3, "fence-closed-with-text")]


def test_fence_opened_inside_an_open_fence_is_code_not_a_closer():
    # A language after the fence is an opener written before the last fence was closed.
    _, blocks = _blocks("```\nfirst\n```cpp\nsecond\n```\n\nafter\n")
    assert blocks[0] == (CODE, 1, "first\n```cpp\nsecond\n")
    assert blocks[-1] == (TEXT, 7, "after")


def test_fence_closed_at_the_end_of_a_code_line_moves_to_the_blank_line_after_it():
    doc, blocks = _blocks("```cpp\nint main() {\n}```\n\nafter the code\n")
    assert blocks == [(CODE, 1, "int main() {\n}\n"), (TEXT, 5, "after the code")]
    assert [(line, code) for _, line, code, _ in doc.notes] == [(3, "fence-closed-after-code")]


def test_fence_closed_at_the_end_of_the_last_line_gets_a_line_of_its_own():
    doc, blocks = _blocks("text\n\n```cpp\nreturn 0;}```")
    assert blocks == [(TEXT, 1, "text"), (CODE, 3, "return 0;}\n")]
    assert [(line, code) for _, line, code, _ in doc.notes] == [(4, "fence-closed-after-code")]


def test_several_fences_each_closed_after_code():
    doc, blocks = _blocks("```\na;```\n\n```\nb;```\n\nend\n")
    assert blocks == [(CODE, 1, "a;\n"), (CODE, 4, "b;\n"), (TEXT, 7, "end")]
    assert [line for _, line, _, _ in doc.notes] == [2, 5]
