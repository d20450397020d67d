"""Indented JSON, byte for byte as `json.dumps(value, ensure_ascii=False, indent=n)` writes it.

The standard library encodes indented JSON in pure Python, through a generator per container
(its C encoder only serves `indent=None`): writing the IR of a docs tree and the package's API
records that way took a quarter of a cold generation's emission. This writer appends to one
list, and leaves strings to the C escaper `json.dumps` uses itself.
"""

from __future__ import annotations

from json.encoder import encode_basestring  # the C escaper of ensure_ascii=False
from typing import Any

_INFINITY = float("inf")


def dumps(value: Any, indent: int, prefix: str = "") -> str:
    """`json.dumps(value, ensure_ascii=False, indent=indent)` for JSON data: dicts (keys str,
    int, float, bool or None, as json.dumps accepts them), lists, tuples, str, int, float, bool,
    None. Raises TypeError for anything else, as json.dumps does. `prefix` starts every line (as
    textwrap.indent(text, prefix) would: no line of this JSON is blank)."""
    out: list[str] = [prefix]
    _write(value, out, "\n" + prefix, " " * indent)
    return "".join(out)


def _write(value: Any, out: list[str], newline: str, step: str) -> None:
    # The order of json's own checks: str, None, True, False, int, float, then containers.
    if isinstance(value, str):
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + step
        separator = "{" + inner
        for key, item in value.items():
            out.append(separator)
            out.append(_key(key))
            out.append(": ")
            _write(item, out, inner, step)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + step
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _write(item, out, inner, step)
            separator = "," + inner
        out.append(newline + "]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _float(value: float) -> str:
    # json's floatstr with allow_nan=True.
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, float):
        return encode_basestring(_float(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return encode_basestring(int.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")
