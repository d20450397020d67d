"""An API page's `Document` into the IR: products, prototypes paired into APIs, and for each API
the steps in their order: parameters (typed from its GetWorkspaceSize table or bullets), dtypes
the rows leave out, errors, roles, cross-parameter rules, formula, constraints and example. The
steps live in the modules beside this one (sections, declarations, param_entries, param_dtypes,
param_roles, product_tables, formula, example); this module holds their order.

Each step runs guarded (gen.parse.guarded): a step that fails on some page content becomes an
error diagnostic at the section's line and the page keeps everything the other steps recovered.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Sequence

from gen import conventions
from gen.ir import API, DTypeCombination, Diagnostic, ErrorCase, Level, Page, PageKind, Param, Product, RelationKind, ShapeForm
from gen.parse.declarations import caller_params, diagnose_no_api, page_declarations
from gen.parse.example import example_block, example_header, example_shapes, with_example_call
from gen.parse.extractors import prose
from gen.parse.extractors.combinations import combinations_in
from gen.parse.extractors.comparisons import ranges_the_example_keeps
from gen.parse.extractors.entries import ParamEntry
from gen.parse.extractors.errors import errors_in_blocks
from gen.parse.extractors.params import ParamContext, build_param
from gen.parse.extractors.products import find_products
from gen.parse.extractors.prototypes import Declaration, Pairing, pair_declarations
from gen.parse.extractors.relations import (shape_relations_the_example_keeps, speaks_of_broadcasting,
                                             with_constraint_relations, with_error_table_relations,
                                             without_product_shapes)
from gen.parse.extractors.rules import Rules, UNREAD, counts_from_zero, limits_the_example_keeps, read_rules, texts_of
from gen.parse.formula import formula_of, section_text
from gen.parse.guarded import guarded
from gen.parse.param_dtypes import (dtype_relations_the_combinations_keep, dtypes_from_combinations, dtypes_from_errors,
                                    dtypes_from_page_statement, dtypes_decided_by_combinations, resolve_references,
                                    scalar_dtypes_from_tensors)
from gen.parse.param_entries import (constraint_entries, constraint_notes, diagnose_coverage, documented_entries, match_entry,
                                     pair_leftovers)
from gen.parse.param_ranks import ranks_from_errors
from gen.parse.param_roles import (in_place_target, optional_where_errors_refuse_only_all_null, present_under_bool_values,
                                   optional_where_errors_say_non_null, read_before_outputs, with_reserved)
from gen.parse.product_tables import per_product_tables, product_table_notes
from gen.parse.readers.document import Block, Document, Section, block_text
from gen.parse.sections import (CONSTRAINT_SECTION, FUNCTION_SECTION, RETURN_SECTION, api_section, combination_sections,
                                constraint_lines, fallback_scope, first_section)


def build_api_page(doc: Document, source: str, diags: list[Diagnostic]) -> Page:
    sections = doc.sections()
    title = doc.title
    products: tuple[Product, ...] = guarded(diags, 1, "the product list", lambda: find_products(sections, diags), ())
    function = first_section(sections, FUNCTION_SECTION)
    description = block_text(function.blocks) if function else ""

    declarations: list[Declaration] = guarded(diags, 1, "the prototypes", lambda: page_declarations(doc, sections), [])
    pairs, leftover = pair_declarations(declarations)
    for decl in declarations:
        if decl.problems:
            diags.append(Diagnostic(Level.WARNING, decl.line, "prototype-unreadable-param",
                                    f"{decl.name}: could not read parameter(s) {', '.join(map(repr, decl.problems))}"))
    if not pairs:
        diagnose_no_api(doc, declarations, diags)

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
        diags.extend(per_product_tables(doc))
    return Page(source=source, kind=PageKind.API_PAGE, title=title, description=description,
                products=products, apis=tuple(apis), diagnostics=())


def _build_api(doc: Document, sections: Sequence[Section], pair: Pairing, pairs: Sequence[Pairing],
               function: Optional[Section], diags: list[Diagnostic]) -> API:
    workspace_fn = pair.workspace.name
    cparams = caller_params(pair.workspace, diags)
    names = [p.name for p in cparams]

    section = api_section(sections, workspace_fn)
    scope: Sequence[Block]
    if section is not None:
        scope = section.blocks
    else:
        scope = fallback_scope(doc, sections, pair, pairs)
    nothing: tuple[dict[str, ParamEntry], list[prose.DTypeNote]] = ({}, [])
    entries, notes = guarded(diags, section.line if section else 1, f"the parameters of {pair.api}",
                             lambda: documented_entries(scope, names, diags), nothing)
    if section is not None and not any(n in entries for n in names):
        # A GetWorkspaceSize section without the table (it sits under 参数说明 elsewhere).
        more, more_notes = documented_entries(fallback_scope(doc, sections, pair, pairs), names, diags)
        entries, notes = more, more_notes

    constraints_section = first_section(sections, CONSTRAINT_SECTION)
    ctx = ParamContext(api_params=names, section_notes=[*notes, *product_table_notes(doc, names)],
                       constraint_notes=constraint_notes(constraints_section, names))
    params: list[Param] = []
    matched: list[Optional[ParamEntry]] = [match_entry(c.name, entries, diags) for c in cparams]
    pair_leftovers(cparams, matched, entries, diags)
    constraint_entries(cparams, matched, first_section(sections, CONSTRAINT_SECTION), diags)
    for cparam, entry in zip(cparams, matched):
        params.append(build_param(cparam, entry, ctx, diags, pair.workspace.line))
    params = resolve_references(params, matched, diags)
    params = in_place_target(pair.api, params, diags)
    params = read_before_outputs(params, diags)
    combinations: tuple[DTypeCombination, ...] = ()
    for holder in combination_sections(sections, constraints_section):
        combinations += guarded(diags, holder.line, f"the dtype combinations of {pair.api}",
                                lambda: combinations_in(pair.api, holder.blocks, params, diags),
                                tuple[DTypeCombination, ...]())
    params = [dtypes_decided_by_combinations(dtypes_from_combinations(param, combinations), combinations)
              for param in params]
    params = dtypes_from_page_statement(pair.api, params, matched, constraints_section, diags)
    error_diags: list[Diagnostic] = []  # after the coverage diagnostics, as they were read after them
    errors: list[ErrorCase] = guarded(error_diags, section.line if section else 1, f"the errors of {pair.api}",
                                      lambda: _errors(doc, sections, section, scope, names, pairs, error_diags), [])
    params = dtypes_from_errors(pair.api, params, matched, errors, diags)
    params = ranks_from_errors(params, errors)
    params = scalar_dtypes_from_tensors(pair.api, params, matched, diags)
    for param, entry in zip(params, matched):
        diagnose_coverage(pair.api, param, entry, diags, pair.workspace.line, errors)
    diags.extend(error_diags)
    for error in errors:
        for word, meant in prose.near_names(error.condition, names):
            diags.append(Diagnostic(Level.WARNING, error.line, "near-name",
                                    f"{pair.api}: the error row's {word!r} is read as the parameter {meant} "
                                    f"(the page's name differs by a plural or a suffix)"))
    params = list(with_error_table_relations(params, errors))
    constraint_texts = [text for _, text in constraint_lines(constraints_section.blocks if constraints_section else ())]
    params = list(with_constraint_relations(params, constraint_texts))
    params = dtype_relations_the_combinations_keep(pair.api, params, combinations, diags)
    params = [with_reserved(param, entry, constraint_texts) for param, entry in zip(params, matched)]
    params = optional_where_errors_say_non_null(params, errors)
    params = optional_where_errors_refuse_only_all_null(params, errors)
    params, presence = present_under_bool_values(params, errors)
    params = conventions.class_predicate_inputs(pair.api, params)
    conventions.integer_inputs_cast(pair.api, params, pair.workspace.line, diags)

    formula = formula_of(function)
    constraints = section_text(constraints_section) if constraints_section else ""
    rules = guarded(diags, pair.workspace.line, f"the cross-parameter rules of {pair.api}",
                    lambda: _rules(doc, pair.api, params, matched, errors, formula, constraints_section, diags), None)
    if rules is not None:
        params = rules[0]
    example, example_line = example_block(sections, workspace_fn, pair.api)
    header = example_header(example, pair.api)
    found = rules[1] if rules is not None else read_rules(pair.api, (), (), False)
    api = API(name=pair.api, workspace_fn=workspace_fn, params=tuple(params), errors=tuple(errors),
              formula=formula, constraints=constraints, example=example,
              header=header, line=pair.workspace.line,
              example_line=example_line, dtype_combinations=combinations, value_ranges=tuple(found.value_ranges),
              value_sets=tuple(found.value_sets), array_lengths=tuple(found.array_lengths),
              dim_equalities=tuple(found.dim_equalities), divisibility=tuple(found.divisibility),
              shape_rules=(*found.shape_rules, *presence), dim_bytes=tuple(found.dim_bytes), array_products=tuple(found.array_products),
              padded_shapes=tuple(found.padded_shapes), reduced_shapes=tuple(found.reduced_shapes),
              speaks_of_broadcasting=speaks_of_broadcasting(params, formula))
    api = dataclasses.replace(api, inner_null_outputs=conventions.inner_null_outputs(api),
                              error_rows_name_formats=conventions.error_rows_name_formats(api),
                              zero_d_addends=conventions.zero_d_addends(api))
    if example:
        api = limits_the_example_keeps(ranges_the_example_keeps(with_example_call(api, diags), diags), diags)
        api = shape_relations_the_example_keeps(api, example_shapes(api), diags)
    return api


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
        errors, seen = errors_in_blocks(fallback_scope(doc, sections, pairs[0], pairs), names)
        if seen:
            return errors
    return []


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
    lines = constraint_lines(constraints.blocks if constraints else ())
    page_text = "\n".join(b.text for b in doc.blocks)
    found = read_rules(api, kept, texts_of(kept, rows, errors, lines), counts_from_zero(page_text), formula)
    diags.extend(found.diagnostics)
    # A shape a host argument or a dtype decides replaces the plain relations of its tensor; ranks do not.
    ruled = {r.param for r in found.shape_rules if r.form is not ShapeForm.RANK}
    if ruled:
        shape_kinds = (RelationKind.SAME_SHAPE, RelationKind.BROADCAST)
        out = []
        for param in kept:
            relations = tuple(r for r in param.relations if r.kind not in shape_kinds or
                              (param.name not in ruled and not ruled & set(r.others)))
            out.append(param if relations == param.relations else dataclasses.replace(param, relations=relations))
        kept = tuple(out)
    return list(kept), found
