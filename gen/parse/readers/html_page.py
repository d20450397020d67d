"""A page saved from the website (.html) into a `Document`, the same one its Markdown gives.

The site renders each Markdown page: headings as <h1>-<h6>, paragraphs as <p>, lists as
<ul>/<ol>, code as <pre><code class="language-cpp">, tables as <table>, all inside the site's
chrome (header, nav, footer, sidebars, scripts). The chrome is dropped; the rest is walked in
document order. Line numbers are the HTML file's.
"""

from __future__ import annotations

import copy
import re

import lxml.etree
import lxml.html

from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import CODE, HEADING, ITEM, TEXT, Block, Document
from gen.parse.readers.tables import _element_text, clean_cell_text, table_from_element

_CHROME_TAGS = frozenset({"header", "nav", "footer", "aside", "script", "style", "noscript", "template", "form",
                          "button", "svg", "iframe", "head", "title", "meta", "link"})
_CHROME_CLASS = lazy_pattern(r"(?:^|[\s_-])(?:header|navbar|nav|footer|sidebar|breadcrumb|toc|menu|banner|cookie)"
                           r"(?:$|[\s_-])", re.I)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_LISTS = ("ul", "ol")
_LANG = lazy_pattern(r"(?:language|lang)-([\w+#-]+)")


def read_html(text: str) -> Document:
    doc = Document()
    try:
        root = lxml.html.document_fromstring(text.encode("utf-8"),
                                             parser=lxml.html.HTMLParser(encoding="utf-8", remove_comments=True))
    except (lxml.etree.ParserError, ValueError) as exc:
        doc.notes.append(("error", 1, "html-unreadable", f"the HTML page could not be read ({exc})"))
        return doc
    body = root.find("body")
    main = _main_content(body if body is not None else root)
    _walk(main, doc, depth=0)
    if not doc.blocks:
        doc.notes.append(("warning", 1, "html-empty", "the HTML page has no content outside its site chrome"))
    return doc


def _main_content(body):
    """<main> or <article> when the page has one, else the body."""
    for tag in ("main", "article"):
        found = body.find(f".//{tag}")
        if found is not None:
            return found
    return body


def _is_chrome(element) -> bool:
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag in _CHROME_TAGS:
        return True
    if element.get("role") in ("navigation", "banner", "contentinfo"):
        return True
    classes = (element.get("class") or "") + " " + (element.get("id") or "")
    return tag in ("div", "section") and bool(_CHROME_CLASS.search(classes))


def _line(element) -> int:
    return getattr(element, "sourceline", None) or 1


def _walk(element, doc: Document, depth: int) -> None:
    inline: list = []  # text and inline children between blocks

    def flush_inline() -> None:
        if not inline:
            return
        parts: list[str] = []
        links: list = []
        line = 0
        for item in inline:
            if isinstance(item, str):
                parts.append(item)
            else:
                line = line or _line(item)
                _element_text(item, parts, links)
                if item.tail:
                    parts.append(item.tail)
        text = clean_cell_text("".join(parts))
        if text:
            doc.blocks.append(Block(TEXT, line or _line(element), text, level=depth, links=tuple(links),
                                    end_line=line or _line(element)))
        inline.clear()

    if element.text and element.text.strip():
        inline.append(element.text)
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if not tag:
            if child.tail and child.tail.strip():
                inline.append(child.tail)
            continue
        if _is_chrome(child):
            if child.tail and child.tail.strip():
                inline.append(child.tail)
            continue
        if tag in _HEADINGS:
            flush_inline()
            parts: list[str] = []
            links: list = []
            _element_text(child, parts, links, top=True)
            doc.blocks.append(Block(HEADING, _line(child), clean_cell_text("".join(parts)).replace("\n", " "),
                                    level=_HEADINGS[tag], links=tuple(links), end_line=_line(child)))
        elif tag == "table":
            flush_inline()
            table = table_from_element(child, 1)
            doc.blocks.append(Block("table", _line(child), table=table, level=depth, end_line=_line(child)))
        elif tag == "pre":
            flush_inline()
            code = child.find(".//code")
            source = code if code is not None else child
            classes = (source.get("class") or "") + " " + (child.get("class") or "")
            lang = _LANG.search(classes)
            text = source.text_content()
            doc.blocks.append(Block(CODE, _line(child), text if text.endswith("\n") else text + "\n",
                                    level=depth, lang=lang.group(1) if lang else "", end_line=_line(child)))
        elif tag in _LISTS:
            flush_inline()
            for item in child:
                if isinstance(item.tag, str) and item.tag == "li":
                    _list_item(item, doc, depth + 1)
        elif tag in ("p", "blockquote", "div", "section", "details", "summary", "dl", "dd", "dt", "figure",
                     "center", "main", "article", "body"):
            flush_inline()
            if tag == "p":
                _paragraph(child, doc, depth, TEXT)
            else:
                _walk(child, doc, depth)
        elif tag in ("hr", "br"):
            flush_inline() if tag == "hr" else inline.append("\n")
        else:
            inline.append(child)
        if child.tail and child.tail.strip():
            inline.append(child.tail)
    flush_inline()


def _paragraph(element, doc: Document, depth: int, kind: str) -> None:
    parts: list[str] = []
    links: list = []
    _element_text(element, parts, links, top=True)
    text = clean_cell_text("".join(parts))
    if text:
        doc.blocks.append(Block(kind, _line(element), text, level=depth, links=tuple(links), end_line=_line(element)))


def _list_item(item, doc: Document, depth: int) -> None:
    """A <li>: its leading inline content (or first <p>) is the item; nested blocks follow it."""
    parts: list[str] = []
    links: list = []
    first_line = _line(item)
    rest: list = []
    if item.text and item.text.strip():
        parts.append(item.text)
    children = list(item)
    consumed_paragraph = False
    for child in children:
        tag = child.tag if isinstance(child.tag, str) else ""
        block_level = tag in ("p", "ul", "ol", "pre", "table", "div", "blockquote", "h1", "h2", "h3", "h4", "h5",
                              "h6", "details", "section")
        if not rest and not block_level:
            if tag:
                _element_text(child, parts, links)
            if child.tail:
                parts.append(child.tail)
            continue
        if not rest and tag == "p" and not consumed_paragraph and not clean_cell_text("".join(parts)):
            _element_text(child, parts, links, top=True)
            consumed_paragraph = True
            if child.tail and child.tail.strip():
                parts.append(child.tail)
            continue
        rest.append(child)
    text = clean_cell_text("".join(parts))
    doc.blocks.append(Block(ITEM, first_line, text, level=depth, links=tuple(links), end_line=first_line))
    if rest:
        holder = lxml.html.Element("div")
        for child in rest:
            holder.append(copy.deepcopy(child))
        _walk(holder, doc, depth)

