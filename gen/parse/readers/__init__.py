"""The parser's second layer: a reader per page format, clean text -> the format-neutral
`Document` (document.py): markdown.py (Markdown), html_page.py (saved web pages), webdump.py
(text dumps of rendered pages), with the HTML tables (tables.py), inline markup (inline.py) and
the linear scanners (scan.py) they share. Reads no extractor."""
