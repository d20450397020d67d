"""The text dump of a rendered web page (seed 002) into a `Document`, and what it lost.

A dump is what a browser's "copy all" gives: no Markdown, the site's chrome on top ("昇腾社区首页",
"中文", "注册"), section titles as bare lines, bullets as "•", links rendered as `undefined`,
and tables and code blocks rendered as `[object Object]`. The dump is read line by line:
a bare line that is a known section title or an aclnn function name becomes a heading, "•"
lines become list items (their depth from the indentation). Whatever was lost is diagnosed
once per fact, at its line, by `diagnose_losses`.
"""

from __future__ import annotations

import re
from typing import Sequence

from gen.ir import Diagnostic, Level, Page
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import HEADING, ITEM, TEXT, Block, Document

_LOST = "[object Object]"
_SECTION_TITLES = lazy_pattern(
    r"^(?:支持的产品型号|产品支持情况|接口原型|函数原型|功能描述|功能说明|约束与限制|约束说明|调用示例|参数说明|返回值|"
    r"Supported\s+Products|Prototype|Function|Constraints|Example|Restrictions|Description)$", re.I)
_FUNCTION_TITLE = lazy_pattern(r"^aclnn\w+$")
_BULLET = lazy_pattern(r"^(\s*)[•·▪◦●○■-]\s+(.*)$")
_CHROME = frozenset({"昇腾社区首页", "中文", "English", "注册", "登录", "首页", "文档", "Ascend Community", "Sign in",
                     "Register", "Home"})


def looks_like_webdump(text: str, source: str) -> bool:
    """A dump has no Markdown headings and shows the renderer's traces."""
    if re.search(r"^#{1,6}\s", text, re.M):
        return False
    traces = text.count(_LOST) + len(re.findall(r"(?<![A-Za-z])undefined(?![A-Za-z])", text)) + text.count("  • ")
    return traces >= 2 or source.endswith(".web.txt")


def read_webdump(text: str) -> Document:
    doc = Document()
    lines = text.split("\n")
    paragraph: list[str] = []
    paragraph_line = 0
    paragraph_level = 0

    def flush() -> None:
        nonlocal paragraph
        if paragraph:
            doc.blocks.append(Block(TEXT, paragraph_line, "\n".join(paragraph), level=paragraph_level,
                                    end_line=paragraph_line + len(paragraph) - 1))
            paragraph = []

    seen_title = False
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        if not seen_title and stripped in _CHROME:
            continue
        if stripped == _LOST:
            flush()
            doc.blocks.append(Block(TEXT, number, _LOST, end_line=number))
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            depth = len(bullet.group(1).expandtabs(4)) // 4 + 1
            doc.blocks.append(Block(ITEM, number, bullet.group(2).strip(), level=depth, end_line=number))
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0 and (_SECTION_TITLES.match(stripped) or _FUNCTION_TITLE.match(stripped)):
            flush()
            level = 1 if not seen_title else 2
            seen_title = True
            doc.blocks.append(Block(HEADING, number, stripped, level=level, end_line=number))
            continue
        if not paragraph:
            paragraph_line = number
            paragraph_level = (indent // 4) if indent else 0
        paragraph.append(stripped)
    flush()
    return doc


def diagnose_losses(doc: Document, page: Page) -> list[Diagnostic]:
    """One diagnostic per thing the dump lost: each `[object Object]` (a table or a code block,
    named by its section) and the links rendered as `undefined`."""
    diags: list[Diagnostic] = []
    section = ""
    for index, block in enumerate(doc.blocks):
        if block.kind == HEADING:
            section = block.text
            continue
        if block.text == _LOST:
            what, code = _lost_kind(section, doc.blocks[max(0, index - 2):index])
            diags.append(Diagnostic(Level.WARNING, block.line, code,
                                    f"{what} lost in the web dump ([object Object]) at line {block.line}"))
    undefined_lines = [b.line for b in doc.blocks if re.search(r"(?<![A-Za-z])undefined(?![A-Za-z])", b.text)]
    if undefined_lines:
        diags.append(Diagnostic(Level.INFO, undefined_lines[0], "links-lost",
                                f"{len(undefined_lines)} line(s) had their links rendered as 'undefined' "
                                f"(first at line {undefined_lines[0]})"))
    return diags


def _lost_kind(section: str, before: Sequence[Block]) -> tuple[str, str]:
    """What an `[object Object]` was, from its section and the two blocks before it."""
    if re.search(r"示例|Example", section, re.I):
        return "example code", "example-lost"
    previous = " ".join(b.text for b in before)
    if re.search(r"返回值|返回码|错误码|Returns?", section + previous, re.I) or section.endswith("GetWorkspaceSize"):
        return "error table", "error-table-lost"
    if re.search(r"原型|Prototype", section, re.I):
        return "prototype code", "prototype-lost"
    return "a table or code block", "content-lost"
