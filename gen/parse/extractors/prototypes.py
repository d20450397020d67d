"""C declarations of aclnn functions, and their pairing into two-phase APIs.

Pages declare each API as two functions: `aclnnXxxGetWorkspaceSize(<caller's arguments>,
uint64_t *workspaceSize, aclOpExecutor **executor)` and `aclnnXxx(void *workspace, uint64_t
workspaceSize, aclOpExecutor *executor, aclrtStream stream)`. They write them in fenced code
with any tag, in indented fences, in inline code, or as bullet lines of a rendered web page;
this module reads declarations from any text and pairs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional

from gen.parse.patterns import lazy_pattern
from gen.parse.readers.scan import word_starts

# aclnn APIs, and the few two-phase APIs CANN names acl<Op> (aclStft, which op-plugin calls as it calls
# the aclnn ones): a declaration without its GetWorkspaceSize pair is left unpaired either way.
_DECL_START = lazy_pattern(r"\baclnnStatus\s+(aclnn\w+|acl[A-Z]\w*)\s*\(")
_COMMENT = lazy_pattern(r"//[^\n]*|/\*.*?\*/", re.S)
_LINE_COMMENT = lazy_pattern(r"//[^\n]*")
_HTML_TAG = lazy_pattern(r"</?\w+[^>]*>")
_IDENT = lazy_pattern(r"[A-Za-z_]\w*")
_QUALIFIERS = ("const", "volatile", "struct", "enum", "ACL_FUNC_VISIBILITY", "ACLNN_API")
WORKSPACE_SUFFIX = "GetWorkspaceSize"


def find_call(source: str, function: str) -> int:
    """Where the first call of `function` in C source opens its arguments (the index of its "("),
    or -1: the name as a whole word, then "(" after optional blanks. A string search, not a pattern
    per API: compiling one for each of a tree's APIs cost more than the searches."""
    for start in word_starts(source, function):
        after = start + len(function)
        while after < len(source) and source[after].isspace():
            after += 1
        if after < len(source) and source[after] == "(":
            return after
    return -1


@dataclass(frozen=True)
class CParam:
    c_type: str  # normalised: "const aclTensor*", "int64_t", "aclOpExecutor**"
    name: str


@dataclass(frozen=True)
class Declaration:
    name: str
    params: tuple[CParam, ...]
    line: int
    problems: tuple[str, ...] = ()  # parameters that could not be read, as written


@dataclass(frozen=True)
class Pairing:
    api: str
    workspace: Declaration
    execute: Optional[Declaration]


def find_declarations(text: str, line: int = 1) -> list[Declaration]:
    """Every `aclnnStatus aclnnXxx(...)` declaration in a text (code or prose); `line` is the text's
    first page line. A call (`ret = aclnnXxx(...)`) is not a declaration."""
    starts = list(_DECL_START.finditer(text))
    found = []
    counted = 0  # lines are counted on from the previous declaration: one pass over the text
    for k, match in enumerate(starts):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        limit = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        found.append(read_declaration(text, match.group(1), match.end() - 1, limit, line))
    return found


def read_declaration(text: str, name: str, open_paren: int, limit: int, line: int) -> Declaration:
    """The declaration of `name` whose parameter list opens at `open_paren`. It ends before `limit`,
    where the next declaration starts: pages do not nest declarations, and a parameter list
    read past the next one would be read again from there, and again from the one after."""
    close = _matching_paren(text, open_paren, limit)
    body = text[open_paren + 1: close if close >= 0 else limit]
    if close < 0:
        # A declaration cut short (a truncated page): read what is there, up to the first
        # blank line or the next declaration.
        body = re.split(r"\n\s*\n|\baclnnStatus\b", body, maxsplit=1)[0]
    params, problems = parse_parameters(body)
    if close < 0:
        problems = problems + ("(unterminated parameter list)",)
    return Declaration(name, params, line, problems)


def _matching_paren(text: str, open_index: int, limit: int) -> int:
    depth = 0
    for i in range(open_index, limit):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        elif c == ";" or c == "{":
            return -1
    return -1


def parse_parameters(body: str) -> tuple[tuple[CParam, ...], tuple[str, ...]]:
    """A parameter list's text into typed parameters, and the pieces that are not parameters."""
    body = _without_comments(body).replace("\\*", "*").replace("\\_", "_")
    # HTML that slipped into a prose declaration. A tag ends at the first ">" after it, so none
    # opens after the last one: that part is left unscanned (from each "<" of it, `[^>]*` would
    # scan to the end).
    end = body.rfind(">") + 1
    body = _HTML_TAG.sub(" ", body[:end]) + body[end:]
    params: list[CParam] = []
    problems: list[str] = []
    for piece in _split_top_level(body):
        piece = piece.strip()
        if not piece or piece == "void":
            continue
        param = parse_parameter(piece)
        if param is None:
            problems.append(piece)
        else:
            params.append(param)
    return tuple(params), tuple(problems)


def _without_comments(body: str) -> str:
    """`_COMMENT.sub(" ", body)`. After the line of the last "*/" no "/*" can close, so only "//"
    comments are looked for there (the lazy `.*?` would scan to the end from each "/*")."""
    last = body.rfind("*/")
    if last < 0:
        return _LINE_COMMENT.sub(" ", body)
    cut = body.find("\n", last)
    cut = len(body) if cut < 0 else cut
    return _COMMENT.sub(" ", body[:cut]) + _LINE_COMMENT.sub(" ", body[cut:])


def _split_top_level(body: str) -> list[str]:
    pieces, depth, start = [], 0, 0
    for i, c in enumerate(body):
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            depth -= 1
        elif c == "," and depth == 0:
            pieces.append(body[start:i])
            start = i + 1
    pieces.append(body[start:])
    return pieces


def parse_parameter(text: str) -> Optional[CParam]:
    """One declarator ("const aclTensor *self", "aclOpExecutor** executor", "bool keepDim = false")."""
    text = text.split("=", 1)[0].strip()
    array = text.endswith("]")
    if array:
        text = re.sub(r"\s*\[[^\]]*\]$", "", text)
    text = text.rstrip()
    end = len(text)
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_") and text[start - 1].isascii():
        start -= 1
    while start < end and text[start].isdigit():  # an identifier does not start with a digit
        start += 1
    if start == end:
        return None
    type_text, name = text[:start], text[start:]
    c_type = normalise_type(type_text + ("*" if array else ""))
    if not c_type or not _IDENT.search(c_type.replace("const", "")):
        return None
    return CParam(c_type, name)


def normalise_type(text: str) -> str:
    """A C type's spelling normalised: single spaces between words, stars attached to the type.

    A misspelt `const` ("onst aclTensor *x", seen on a page) is read as `const`.
    """
    stars = text.count("*")
    refs = text.count("&")
    words = _IDENT.findall(text.replace("*", " ").replace("&", " "))
    if len(words) >= 2 and words[0] != "const" and _looks_like_const(words[0]):
        words[0] = "const"
    words = [w for w in words if w not in _QUALIFIERS[2:]]
    const = "const" in words
    words = [w for w in words if w not in ("const", "volatile")]
    if not words:
        return ""
    return ("const " if const else "") + " ".join(words) + "*" * stars + "&" * refs


def _looks_like_const(word: str) -> bool:
    return word in ("onst", "cosnt", "conts", "cont", "cnst", "constt", "Const", "CONST")


def pair_declarations(declarations: Iterable[Declaration]) -> tuple[list[Pairing], list[Declaration]]:
    """Two-phase pairs: each `...GetWorkspaceSize` declaration with the function that executes it.

    The API is named by the second function: the workspace function's name without its suffix
    when that function is declared, otherwise the next non-workspace declaration. Returns the
    pairs (in page order, one per API) and the declarations left unpaired.
    """
    unique: dict[str, Declaration] = {}
    for decl in declarations:
        unique.setdefault(decl.name, decl)
    decls = list(unique.values())
    executes = {d.name: d for d in decls if not d.name.endswith(WORKSPACE_SUFFIX)}
    prefixes = _paired_prefixes(decls)
    # The non-workspace declarations in page order; `ahead` moves on past those behind the
    # workspace declaration at hand and those used, which stay used: one pass in all.
    candidates = [k for k, d in enumerate(decls) if not d.name.endswith(WORKSPACE_SUFFIX)]
    ahead = 0
    used: set[str] = set()
    pairs: list[Pairing] = []
    for i, decl in enumerate(decls):
        if not decl.name.endswith(WORKSPACE_SUFFIX):
            continue
        api = decl.name[: -len(WORKSPACE_SUFFIX)]
        execute = executes.get(api)
        if execute is None:
            while ahead < len(candidates) and (candidates[ahead] <= i or decls[candidates[ahead]].name in used):
                ahead += 1
            following = decls[candidates[ahead]] if ahead < len(candidates) else None
            if following is not None and following.name not in prefixes:
                execute = following
                api = following.name
        if execute is not None:
            used.add(execute.name)
        used.add(decl.name)
        pairs.append(Pairing(api, decl, execute))
    leftover = [d for d in decls if d.name not in used]
    return pairs, leftover


def _paired_prefixes(decls: list[Declaration]) -> set[str]:
    return {d.name[: -len(WORKSPACE_SUFFIX)] for d in decls if d.name.endswith(WORKSPACE_SUFFIX)}
