"""Inline Markdown/HTML of one paragraph or cell, as plain text (and the links it holds).

Inline text is cleaned here rather than by markdown-it's inline parser: pages are full of C
pointer stars (`aclTensor *self, aclOpExecutor **executor`) that CommonMark would read as
emphasis, and the inline parser is most of markdown-it's cost. Code spans are kept verbatim.
"""

from __future__ import annotations

import html as html_lib
import re

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_LINK = re.compile(r"!?\[([^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_FOOTNOTE = re.compile(r"<sup>\s*[\d*†‡,，、\s]+\s*</sup>", re.I)  # "FLOAT<sup>1</sup>": a footnote mark
_BR = re.compile(r"<br\s*/?>", re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~\"'])")
_SPACES = re.compile(r"[ \t\u3000]+")


def inline_text(source: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Plain text of inline markup, and the (text, target) of every link, in order."""
    links: list[tuple[str, str]] = []
    out: list[str] = []
    pos = 0
    for match in _CODE_SPAN.finditer(source):
        out.append(_clean(source[pos:match.start()], links))
        out.append(match.group(2).strip() if match.group(2).strip() else match.group(2))
        pos = match.end()
    out.append(_clean(source[pos:], links))
    text = "".join(out)
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line), tuple(links)


def plain(source: str) -> str:
    return inline_text(source)[0]


def _clean(text: str, links: list[tuple[str, str]]) -> str:
    if not text:
        return text
    if "[" in text:
        def link(match: re.Match[str]) -> str:
            if match.group(0).startswith("!"):
                return ""
            label = match.group(1)
            links.append((_ESCAPE.sub(r"\1", _TAG.sub("", label)).strip(), match.group(2)))
            return label
        text = _LINK.sub(link, text)
    if "<" in text:
        text = _FOOTNOTE.sub("", text)
        text = _COMMENT.sub("", text)
        text = _BR.sub("\n", text)
        text = _TAG.sub("", text)
    if "*" in text or "_" in text:
        text = _BOLD.sub(r"\2", text)
    if "\\" in text:
        text = _ESCAPE.sub(r"\1", text)
    if "&" in text:
        text = html_lib.unescape(text)
    return text
