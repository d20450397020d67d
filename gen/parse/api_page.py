"""An API page's `Document` into the IR: products, prototypes paired into APIs, each API's
parameters (typed from its GetWorkspaceSize table or bullets), errors, formula, constraints and
example.

Each step runs guarded: a step that fails on some page content becomes an error diagnostic at
the section's line and the page keeps everything the other steps recovered.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import re
from typing import Callable, Collection, Optional, Sequence, TypeVar

from gen.names import header_file
from gen.ir import (API, Diagnostic, Direction, DType, DTypeCombination, ErrorCase, ErrorCategory, Level, Page, PageKind, Param,
                    ParamKind, Product, ProductDTypes, RelationKind, Reserved, Soc)
from gen.parse.extractors import prose, vocab
from gen.parse.patterns import lazy_pattern
from gen.parse.readers.document import CODE, HEADING, ITEM, TABLE, TEXT, Block, Document, Section, block_text
from gen.parse.extractors.combinations import combinations_in, dtypes_from
from gen.parse.extractors.entries import ParamEntry, entries_from_blocks, entries_from_table
from gen.parse.extractors.errors import errors_in_blocks
from gen import conventions
from gen.parse.extractors.comparisons import ranges_the_example_keeps
from gen.parse.extractors.params import ParamContext, build_param, note_socs, product_notes
from gen.parse.extractors.products import find_products
from gen.parse.extractors.relations import (CONDITION, speaks_of_broadcasting, with_error_table_relations,
                                           without_product_shapes)
from gen.parse.extractors.rules import UNREAD, Rules, counts_from_zero, limits_the_example_keeps, read_rules, texts_of
from gen.parse.readers.scan import MARKUP
from gen.parse.extractors.prototypes import (WORKSPACE_SUFFIX, find_call, CParam, Declaration, Pairing, find_declarations, normalise_type,
                                  pair_declarations, read_declaration)

T = TypeVar("T")

PROTOTYPE_SECTION = lazy_pattern(r"函数原型|接口原型|原型|Prototype|接口定义|函数定义|^接口$|API\s*定义|Function\s+Signature", re.I)
FUNCTION_SECTION = lazy_pattern(r"功能说明|功能描述|接口功能|算子功能|^Function|^Description|Overview|^功能$", re.I)
CONSTRAINT_SECTION = lazy_pattern(r"约束|限制|Constraints?|Restrictions?|Limitations?", re.I)
EXAMPLE_SECTION = lazy_pattern(r"调用示例|示例|样例|Examples?|Samples?|Usage\s+Example", re.I)
PARAMS_SECTION = lazy_pattern(r"参数说明|Parameters?|参数$", re.I)
RETURN_SECTION = lazy_pattern(r"返回值|返回码|错误码|Returns?|Return\s+Values?|Error\s+Codes?", re.I)
_FORMULA_MARK = lazy_pattern(r"计算公式|公式[：:]|Formula|Calculation\s+formula|Computation\s+formula", re.I)
_STUB_TEXT = lazy_pattern(r"正按全新接口模板整改|整改中|being\s+(?:updated|rectified|revised)|will\s+be\s+(?:released|available)|"
                        r"请访问昇腾社区|CannCommunityOplist|to\s+be\s+supplemented|待补充|TBD", re.I)
PARAM_UNDOCUMENTED = "param-undocumented"
PARAM_NO_DTYPES = "param-no-dtypes"
_INCLUDE = lazy_pattern(r"#\s*include\s*[<\"](aclnnop/[^\">]+)[\">]")
_API_TITLE = lazy_pattern(r"^\s*aclnn[A-Za-z0-9_]+(?:\s*(?:&|、|和|,|/)\s*aclnn[A-Za-z0-9_]+)*\s*$")
_BARE_DECL = lazy_pattern(r"(?<![\w.>])(aclnn\w+)\s*\(")


def guarded(diags: list[Diagnostic], line: int, what: str, step: Callable[[], T], default: T) -> T:
    """Runs one extraction step; a failure is a diagnostic, never an exception out of the parser."""
    try:
        return step()
    except Exception as exc:  # noqa: BLE001 - page content must never crash the parser
        diags.append(Diagnostic(Level.ERROR, line, "parser-failure",
                                f"{what} could not be read ({type(exc).__name__}: {exc})"))
        return default


def build_api_page(doc: Document, source: str, diags: list[Diagnostic]) -> Page:
    sections = doc.sections()
    title = doc.title
    products: tuple[Product, ...] = guarded(diags, 1, "the product list", lambda: find_products(sections, diags), ())
    function = _first(sections, FUNCTION_SECTION)
    description = block_text(function.blocks) if function else ""

    declarations: list[Declaration] = guarded(diags, 1, "the prototypes", lambda: _declarations(doc, sections), [])
    pairs, leftover = pair_declarations(declarations)
    for decl in declarations:
        if decl.problems:
            diags.append(Diagnostic(Level.WARNING, decl.line, "prototype-unreadable-param",
                                    f"{decl.name}: could not read parameter(s) {', '.join(map(repr, decl.problems))}"))
    if not pairs:
        _diagnose_no_api(doc, declarations, diags)

    apis: list[API] = []
    claimed: set[str] = set()
    for pair in pairs:
        if pair.api in claimed:
            continue
        claimed.add(pair.api)
        if pair.execute is None:
            diags.append(Diagnostic(Level.WARNING, pair.workspace.line, "second-phase-missing",
                                    f"{pair.workspace.name} has no matching {pair.api}(...) declaration"))
        api = guarded(diags, pair.workspace.line, f"the API {pair.api}",
                      lambda: _build_api(doc, sections, pair, pairs, function, diags), None)
        if api is not None:
            apis.append(api)
    for decl in leftover:
        diags.append(Diagnostic(Level.INFO, decl.line, "unpaired-declaration",
                                f"{decl.name} is declared but belongs to no GetWorkspaceSize function"))
    if apis:
        diags.extend(_per_product_tables(doc))
    return Page(source=source, kind=PageKind.API_PAGE, title=title, description=description,
                products=products, apis=tuple(apis), diagnostics=())


PER_PRODUCT_TABLE = "per-product-table-unread"


def _product_tables(doc: Document) -> list[tuple[Block, dict[int, tuple[Soc, ...]]]]:
    """Tables with a column per product ("约束类型 | Ascend 950PR/Ascend 950DT | Atlas A2 训练系列产品 |
    ..."), with the chips of each such column."""
    found = []
    for block in doc.blocks:
        if block.kind != TABLE or block.table is None:
            continue
        header = [MARKUP.sub("", h) for h in block.table.header]
        columns = {i: vocab.socs_in(h) for i, h in enumerate(header) if i and vocab.socs_in(h)}
        if columns and not vocab.socs_in(header[0]):
            found.append((block, columns))
    return found


def _per_product_tables(doc: Document) -> list[Diagnostic]:
    """What a table with a column per product states in prose beyond the dtypes it excludes
    (`_product_table_notes`: "L维度的大小应该在[1,255]的范围内", cubeMathType's modes) is not read:
    said, naming its rows."""
    found = []
    for block, columns in _product_tables(doc):
        assert block.table is not None
        rows = [row.texts[0].strip() for row in block.table.rows if row.texts and row.texts[0].strip()]
        listed = ", ".join(rows[:6]) + (", ..." if len(rows) > 6 else "")
        found.append(Diagnostic(Level.WARNING, block.line, PER_PRODUCT_TABLE,
                                f"a table with a column per product ({len(columns)} product column(s); rows: {listed}): "
                                f"only the dtypes its cells exclude ('数据类型不支持...') are read; the rest of what it "
                                f"states per chip is not checked"))
    return found


def _product_table_notes(doc: Document, names: Sequence[str]) -> list[prose.DTypeNote]:
    """The dtypes a table with a column per product excludes for its chips, as product notes of
    the parameters section: "input、weight数据类型不支持HIFLOAT8、FLOAT8_E4M3FN" (the row "input、weight"
    of the column "Atlas A2 训练系列产品"), "不支持BFLOAT16、HIFLOAT8" (the row "dtype约束": every tensor
    whose list has them). Only unconditional exclusions: "只有在transposed=true...时，数据类型才支持..."
    and "当input是HIFLOAT8时，不支持带bias" are not read."""
    notes: list[prose.DTypeNote] = []
    for block, columns in _product_tables(doc):
        assert block.table is not None
        for row in block.table.rows:
            label = prose.names_in(row.texts[0], names) if row.texts else ()
            for column, socs in columns.items():
                if column >= len(row.cells):
                    continue
                for sentence in re.split(r"[。；;\n]", row.cells[column].text):
                    if CONDITION.search(sentence):
                        continue
                    for note in prose.note_statements(socs, sentence, row.line_of(column), names):
                        if note.op == prose.REMOVE:
                            notes.append(dataclasses.replace(note, params=note.params or label))
    return notes


def _first(sections: Sequence[Section], pattern: re.Pattern[str]) -> Optional[Section]:
    for section in sections:
        if pattern.search(section.title):
            return section
    return None


def _declarations(doc: Document, sections: Sequence[Section]) -> list[Declaration]:
    proto = _first(sections, PROTOTYPE_SECTION)
    found: list[Declaration] = []
    if proto is not None:
        found = _declarations_in(proto.blocks)
    if not any(d.name.endswith(WORKSPACE_SUFFIX) for d in found):
        example = _first(sections, EXAMPLE_SECTION)
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


def _diagnose_no_api(doc: Document, declarations: Sequence[Declaration], diags: list[Diagnostic]) -> None:
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


def api_section(sections: Sequence[Section], workspace_fn: str) -> Optional[Section]:
    """The section of an API's GetWorkspaceSize function (exact title first, then a title naming it)."""
    named = [s for s in sections if names_word(s.title, workspace_fn)]
    for section in named:
        if section.title.strip() == workspace_fn:
            return section
    return named[0] if named else None


def names_word(text: str, word: str) -> bool:
    """Whether `word` stands in `text` not inside a longer ASCII identifier (a pattern of it,
    compiled for each API, cost more than the search)."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if (start == 0 or not _identifier_char(text[start - 1])) and (end == len(text) or not _identifier_char(text[end])):
            return True
        start = text.find(word, start + 1)
    return False


def _identifier_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _in_place_target(api: str, params: list[Param], diags: list[Diagnostic]) -> list[Param]:
    """An in-place API writes its first tensor even where the page calls every parameter an input
    (aclnnInplacePowTensorScalar: `const aclTensor* self`, 输入, as CANN's own header has it)."""
    if not api.startswith("aclnnInplace") or any(p.direction is not Direction.IN for p in params):
        return params
    for i, param in enumerate(params):
        if param.kind is ParamKind.TENSOR:
            diags.append(Diagnostic(Level.INFO, param.line, "in-place-target",
                                    f"{api}: {param.name} is the tensor an in-place API writes; the page says input"))
            return params[:i] + [dataclasses.replace(param, direction=Direction.INOUT)] + params[i + 1:]
    return params


def _read_before_outputs(params: list[Param], diags: list[Diagnostic]) -> list[Param]:
    """A const tensor the table calls an output, declared before a writable output, is read: the
    prototypes list inputs first (aclnnFusedCrossEntropyLossWithMaxSum's `const aclTensor*
    vocabParallelLogitsOptional`, 输出 in its table, comes before `aclTensor* lossOut`, and op-plugin
    passes the logits there). Const outputs after the last writable one keep the table's word
    (aclnnModulateBackward declares all three of its outputs const)."""
    writable = [i for i, p in enumerate(params) if p.direction is Direction.OUT and p.kind is ParamKind.TENSOR
                and not p.c_type.startswith("const ")]
    if not writable:
        return params
    result = list(params)
    for i, param in enumerate(params[:writable[-1]]):
        if param.direction is Direction.OUT and param.kind is ParamKind.TENSOR and param.c_type.startswith("const "):
            diags.append(Diagnostic(Level.INFO, param.line, "direction-from-order",
                                    f"{param.name}: the table says output, but a const tensor declared before the "
                                    f"writable output {params[writable[-1]].name} is read: input"))
            result[i] = dataclasses.replace(param, direction=Direction.IN)
    return result


def _build_api(doc: Document, sections: Sequence[Section], pair: Pairing, pairs: Sequence[Pairing],
               function: Optional[Section], diags: list[Diagnostic]) -> API:
    workspace_fn = pair.workspace.name
    cparams = _caller_params(pair.workspace, diags)
    names = [p.name for p in cparams]

    section = api_section(sections, workspace_fn)
    scope: Sequence[Block]
    if section is not None:
        scope = section.blocks
    else:
        scope = _fallback_scope(doc, sections, pair, pairs)
    nothing: tuple[dict[str, ParamEntry], list[prose.DTypeNote]] = ({}, [])
    entries, notes = guarded(diags, section.line if section else 1, f"the parameters of {pair.api}",
                             lambda: _entries(scope, names, diags), nothing)
    if section is not None and not any(n in entries for n in names):
        # A GetWorkspaceSize section without the table (it sits under 参数说明 elsewhere).
        more, more_notes = _entries(_fallback_scope(doc, sections, pair, pairs), names, diags)
        entries, notes = more, more_notes

    ctx = ParamContext(api_params=names, section_notes=[*notes, *_product_table_notes(doc, names)])
    params: list[Param] = []
    matched: list[Optional[ParamEntry]] = [_match_entry(c.name, entries, diags) for c in cparams]
    _pair_leftovers(cparams, matched, entries, diags)
    _constraint_entries(cparams, matched, _first(sections, CONSTRAINT_SECTION), diags)
    for cparam, entry in zip(cparams, matched):
        params.append(build_param(cparam, entry, ctx, diags, pair.workspace.line))
    params = resolve_references(params, matched, diags)
    params = _in_place_target(pair.api, params, diags)
    params = _read_before_outputs(params, diags)
    constraints_section = _first(sections, CONSTRAINT_SECTION)
    combinations: tuple[DTypeCombination, ...] = ()
    for holder in _combination_sections(sections, constraints_section):
        combinations += guarded(diags, holder.line, f"the dtype combinations of {pair.api}",
                                lambda: combinations_in(pair.api, holder.blocks, params, diags),
                                tuple[DTypeCombination, ...]())
    params = [_dtypes_narrowed_by_combinations(_dtypes_from_combinations(param, combinations), combinations)
              for param in params]
    params = _dtypes_from_page_statement(pair.api, params, matched, constraints_section, diags)
    error_diags: list[Diagnostic] = []  # after the coverage diagnostics, as they were read after them
    errors: list[ErrorCase] = guarded(error_diags, section.line if section else 1, f"the errors of {pair.api}",
                                      lambda: _errors(doc, sections, section, scope, names, pairs, error_diags), [])
    params = _dtypes_from_errors(pair.api, params, matched, errors, diags)
    params = _scalar_dtypes_from_tensors(pair.api, params, matched, diags)
    for param, entry in zip(params, matched):
        _diagnose_coverage(pair.api, param, entry, diags, pair.workspace.line, errors)
    diags.extend(error_diags)
    params = list(with_error_table_relations(params, errors))
    params = _dtype_relations_the_combinations_keep(pair.api, params, combinations, diags)
    constraint_lines = [text for _, text in _constraint_lines(constraints_section.blocks if constraints_section else ())]
    params = [_with_reserved(param, entry, constraint_lines) for param, entry in zip(params, matched)]
    params = _optional_where_errors_say_non_null(params, errors)
    params = _optional_where_errors_refuse_only_all_null(params, errors)
    params = conventions.class_predicate_inputs(pair.api, params)
    conventions.integer_inputs_cast(pair.api, params, pair.workspace.line, diags)

    formula = _formula(function)
    constraints = _section_text(constraints_section) if constraints_section else ""
    rules = guarded(diags, pair.workspace.line, f"the cross-parameter rules of {pair.api}",
                    lambda: _rules(doc, pair.api, params, matched, errors, formula, constraints_section, diags), None)
    if rules is not None:
        params = rules[0]
    example, example_line = _example(sections, workspace_fn, pair.api)
    # The example's operator header: the one named after the API where it includes several
    # (aclnnWeightQuantBatchMatmulV2's example includes aclnn_cast.h first), else the first.
    includes = [m.group(1) for m in _INCLUDE.finditer(example)]
    own = header_file(pair.api)
    header = own if own in includes else (includes[0] if includes else "")
    found = rules[1] if rules is not None else read_rules(pair.api, (), (), False)
    api = API(name=pair.api, workspace_fn=workspace_fn, params=tuple(params), errors=tuple(errors),
              formula=formula, constraints=constraints, example=example,
              header=header, line=pair.workspace.line,
              example_line=example_line, dtype_combinations=combinations, value_ranges=tuple(found.value_ranges),
              value_sets=tuple(found.value_sets), array_lengths=tuple(found.array_lengths),
              dim_equalities=tuple(found.dim_equalities), divisibility=tuple(found.divisibility),
              shape_rules=tuple(found.shape_rules), dim_bytes=tuple(found.dim_bytes), speaks_of_broadcasting=speaks_of_broadcasting(params, formula))
    api = dataclasses.replace(api, inner_null_outputs=conventions.inner_null_outputs(api),
                              error_rows_name_formats=conventions.error_rows_name_formats(api),
                              zero_d_addends=conventions.zero_d_addends(api))
    if example:
        api = limits_the_example_keeps(ranges_the_example_keeps(_with_example_call(api, diags), diags), diags)
    return api


# A section of its own for the dtypes ("## 支持的数据类型" over a table "self | other | out").
_DTYPE_SECTION = lazy_pattern(r"数据类型|\bdata\s*types?\b|\bdtypes?\b", re.I)


def _combination_sections(sections: Sequence[Section], constraints: Optional[Section]) -> list[Section]:
    """Where dtype-combination tables are: the constraints section, and sections titled by the
    dtypes (aclnnDivV3 keeps its table under "## 支持的数据类型", beside "## 约束")."""
    found = [constraints] if constraints is not None else []
    inside = range(constraints.line, constraints.end_line + 1) if constraints is not None else range(0)
    found += [s for s in sections if s is not constraints and s.line not in inside
              and _DTYPE_SECTION.search(s.title) and not PARAMS_SECTION.search(s.title)]
    return found


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


def _caller_params(decl: Declaration, diags: list[Diagnostic]) -> list[CParam]:
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


def _fallback_scope(doc: Document, sections: Sequence[Section], pair: Pairing,
                    pairs: Sequence[Pairing]) -> Sequence[Block]:
    """Where to look for an API's parameters when it has no section of its own: a 参数说明
    section, else the whole page without the other APIs' sections and the example."""
    excluded: set[int] = set()
    for other in pairs:
        if other.api == pair.api:
            continue
        section = api_section(sections, other.workspace.name)
        if section is not None:
            excluded.update(range(section.line, section.end_line + 1))
    example = _first(sections, EXAMPLE_SECTION)
    if example is not None:
        excluded.update(range(example.line, example.end_line + 1))
    return [b for b in doc.blocks if b.line not in excluded]


def _entries(blocks: Sequence[Block], names: Sequence[str],
             diags: list[Diagnostic]) -> tuple[dict[str, ParamEntry], list[prose.DTypeNote]]:
    entries: dict[str, ParamEntry] = {}
    for block in blocks:
        if block.kind == TABLE and block.table is not None:
            found = entries_from_table(block.table, names)
            if found is None:
                continue
            if not any(e.name in names for e in found.entries):
                continue
            if found.unknown_columns:
                columns = ", ".join(map(repr, found.unknown_columns))
                diags.append(Diagnostic(Level.INFO, found.line, "unknown-column",
                                        f"parameter table column(s) {columns} are not ones this parser knows; ignored"))
            for line, name, offset in found.shifted:
                diags.append(Diagnostic(Level.WARNING, line, "row-cells-shifted",
                                        f"{name}: the row's 数据类型 cell lists no dtype but the cell {offset:+d} from it "
                                        f"lists dtypes alone; the row is read realigned to the header"))
            for entry in found.entries:
                entries.setdefault(entry.name, entry)
    for entry in entries_from_blocks(blocks, names):
        existing = entries.get(entry.name)
        if existing is None:
            entries[entry.name] = entry
    claimed = {line for e in entries.values() for line, _ in e.notes}
    return entries, _section_notes(blocks, names, claimed)


def _section_notes(blocks: Sequence[Block], names: Sequence[str], claimed: set[int]) -> list[prose.DTypeNote]:
    """Product notes outside any parameter's bullet (after a table, in the section's prose)."""
    notes: list[prose.DTypeNote] = []
    inherited: tuple = ()
    inherited_level = 0
    for block in blocks:
        if block.kind not in (ITEM, TEXT) or block.line in claimed:
            if block.kind in (HEADING, TABLE):
                inherited = ()
            continue
        if inherited and block.level <= inherited_level:
            inherited = ()
        for offset, line_text in enumerate(block.text.split("\n")):
            socs = note_socs(line_text)
            found = product_notes(line_text, block.line + offset, names, inherited)
            notes.extend(found)
            if socs and not found:
                inherited, inherited_level = socs, block.level
    return notes


def _match_entry(name: str, entries: dict[str, ParamEntry], diags: list[Diagnostic]) -> Optional[ParamEntry]:
    if name in entries:
        return entries[name]
    lowered = {k.lower(): v for k, v in entries.items()}
    if name.lower() in lowered:
        return lowered[name.lower()]
    stem = _stem(name)
    for key, entry in entries.items():
        if _stem(key) == stem and stem:
            diags.append(Diagnostic(Level.INFO, entry.line, "param-name-mismatch",
                                    f"the table documents {key!r} for the prototype's {name!r}"))
            return entry
    return None


_RESERVED = lazy_pattern(r"预留|保留参数|(?:需要|需|必须|只能|仅支持|固定|即可)\s*(?:传入|为|是|设置?为)\s*(?:空指针|nullptr|NULL)|"
                       r"仅支持传入空指针|暂无用|暂无作用|暂未使用|"
                       r"only\s+(?:a\s+)?null\s*(?:pointers?|ptr)\s+(?:are|is|can\s+be)|"
                       r"\breserved\b|must\s+be\s+(?:set\s+to\s+)?(?:nullptr|null)|\bpass\s+(?:a\s+)?(?:nullptr|null)|"
                       r"\b(?:currently\s+)?unused\b|\bcurrently\s+not\s+used\b|\bnot\s+used\s+(?:yet|currently)\b",
                       re.I)


def _reserved(entry: ParamEntry) -> bool:
    """A reserved parameter ("预留参数，当前版本不支持，需要传入nullptr"), one that must be NULL ("当前不支持，
    必须为nullptr", "Currently, only a null pointer can be passed.") or one the operator does not use yet
    ("用于保存正向计算的中间结果，暂无用") has no dtypes to state."""
    return bool(_RESERVED.search(entry.prose))


def _dtypes_from_combinations(param: Param, combinations: Sequence[DTypeCombination]) -> Param:
    """A parameter whose row gives no dtypes ("参见约束说明") with the dtypes the page's
    combination rows give it (per chip where the rows name chips)."""
    if param.dtypes or param.kind not in vocab.DTYPED_KINDS:
        return param
    general, per_soc = dtypes_from(param.name, combinations)
    if not general:
        return param
    order = list(Soc)
    by_product = tuple(ProductDTypes(soc, dtypes) for soc, dtypes in sorted(per_soc.items(), key=lambda i: order.index(i[0])))
    return dataclasses.replace(param, dtypes=general, dtypes_by_product=by_product)


def _dtypes_narrowed_by_combinations(param: Param, combinations: Sequence[DTypeCombination]) -> Param:
    """`param` with, on each chip, only the dtypes some combination row applying there gives it,
    where every such row lists its dtypes: aclnnAddRmsNormQuant's English page lists FLOAT32 for
    x1 in its row and gives Ascend910B only FLOAT16 and BFLOAT16 rows, which phase 1 holds every
    call to. The list a chip's rows leave out is refused there either way (a dtype outside the
    list, or a call no row matches, both 161002); written per chip, it is what the bindings'
    documentation, the generated suites and `Param.dtypes_for` say the chip takes. A row that
    leaves the parameter free (no cell, or "与x一致") narrows nothing, nor a chip without rows."""
    if not param.dtypes or param.kind not in vocab.DTYPED_KINDS:
        return param

    def narrowed(current: tuple[DType, ...], rows: Sequence[DTypeCombination]) -> tuple[DType, ...]:
        cells = [row.cell(param.name) for row in rows]
        if not cells or any(c is None or c.same_as or not c.dtypes for c in cells):
            return current
        kept = tuple(d for d in current if any(d in c.dtypes for c in cells if c))
        return kept or current  # rows that share no dtype with the list: the page contradicts itself

    general = narrowed(param.dtypes, [r for r in combinations if not r.products])
    stated = [e.soc for e in param.dtypes_by_product]
    by_product = []
    for soc in stated + [soc for soc in Soc if soc not in stated]:  # the page's entries keep their order
        dtypes = narrowed(param.dtypes_for(soc) if soc in stated else general,
                          [r for r in combinations if r.applies_to(soc)])
        if soc in stated or dtypes != general:
            by_product.append(ProductDTypes(soc, dtypes))
    if general == param.dtypes and tuple(by_product) == param.dtypes_by_product:
        return param
    return dataclasses.replace(param, dtypes=general, dtypes_by_product=tuple(by_product))


def _dtype_relations_the_combinations_keep(api: str, params: list[Param], combinations: Sequence[DTypeCombination],
                                           diags: list[Diagnostic]) -> list[Param]:
    """`params` without the same-dtype relations a row of the page's own dtype-combination table
    breaks (the row gives the two parameters dtypes they cannot share): aclnnAddRmsNormQuant's English
    page says xOut's "data type is the same as that of zeroPoints1Optional" (its Chinese page: x1's),
    and its rows pair a FLOAT16 xOut with an INT32 zeroPoints1Optional. The table lists every call
    it allows; a sentence that contradicts it is copied from another row."""
    out = []
    for param in params:
        broken = set()
        for other in param.related(RelationKind.SAME_DTYPE):
            for row in combinations:
                mine, theirs = row.cell(param.name), row.cell(other)
                if (mine and theirs and mine.dtypes and theirs.dtypes and not mine.same_as and not theirs.same_as
                        and not set(mine.dtypes) & set(theirs.dtypes)):
                    broken.add(other)
                    diags.append(Diagnostic(Level.INFO, row.line, "relation-contradicts-combinations",
                                            f"{api}.{param.name}: its dtype is said to be {other}'s, and the "
                                            f"combination row gives them {'/'.join(d.value for d in mine.dtypes)} "
                                            f"and {'/'.join(d.value for d in theirs.dtypes)}: the table is followed"))
                    break
        if broken:
            relations = []
            for relation in param.relations:
                kept = tuple(o for o in relation.others if relation.kind is not RelationKind.SAME_DTYPE or o not in broken)
                if kept:
                    relations.append(dataclasses.replace(relation, others=kept))
            param = dataclasses.replace(param, relations=tuple(relations))
        out.append(param)
    return out


def _page_statement(constraints: Optional[Section], names: Sequence[str]) -> tuple[tuple[int, prose.DTypeList], ...]:
    """The operator-wide dtype statements of a constraints section: a top-level line that states a
    list ("数据类型支持FLOAT16、INT8、FLOAT。", "Supported data types are FLOAT16 and BFLOAT16.") and
    names no parameter, no product and no condition: (line, list) of each."""
    if constraints is None:
        return ()
    found = []
    for line, text in _constraint_lines(constraints.blocks):
        if prose.names_in(text, names) or vocab.socs_in(text) or CONDITION.search(text):
            continue
        statements = prose.dtype_statements(text)
        if len(statements) == 1:
            found.append((line, statements[0][1]))
    return tuple(found)


def _dtypes_from_page_statement(api: str, params: list[Param], matched: Sequence[Optional[ParamEntry]],
                                constraints: Optional[Section], diags: list[Diagnostic]) -> list[Param]:
    """Tensors whose rows state no dtype take the one list the constraints state for the whole
    operator (aclnnMatmulAdd: rows "a: Required 2-D tensor", and "Supported data types are FLOAT16 and
    BFLOAT16." under Constraints). Only when the page has one such list: two would leave open which
    tensor each is for. Reserved rows keep no dtypes."""
    wanting = [i for i, (param, entry) in enumerate(zip(params, matched))
               if entry is not None and not param.dtypes and not _reserved(entry)
               and param.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST)]
    if not wanting:
        return params
    statements = _page_statement(constraints, [p.name for p in params])
    if len({listed.dtypes for _, listed in statements}) != 1:
        return params
    line, listed = statements[0]
    out = list(params)
    for i in wanting:
        out[i] = dataclasses.replace(params[i], dtypes=listed.dtypes)
        diags.append(Diagnostic(Level.INFO, line, "dtypes-from-constraints",
                                f"{api}.{params[i].name}: its row states no dtype; the constraints state the "
                                f"operator's ({', '.join(d.value for d in listed.dtypes)}) naming no parameter"))
    return out


def _dtypes_from_errors(api: str, params: list[Param], matched: Sequence[Optional[ParamEntry]],
                        errors: Sequence[ErrorCase], diags: list[Diagnostic]) -> list[Param]:
    """Tensors whose rows state no dtype take the one the error table requires of them: aclnnUnique's
    inverseOut, its row silent, has the error "returnInverse为True，inverseOut的数据类型不为INT64"
    (the only dtype the page lets it have, whenever it is written)."""
    out = list(params)
    for i, (param, entry) in enumerate(zip(params, matched)):
        if entry is None or param.dtypes or param.kind not in (ParamKind.TENSOR, ParamKind.TENSOR_LIST):
            continue
        name = re.escape(param.name)
        required = re.compile(rf"(?<![\w.]){name}\s*的?\s*数据类型\s*(?:不为|不是|不等于)\s*|"
                              rf"\bdata\s+type\s+of\s+`?{name}`?\s+is\s+not\s+", re.I)
        for error in errors:
            match = required.search(error.condition)
            listed = prose.DTYPE_LIST.match(error.condition, match.end()) if match else None
            dtypes = prose.parse_dtype_list(listed.group(0)).dtypes if listed else ()
            if dtypes:
                out[i] = dataclasses.replace(param, dtypes=dtypes)
                diags.append(Diagnostic(Level.INFO, error.line, "dtypes-from-errors",
                                        f"{api}.{param.name}: its row states no dtype; the error table rejects any "
                                        f"but {', '.join(d.value for d in dtypes)}"))
                break
    return out


def _scalar_dtypes_from_tensors(api: str, params: list[Param], matched: Sequence[Optional[ParamEntry]],
                                diags: list[Diagnostic]) -> list[Param]:
    """Host scalars whose rows list no dtype, with the dtypes of the tensors they are cast to
    (gen.conventions.unlisted_scalar_dtypes)."""
    out = list(params)
    for i, (param, entry) in enumerate(zip(params, matched)):
        if entry is None or _reserved(entry):
            continue
        dtypes = conventions.unlisted_scalar_dtypes(param, params)
        if dtypes:
            out[i] = dataclasses.replace(param, dtypes=dtypes)
            diags.append(Diagnostic(Level.INFO, entry.line, "scalar-dtypes-from-tensors",
                                    f"{api}.{param.name}: its row lists no dtype; a host scalar is cast to its "
                                    f"tensors' dtypes: {', '.join(d.value for d in dtypes)}"))
    return out


_RESERVED_WORD = lazy_pattern(r"预留参数|保留参数|\breserved\b", re.I)
# A parameter the operator does not read yet ("正向计算的中间结果，暂不使用": aclnnLogSigmoidBackward's
# buffer, which op-plugin passes empty): Reserved.UNUSED, never NULL-only.
_UNUSED_WORD = lazy_pattern(r"暂不使用|暂未使用|暂无用|暂无作用")
# What makes a reserved parameter one the caller must pass as NULL: the page asks for NULL, or says
# it is not supported yet ("当前版本不支持", "当前暂不支持"). Not when NULL merely suffices ("传入空指针
# nullptr即可") or something else is accepted too ("nullptr或空tensor", "需要传入size大小为3的aclIntArray").
_NULL_ONLY = lazy_pattern(r"传入\s*(?:空指针|nullptr|NULL)|空指针代替|不支持|"
                        r"must\s+be\s+(?:set\s+to\s+)?(?:a\s+)?(?:nullptr|null)|pass\s+(?:a\s+)?(?:nullptr|null)|"
                        r"not\s+supported", re.I)
_NOT_ONLY_NULL = lazy_pattern(r"或(?:者)?空\s*tensor|传入size|非空|值大于|即可|or\s+(?:an?\s+)?empty|不参与计算|暂无作用|"
                            r"does\s+not\s+participate|取值仅支持|(?:只|仅)支持\s*(?:取值\s*)?(?:true|false|-?\d)|"
                            r"传入(?:false|true|0)", re.I)
# A constraints line that reserves parameters by name: "`quantScaleOptional`和`quantOffsetOptional`为预留参数，...".
_RESERVES = lazy_pattern(r"(?:为|是|are|is)\s*(?:a\s+)?(?:预留参数|保留参数|reserved)", re.I)


# "weight，runningMean，saveMean非空时，数据类型…": every name of the list 非空时 (when not null)
# follows; "gradWeight（非空时）": the one name before the parenthesis.
_NON_NULL_LIST = lazy_pattern(r"((?:[A-Za-z_]\w*\s*[、，,和与或及]\s*)*[A-Za-z_]\w*)\s*非空时")
_NON_NULL_ONE = lazy_pattern(r"([A-Za-z_]\w*)\s*[（(]\s*非空时\s*[）)]")
_NAME = lazy_pattern(r"[A-Za-z_]\w*")
# The English pages' "When perSampleWeights is not nullptr: its data type ..." (aclnnEmbeddingBag).
_NON_NULL_EN = lazy_pattern(r"\bwhen\s+([A-Za-z_]\w*)\s+is\s+not\s+(?:a\s+)?(?:nullptr|null)\b", re.I)


# "或者clipValueMin、clipValueMax全为空指针" (aclnnClamp): the error is all of them null, so each alone may be.
_ALL_NULL = lazy_pattern(r"((?:[A-Za-z_]\w*\s*[、，,和与及]\s*)+[A-Za-z_]\w*)\s*(?:全|都|均|同时)为空指针")


def _optional_where_errors_refuse_only_all_null(params: Sequence[Param], errors: Sequence[ErrorCase]) -> list[Param]:
    """The pointers a null-pointer row refuses only together ("max、min全为空指针": aclnnClamp's bounds)
    made optional: torch.clamp(x, min=0.5) passes a null max. That one must be given is the
    semantics' check (no IR rule says "at least one of")."""
    pointers = {p.name for p in params if p.kind in (ParamKind.TENSOR, ParamKind.SCALAR) and not p.optional}
    named: set[str] = set()
    for error in errors:
        if error.category is ErrorCategory.NULL_POINTER:
            for match in _ALL_NULL.finditer(error.condition):
                names = [_pointer_named(n, pointers) for n in _NAME.findall(match.group(1))]
                if len(names) > 1 and all(names):
                    named.update(n for n in names if n)
    return _made_optional(params, named)


def _pointer_named(word: str, pointers: Collection[str]) -> Optional[str]:
    """The pointer an error row names by its name or by the one name it ends ("max" for
    clipValueMax: aclnnClamp's row says "max、min全为空指针")."""
    if word in pointers:
        return word
    ending = [p for p in pointers if p.lower().endswith(word.lower())]
    return ending[0] if len(ending) == 1 else None


def _optional_where_errors_say_non_null(params: Sequence[Param], errors: Sequence[ErrorCase]) -> list[Param]:
    """The tensors an error row qualifies with 非空时 ("when not null": aclnnBatchNormBackward's
    "weight，runningMean，runningVar，saveMean，saveInvstd非空时，数据类型…不在支持的范围之内",
    "gradWeight（非空时）") made optional: the page says a null pointer is a valid argument there,
    though their names lack the Optional suffix (nn.BatchNorm2d(affine=False) passes a null weight)."""
    pointers = {p.name for p in params if p.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST) and not p.optional}
    named: set[str] = set()
    for error in errors:
        for match in _NON_NULL_LIST.finditer(error.condition):
            named.update(n for n in _NAME.findall(match.group(1)) if n in pointers)
        named.update(n for n in _NON_NULL_ONE.findall(error.condition) if n in pointers)
        named.update(n for n in _NON_NULL_EN.findall(error.condition) if n in pointers)
    return _made_optional(params, named)


def _made_optional(params: Sequence[Param], named: Collection[str]) -> list[Param]:
    return [dataclasses.replace(p, optional=True) if p.name in named else p for p in params]


def _with_reserved(param: Param, entry: Optional[ParamEntry], constraints: Sequence[str] = ()) -> Param:
    """`param` with how the page reserves it: its row, or a constraints line naming it, says
    预留参数 outside a condition. Reserved.NULL (and so optional) when the page asks for NULL or says
    the parameter is not supported yet: the simulator then refuses anything else; Reserved.UNUSED
    otherwise (a value the implementation ignores, or one its row states)."""
    if param.kind is None:
        return param
    texts = [entry.prose] if entry is not None else []
    texts += [line for line in constraints if _RESERVES.search(line) and
              re.search(rf"(?<![A-Za-z0-9_]){re.escape(param.name)}(?![A-Za-z0-9_])", line.split("预留")[0])]
    for text in texts:
        for sentence in re.split(r"[。；;\n]|\.\s", text):
            if not _RESERVED_WORD.search(sentence) or CONDITION.search(sentence):
                continue
            null = param.kind.is_pointer and bool(_NULL_ONLY.search(text)) and not _NOT_ONLY_NULL.search(text)
            if null:
                return dataclasses.replace(param, reserved=Reserved.NULL, optional=True)
            return dataclasses.replace(param, reserved=Reserved.UNUSED)
    if entry is not None and any(_UNUSED_WORD.search(sentence) and not CONDITION.search(sentence)
                                 for sentence in re.split(r"[。；;\n]|\.\s", entry.prose)):
        return dataclasses.replace(param, reserved=Reserved.UNUSED)
    return param


def _rules(doc: Document, api: str, params: list[Param], matched: Sequence[Optional[ParamEntry]],
           errors: Sequence[ErrorCase], formula: str, constraints: Optional[Section],
           diags: list[Diagnostic]) -> tuple[list[Param], Rules]:
    """The API's cross-parameter rules (gen.parse.extractors.rules), and its parameters without the shape
    relations those rules or the formula make unreliable: a relation touching an operand of a
    product (`vec1 ⊗ vec2`), and an unconditional shape relation of a tensor whose shape a host
    argument decides (a shape rule)."""
    kept, dropped = without_product_shapes(params, formula)
    line_of = {p.name: p.line for p in params}
    for name, others in dropped:
        diags.append(Diagnostic(Level.INFO, line_of[name], UNREAD,
                                f"{api}.{name}: its shape relation with {others} is about a product of tensors "
                                f"(the formula multiplies them); the simulator does not check it"))
    rows = {p.name: ("\n".join([e.prose] + [t for _, t in e.notes]), e.line)
            for p, e in zip(kept, matched) if e is not None}
    lines = _constraint_lines(constraints.blocks if constraints else ())
    page_text = "\n".join(b.text for b in doc.blocks)
    found = read_rules(api, kept, texts_of(kept, rows, errors, lines), counts_from_zero(page_text))
    diags.extend(found.diagnostics)
    ruled = {r.param for r in found.shape_rules}
    if ruled:
        shape_kinds = (RelationKind.SAME_SHAPE, RelationKind.BROADCAST)
        out = []
        for param in kept:
            relations = tuple(r for r in param.relations if r.kind not in shape_kinds or
                              (param.name not in ruled and not ruled & set(r.others)))
            out.append(param if relations == param.relations else dataclasses.replace(param, relations=relations))
        kept = tuple(out)
    return list(kept), found


def _constraint_lines(blocks: Sequence[Block]) -> list[tuple[int, str]]:
    """The lines of a constraints section, each an item nested under an item that introduces it
    ("- Atlas A2 训练系列产品：" / "- 当x为INT8时：") prefixed with that item: what the line states
    holds only there (aclnnDequantSwigluQuantV2's "x的最后一维必须能被64整除" is the A2/A3 chips')."""
    lines: list[tuple[int, str]] = []
    context: list[tuple[int, str]] = []  # (level, text) of the open items ending with a colon
    for block in blocks:
        if block.kind == HEADING:
            context = []
        if block.kind not in (TEXT, ITEM):
            continue
        if block.kind == ITEM:
            context = [(level, text) for level, text in context if level < block.level]
        prefix = "".join(text + " " for _, text in context)
        lines.extend((block.line + i, prefix + t) for i, t in enumerate(block.text.split("\n")))
        if block.kind == ITEM and re.search(r"[：:]\s*$", block.text):
            context.append((block.level, block.text.strip()))
    return lines


_SAME_AS = lazy_pattern(r"一致|相同|同|same|identical|consistent|follows?", re.I)


def resolve_references(params: list[Param], entries: Sequence[Optional[ParamEntry]],
                       diags: list[Diagnostic]) -> list[Param]:
    """Dtypes and ranks stated by reference: a 数据类型 cell "与“varRef”参数一致" / "同self",
    or prose "数据类型必须和gradOut一致" with no list of its own, take the other parameter's."""
    by_name = {p.name: i for i, p in enumerate(params)}
    names = list(by_name)
    for _ in range(3):  # references may chain (c like b, b like a)
        changed = False
        for i, (param, entry) in enumerate(zip(params, entries)):
            if entry is None:
                continue
            updates: dict = {}
            if not param.dtypes and param.kind in vocab.DTYPED_KINDS:
                source, stated = _dtype_source(param, entry, names)
                if source is not None and params[by_name[source]].dtypes:
                    other = params[by_name[source]]
                    updates.update(dtypes=other.dtypes, dtypes_by_product=other.dtypes_by_product)
                    if stated:
                        diags.append(Diagnostic(Level.INFO, entry.line, "dtypes-by-reference",
                                                f"{param.name}: dtypes are {source}'s, as the page states"))
                    else:
                        diags.append(Diagnostic(
                            Level.INFO, entry.line, "dtypes-by-relation",
                            f"{param.name}: no list of its own; the page relates its dtype to {source}'s "
                            f"(castable or promotable), so {source}'s dtypes are recorded as the ones surely accepted"))
            if param.rank is None and entry.rank and param.kind in (ParamKind.TENSOR, ParamKind.TENSOR_LIST):
                source = _reference(entry.rank, param.name, names)
                if source is not None and params[by_name[source]].rank is not None:
                    updates.update(rank=params[by_name[source]].rank)
            if updates:
                params[i] = dataclasses.replace(param, **updates)
                changed = True
        if not changed:
            break
    return params


_CASTABLE_TO_PARAM = lazy_pattern(r"(?:可转换(?:成|为)|可以转换(?:成|为)|convertible\s+to|converted\s+to)\s*(?:the\s+data\s+type\s+"
                                r"(?:of|deduced\s+from)\s+)?`?(\w+)`?\s*(?:的|与|和|'s|\s)", re.I)


def _dtype_source(param: Param, entry: ParamEntry, names: Sequence[str]) -> tuple[Optional[str], bool]:
    """The parameter whose dtypes this one takes: (name, whether the page states equality)."""
    if entry.dtypes:
        source = _reference(entry.dtypes, param.name, names)
        if source is not None:
            return source, True
    same = param.related(RelationKind.SAME_DTYPE)
    if same:
        return same[0], True
    # Weaker statements: "castable to self's dtype", "promotable with self": the other's own
    # dtypes always qualify (a dtype casts to and promotes with itself).
    castable = _CASTABLE_TO_PARAM.search(entry.prose)
    if castable and castable.group(1) in names and castable.group(1) != param.name:
        return castable.group(1), False
    for kind in (RelationKind.CAST_FROM, RelationKind.PROMOTE):
        related = param.related(kind)
        if related:
            return related[0], False
    return None, False


def _reference(cell: str, own: str, names: Sequence[str]) -> Optional[str]:
    if not _SAME_AS.search(cell) or prose.dtype_cell(cell)[0].dtypes:
        return None
    named = [n for n in prose.names_in(cell, names) if n != own]
    return named[0] if named else None


_SECOND_PHASE = frozenset({"workspace", "workspaceSize", "executor", "stream"})


def _pair_leftovers(cparams: Sequence[CParam], matched: list[Optional[ParamEntry]],
                    entries: dict[str, ParamEntry], diags: list[Diagnostic]) -> None:
    """Prototype parameters and table rows left over, of the same type: the page names a parameter
    differently in the two places (a typo, or a renamed parameter); they are paired. One of each is
    one pair; with more, each parameter is paired with the one row whose name is like its own and
    like no other's (aclnnNsaSelectedAttentionInfer: `actualKvSeqLenOptional` and `layoutOptional`
    in the prototype, rows `actualSelKvSeqLenOptional` and `inputLayoutOptional`)."""
    missing = [i for i, e in enumerate(matched) if e is None]
    used = {id(e) for e in matched if e is not None}
    spare = [e for e in entries.values() if id(e) not in used and e.name not in _SECOND_PHASE]
    if not missing or not spare:
        return
    if len(missing) == 1 and len(spare) == 1:
        pairs = [(missing[0], spare[0])]
    else:
        alike = {i: [e for e in spare if _alike(cparams[i].name, e.name)] for i in missing}
        pairs = [(i, found[0]) for i, found in alike.items() if len(found) == 1 and
                 sum(any(e is found[0] for e in others) for others in alike.values()) == 1]
    for i, entry in pairs:
        cparam = cparams[i]
        if entry.c_type and vocab.kind_of(normalise_type(entry.c_type)) not in (None, vocab.kind_of(cparam.c_type)):
            continue
        matched[i] = entry
        diags.append(Diagnostic(Level.WARNING, entry.line, "param-name-mismatch",
                                f"the page documents {entry.name!r} where the prototype declares {cparam.name!r}; "
                                f"they are read as the same parameter"))


# A constraints line that is about one parameter: "`approximate` 当前仅支持取值为1", "innerPrecise: 当前0、1为
# 保留配置值，2为..." (the name first, then a colon or a statement, not a list of names).
_ABOUT_ONE = lazy_pattern(r"^\s*(?:\*\*)?`?([A-Za-z_]\w*)`?(?:\*\*)?\s*(?:[：:]\s*|\s+(?![、,，/和与及或]|and\b|or\b))(\S.*)$",
                        re.S)


def _constraint_entries(cparams: Sequence[CParam], matched: list[Optional[ParamEntry]],
                        constraints: Optional[Section], diags: list[Diagnostic]) -> None:
    """A parameter no table row or bullet documents, documented by a top-level line of the
    constraints section about it alone (aclnnFusedMatmulGelu's `approximate`, whose table omits it:
    "`approximate` 当前仅支持取值为1（tanh近似模式）"): the line starts with its name, and its first
    clause names no other parameter."""
    missing = {cparams[i].name: i for i, e in enumerate(matched) if e is None}
    if not missing or constraints is None:
        return
    for block in constraints.blocks:
        if block.kind not in (ITEM, TEXT) or block.level > 1:
            continue
        match = _ABOUT_ONE.match(block.text)
        if match is None or match.group(1) not in missing:
            continue
        name = match.group(1)
        if prose.names_in(re.split(r"[，,。；;]", match.group(2))[0], [c.name for c in cparams if c.name != name]):
            continue  # "`out` shape 必须等于 `self` shape": about the two
        matched[missing.pop(name)] = ParamEntry(name=name, line=block.line, description=match.group(2).strip())
        diags.append(Diagnostic(Level.INFO, block.line, "param-documented-in-constraints",
                                f"{name}: no table row documents it; a line of the constraints is about it alone"))


def _alike(declared: str, documented: str) -> bool:
    """Whether two names differ by a word or a few letters (layoutOptional, inputLayoutOptional)."""
    a, b = _stem(declared).lower(), _stem(documented).lower()
    if len(a) < 4 or len(b) < 4:
        return False
    return a in b or b in a or difflib.SequenceMatcher(None, a, b).ratio() >= 0.8


def _stem(name: str) -> str:
    """A name without the suffixes pages add or drop between prototype and table (selfRef/self,
    biasOptional/bias, yOut/y)."""
    return re.sub(r"(?<=[a-z0-9])(?:Optional|Ref|Out)+$", "", name)


def _diagnose_coverage(api: str, param: Param, entry: Optional[ParamEntry], diags: list[Diagnostic],
                       line: int, errors: Sequence[ErrorCase] = ()) -> None:
    """The two gaps that make a parameter unusable for generation; messages start with
    "<api>.<param>:" so that coverage figures can be computed from diagnostics alone. A parameter
    only the error table names (aclnnFlashAttentionScore's paddingMaskOptional and softmaxOutOut,
    in "...的数据类型不在支持的范围内" and nowhere else) is said to be so: the page's gap, not the parser's."""
    if entry is None:
        named = next((e.line for e in errors if param.name in e.params), None)
        where = f"; only the error table names it (line {named}), with no dtype" if named else ""
        diags.append(Diagnostic(Level.WARNING, line, PARAM_UNDOCUMENTED,
                                f"{api}.{param.name}: the prototype declares it but no table row or bullet "
                                f"documents it{where}"))
    elif param.kind in vocab.DTYPED_KINDS and not param.dtypes and not _reserved(entry):
        diags.append(Diagnostic(Level.WARNING, entry.line, PARAM_NO_DTYPES,
                                f"{api}.{param.name}: its row states no data type"))


def _errors(doc: Document, sections: Sequence[Section], section: Optional[Section], scope: Sequence[Block],
            names: Sequence[str], pairs: Sequence[Pairing], diags: list[Diagnostic]) -> list[ErrorCase]:
    errors, seen = errors_in_blocks(scope, names)
    if seen:
        return errors
    # Some pages keep one 返回值 section for all their APIs, outside the API sections.
    for candidate in sections:
        if RETURN_SECTION.search(candidate.title) and (section is None or candidate.line not in range(
                section.line, section.end_line + 1)):
            errors, seen = errors_in_blocks(candidate.blocks, names)
            if seen:
                return errors
    if len(pairs) == 1 and section is not None:
        errors, seen = errors_in_blocks(_fallback_scope(doc, sections, pairs[0], pairs), names)
        if seen:
            return errors
    return []


def _formula(function: Optional[Section]) -> str:
    """The formula of the function section: from the first formula mark (计算公式：) through the
    parts of the section after it that show a display formula or another mark, up to the example;
    without a mark, the section's display formulas ($$ ... $$).

    A part is a heading or a list item with what it holds. Pages list their formulas as parts
    ("- 计算公式：", "- 计算公式（BOOL类型情况）：", or "- 计算公式：" over "- 先计算gelu..." and
    "- quant_mode = static"), and end them with parts of other things: an example, notes on the
    implementation or the frameworks, which are the description's, not the formula's."""
    if function is None:
        return ""
    blocks = function.blocks
    for start, opening in enumerate(blocks):
        mark = _FORMULA_MARK.search(opening.text) if opening.kind in (HEADING, ITEM, TEXT) else None
        if mark is None:
            continue
        parts = _parts(blocks[start:], opening)
        kept = list(itertools.takewhile(lambda part: not EXAMPLE_LABEL.match(part[0].text), parts[1:]))
        while kept and not any(_shows_display_formula(b) or _FORMULA_MARK.search(b.text) for b in kept[-1]):
            kept.pop()
        first, *rest = (b for part in [parts[0]] + kept for b in part)
        return "\n".join([first.text[mark.end():].lstrip("*：: \n")] + [_block_text(b) for b in rest]).strip()
    text = "\n".join(_block_text(b) for b in blocks)
    return "\n".join(b.strip() for b in re.findall(r"\$\$.*?\$\$", text, re.S))


# A part that begins an example ("- 示例：", "- Example:", "- 举例：").
EXAMPLE_LABEL = lazy_pattern(r"\s*(?:\*\*)?\s*(?:调用示例|示例|举例|样例|Examples?\b|Samples?\b)", re.I)


def _parts(blocks: Sequence[Block], opening: Block) -> list[list[Block]]:
    """`blocks` cut where a heading or a list item as high as the opening block's begins."""
    depth = opening.level if opening.kind == ITEM else max(opening.level, 1) if opening.kind == TEXT else 1
    parts: list[list[Block]] = []
    for block in blocks:
        if not parts or block.kind == HEADING or (block.kind == ITEM and block.level <= depth):
            parts.append([])
        parts[-1].append(block)
    return parts


def _shows_display_formula(block: Block) -> bool:
    return "$$" in block.text or (block.kind == CODE and block.lang.strip().lower() in ("math", "latex", "tex"))


def _section_text(section: Section) -> str:
    return "\n".join(_block_text(b) for b in section.blocks
                     if b.kind in (HEADING, ITEM, TEXT, CODE) or b.table is not None).strip()


def _block_text(block: Block) -> str:
    if block.kind == ITEM:
        return "  " * max(block.level - 1, 0) + "- " + block.text
    if block.kind == CODE:
        return block.text.rstrip("\n")
    if block.kind == TABLE and block.table is not None:
        table = block.table
        return "\n".join([" | ".join(table.header)]
                         + [" | ".join(c.replace("\n", " ") for c in row.texts) for row in table.rows])
    return block.text


def _example(sections: Sequence[Section], workspace_fn: str, api: str) -> tuple[str, int]:
    example = _first(sections, EXAMPLE_SECTION)
    if example is None:
        return "", 0
    code = [b for b in example.code()]
    if not code:
        return "", 0
    for block in code:
        if find_call(block.text, workspace_fn) >= 0:
            return block.text, block.line + 1
    for block in code:
        if "main(" in block.text or "#include" in block.text:
            return block.text, block.line + 1
    return code[0].text, code[0].line + 1


def _with_example_call(api: API, diags: list[Diagnostic]) -> API:
    from gen.parse.extractors.example_call import extract_example_call

    try:
        call = extract_example_call(api.example, api, api.example_line)
    except Exception as exc:  # noqa: BLE001 - the example is page content
        diags.append(Diagnostic(Level.WARNING, api.example_line, "example-call-unreadable",
                                f"{api.name}: the example's call could not be traced ({type(exc).__name__})"))
        return api
    return dataclasses.replace(api, example_call=call) if call is not None else api
