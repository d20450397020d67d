"""HTML tables: spans expanded, malformed nesting recovered, headers found."""

from gen.parse.readers.markdown import read_markdown
from gen.parse.readers.tables import find_html_tables, parse_html_table


def test_rowspan_repeats_the_cell_in_the_rows_it_spans():
    table = parse_html_table("<table><tr><th>a</th><th>b</th></tr>"
                             "<tr><td rowspan='2'>x</td><td>1</td></tr><tr><td>2</td></tr></table>")
    assert [r.texts for r in table.rows] == [("x", "1"), ("x", "2")]


def test_colspan_repeats_the_cell_across_columns():
    table = parse_html_table("<table><tr><th>a</th><th>b</th><th>c</th></tr>"
                             "<tr><td colspan=2>x</td><td>y</td></tr></table>")
    assert table.rows[0].texts == ("x", "x", "y")


def test_rowspan_that_overstates_its_rows_is_trusted_to_the_rows():
    # Seed 001: rowspan="8" over three rows.
    table = parse_html_table("<table><tr><th>n</th><th>c</th></tr>"
                             "<tr><td rowspan='8'>E</td><td>1</td></tr><tr><td>2</td></tr><tr><td>3</td></tr></table>")
    assert [r.texts for r in table.rows] == [("E", "1"), ("E", "2"), ("E", "3")]
    assert [code for _, code, _ in table.repairs] == ["table-rowspan-overstated"]


def test_tr_opened_twice_and_lost_tr_are_recovered():
    # Seed 003: "<tr>\n<tr>" opens the first row twice; the second row's <tr> is missing.
    table = parse_html_table("<table><thead><tr><th>n</th><th>d</th></tr></thead><tbody>\n"
                             "<tr>\n<tr><td>gradOutput</td><td>1</td></tr>\n"
                             "<td>result</td><td>2</td></tr>\n"
                             "<tr><td>gradInput</td><td>3</td></tr></tbody></table>")
    assert [r.texts for r in table.rows] == [("gradOutput", "1"), ("result", "2"), ("gradInput", "3")]
    assert {code for _, code, _ in table.repairs} == {"table-empty-row", "table-row-recovered"}


def test_row_lines_are_page_lines():
    table = parse_html_table("<table>\n<tr><th>a</th></tr>\n<tr><td>x</td></tr>\n</table>", line=10)
    assert table.rows[0].line == 12


def test_header_from_thead_misspelled_as_thread():
    table = parse_html_table("<table><thread><tr><th>参数名</th></tr></thread>"
                             "<tbody><tr><td>x</td></tr></tbody></table>")
    assert table.header == ("参数名",) and table.rows[0].texts == ("x",)


def test_header_is_the_first_row_without_thead():
    table = parse_html_table("<table><tr><td>参数名</td><td>描述</td></tr><tr><td>x</td><td>y</td></tr></table>")
    assert table.header == ("参数名", "描述") and len(table.rows) == 1


def test_cell_text_keeps_list_items_as_lines_and_drops_footnote_marks():
    table = parse_html_table("<table><tr><th>a</th><th>b</th></tr>"
                             "<tr><td><ul><li>支持空Tensor。</li><li>shape一致。</li></ul></td>"
                             "<td>FLOAT<sup>1</sup>、INT8</td></tr></table>")
    assert table.rows[0].texts == ("支持空Tensor。\nshape一致。", "FLOAT、INT8")


def test_cell_links_are_kept():
    table = parse_html_table('<table><tr><th>a</th></tr><tr><td><a href="x.md">aclnnX</a></td></tr></table>')
    assert table.rows[0].cells[0].links == (("aclnnX", "x.md"),)


def test_table_opened_twice_before_rows_is_one_table():
    text = "<table><colgroup><col></colgroup>\n<table><thead><tr><th>a</th></tr></thead><tr><td>1</td></tr></table>"
    (span,) = find_html_tables(text)
    assert span[2] is True and parse_html_table(text[span[0]:span[1]]).rows[0].texts == ("1",)


def test_table_inside_a_code_fence_is_code():
    doc = read_markdown("```html\n<table><tr><td>x</td></tr></table>\n```\n")
    assert [b.kind for b in doc.blocks] == ["code"]


def test_html_table_with_blank_lines_inside_stays_one_table():
    doc = read_markdown("- **参数说明**\n\n  <table>\n  <tr><th>a</th></tr>\n\n  <tr><td>1</td></tr>\n  </table>\n\n- next\n")
    tables = [b.table for b in doc.blocks if b.kind == "table"]
    assert len(tables) == 1 and tables[0].rows[0].texts == ("1",)
    assert [b.text for b in doc.blocks if b.kind == "item"] == ["参数说明", "next"]


def test_unclosed_table_is_diagnosed():
    doc = read_markdown("<table><tr><th>a</th></tr><tr><td>1</td></tr>\n")
    assert [note[2] for note in doc.notes] == ["table-unclosed"]


def test_pipe_table_cells_are_plain_text():
    doc = read_markdown("| 参数 | 说明 |\n|---|---|\n| x | **(aclTensor\\*, 计算输入)**：[链接](a.md)<br>下一行 |\n")
    (table,) = [b.table for b in doc.blocks if b.kind == "table"]
    assert table.header == ("参数", "说明")
    assert table.rows[0].texts == ("x", "(aclTensor*, 计算输入)：链接\n下一行")


def test_cells_carry_their_own_lines_and_spanned_cells_keep_theirs():
    table = parse_html_table("<table>\n<tr><th>n</th><th>c</th></tr>\n<tr>\n<td rowspan='2'>E</td>\n<td>1</td>\n</tr>\n"
                             "<tr>\n<td>2</td>\n</tr>\n</table>", line=10)
    assert [(r.line_of(0), r.line_of(1)) for r in table.rows] == [(13, 14), (13, 17)]


def test_wide_spans_expand_at_the_cost_of_a_lookup_per_grid_position():
    # make fuzz's parser fuzzer (huge_table + long_lines on sqrt.md, 185 KB): 1.9 million grid
    # positions took 2.5 CPU s, a Cell("") built for each whether it was needed or not, over the
    # gate of 1 s per 100 KB. Here 3,000 rows of colspan=1000 (126 KB, 3 million positions): 1.7 s
    # before, 0.4 s after.
    import time

    html = "<table><tr><th>a</th></tr>" + "<tr><td colspan=1000>x</td><td>y</td></tr>" * 3000 + "</table>"
    start = time.process_time()
    table = parse_html_table(html)
    elapsed = time.process_time() - start
    assert len(table.rows) == 3000 and table.rows[-1].texts[-2:] == ("x", "y")
    assert elapsed < len(html) / 100_000, f"{elapsed:.2f} CPU s for {len(html)} bytes"
