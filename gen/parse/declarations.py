"""The aclnn functions a page declares: read from its prototype section (else from the page outside
the example, else without their return type), what the page is when it declares none (a stub, a
single-phase utility, a reference page), and the parameters a caller passes to a GetWorkspaceSize
function (the trailing workspace-size and executor pair left out)."""

from __future__ import annotations

import re
from typing import Sequence

from gen.ir import Diagnostic, Level
from gen.parse.extractors import vocab
from gen.parse.extractors.prototypes import CParam, Declaration, WORKSPACE_SUFFIX, find_declarations, read_declaration
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import Block, CODE, Document, HEADING, ITEM, Section, TEXT
from gen.parse.sections import EXAMPLE_SECTION, PROTOTYPE_SECTION, first_section


_STUB_TEXT = lazy_pattern(r"正按全新接口模板整改|整改中|being\s+(?:updated|rectified|revised)|will\s+be\s+(?:released|available)|"
                        r"请访问昇腾社区|CannCommunityOplist|to\s+be\s+supplemented|待补充|TBD", re.I)


_API_TITLE = lazy_pattern(r"^\s*aclnn[A-Za-z0-9_]+(?:\s*(?:&|、|和|,|/)\s*aclnn[A-Za-z0-9_]+)*\s*$")
_BARE_DECL = lazy_pattern(r"(?<![\w.>])(aclnn\w+)\s*\(")


def page_declarations(doc: Document, sections: Sequence[Section]) -> list[Declaration]:
    proto = first_section(sections, PROTOTYPE_SECTION)
    found: list[Declaration] = []
    if proto is not None:
        found = _declarations_in(proto.blocks)
    if not any(d.name.endswith(WORKSPACE_SUFFIX) for d in found):
        example = first_section(sections, EXAMPLE_SECTION)
        skip = set(range(example.line, example.end_line + 1)) if example else set()
        found = _declarations_in([b for b in doc.blocks if b.line not in skip])
    if not any(d.name.endswith(WORKSPACE_SUFFIX) for d in found) and proto is not None:
        found = _bare_declarations(proto.blocks)
    return found


def _declarations_in(blocks: Sequence[Block]) -> list[Declaration]:
    found: list[Declaration] = []
    for block in blocks:
        if block.kind in (CODE, TEXT, ITEM) and "aclnnStatus" in block.text:
            found.extend(find_declarations(block.text, block.line + (1 if block.kind == CODE else 0)))
    return found


def _bare_declarations(blocks: Sequence[Block]) -> list[Declaration]:
    """Declarations written without their return type ("aclnnXxxGetWorkspaceSize(const aclTensor *x, ...)")."""
    found: list[Declaration] = []
    for block in blocks:
        if block.kind not in (CODE, TEXT, ITEM):
            continue
        text = block.text
        starts = list(_BARE_DECL.finditer(text))
        line = block.line + (1 if block.kind == CODE else 0)
        counted = 0
        for k, match in enumerate(starts):
            line += text.count("\n", counted, match.start())
            counted = match.start()
            limit = starts[k + 1].start() if k + 1 < len(starts) else len(text)
            decl = read_declaration(text, match.group(1), match.end() - 1, limit, line)
            if decl.params and all(p.c_type for p in decl.params):
                found.append(decl)
    return found


def diagnose_no_api(doc: Document, declarations: Sequence[Declaration], diags: list[Diagnostic]) -> None:
    body = [b for b in doc.blocks if b.kind != HEADING]
    text = "\n".join(b.text for b in body)
    stub = Diagnostic(Level.ERROR, 1, "stub-page", "the page is a stub (no prototype, no parameters): it documents no API")
    if _STUB_TEXT.search(text):
        diags.append(stub)
    elif declarations:
        names = ", ".join(d.name for d in declarations[:3])
        diags.append(Diagnostic(Level.WARNING, declarations[0].line, "single-phase-api",
                                f"the page declares {names} but no ...GetWorkspaceSize function: a single-phase "
                                f"utility, not a two-phase operator API; no API is recorded"))
    elif not _API_TITLE.match(doc.title):
        diags.append(Diagnostic(Level.WARNING, 1, "not-an-api-page",
                                f"the page ({doc.title!r}) declares no aclnn function and is not titled by one: "
                                f"a reference page, not an API page"))
    elif len(body) <= 3 and len(text) < 600:
        diags.append(stub)
    else:
        diags.append(Diagnostic(Level.ERROR, 1, "no-prototype", "the page declares no aclnn function"))


def _protocol_by_type(params: Sequence[CParam]) -> set[int]:
    """Positions of the trailing (uint64_t* workspace size, aclOpExecutor** executor) pair, known by
    their types: pages name them differently (`workspace_size`, `opExecutor`)."""
    found: set[int] = set()
    k = len(params) - 1
    if k >= 0 and params[k].c_type.replace(" ", "") == "aclOpExecutor**":
        found.add(k)
        k -= 1
    if k >= 0 and found and params[k].c_type.replace(" ", "") == "uint64_t*":
        found.add(k)
    return found


def caller_params(decl: Declaration, diags: list[Diagnostic]) -> list[CParam]:
    out: list[CParam] = []
    seen: set[str] = set()
    trailing = _protocol_by_type(decl.params)
    for k, p in enumerate(decl.params):
        if p.name in vocab.PROTOCOL_PARAMS or k in trailing:
            continue
        if p.name in seen:
            diags.append(Diagnostic(Level.WARNING, decl.line, "duplicate-param",
                                    f"{decl.name}: parameter {p.name!r} is declared twice; the first is kept"))
            continue
        seen.add(p.name)
        out.append(p)
    protocol = [p.name for k, p in enumerate(decl.params) if p.name in vocab.PROTOCOL_PARAMS or k in trailing]
    if protocol != ["workspaceSize", "executor"] and decl.params:
        diags.append(Diagnostic(Level.INFO, decl.line, "unusual-workspace-signature",
                                f"{decl.name} does not end with (workspaceSize, executor)"))
    return out
