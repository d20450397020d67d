"""The Jinja2 environment every emitter renders with.

As in gapic-generator: StrictUndefined so that a misspelt name fails the run instead of
emitting an empty string, and block trimming so that templates can be indented like code.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import jinja2

from gen import names

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def _c_string(text: str) -> str:
    """A Python string as a C/C++ string literal (UTF-8, escaped)."""
    return json.dumps(text, ensure_ascii=False)


def _py_string(text: str) -> str:
    return repr(text)


def _comment(text: str, prefix: str = "// ") -> str:
    return "\n".join((prefix + line).rstrip() for line in text.splitlines())


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(
        snake_case=names.snake_case,
        python_identifier=names.python_identifier,
        cpp_enumerator=names.cpp_enumerator,
        c_string=_c_string,
        py_string=_py_string,
        comment=_comment,
    )
    return env


def render(template: str, **context: object) -> str:
    """Render `templates/<template>`; every generated file names the template it came from."""
    return environment().get_template(template).render(template_name=template, **context)
