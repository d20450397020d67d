"""Small page builders for the parser's focused tests: the smallest page that shows one quirk."""

from __future__ import annotations

import textwrap

from gen.ir import Page
from gen.parse import parse_bytes

PROTOTYPE = """\
## 函数原型

```Cpp
aclnnStatus aclnnFooGetWorkspaceSize(
  const aclTensor *self,
  aclTensor       *out,
  uint64_t        *workspaceSize,
  aclOpExecutor  **executor)
```

```Cpp
aclnnStatus aclnnFoo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
```
"""


def page(markdown: str, source: str = "aclnnFoo.md") -> Page:
    """Parses a page given as (dedented) Markdown text."""
    return parse_bytes(textwrap.dedent(markdown).encode("utf-8"), source)


def api_page(section: str, prototype: str = PROTOTYPE, title: str = "aclnnFoo") -> Page:
    """A page with the standard prototype and `section` as its GetWorkspaceSize section."""
    return page(f"# {title}\n\n{prototype}\n## aclnnFooGetWorkspaceSize\n\n{textwrap.dedent(section)}\n")


def html_table(header: list[str], *rows: list[str]) -> str:
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n"


def codes(page: Page) -> set[str]:
    return {d.code for d in page.diagnostics}
