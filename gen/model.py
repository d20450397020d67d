"""What the emitters work from: the APIs chosen for generation, with their page and semantics.

The IR says what each page states; this module decides what gets generated from a set of pages
(which page wins when two document the same API, which APIs cannot be bound and why) and
offers the derived views that several emitters share. Emitters read a `Model`; they never parse.
"""

from __future__ import annotations

import functools
import os
import re
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Iterable, Mapping, Optional, Sequence

from gen import abi, conventions, families, names
from gen.api import python as api_python
from gen.cache import digest
from gen.ir import (DEFAULT_SOC, API, Diagnostic, Direction, DType, Level, OpSemantics, Page, PageKind, Param, ParamKind, ProductDTypes,
                    Relation, RelationKind, ValueRange, ValueSet)

if TYPE_CHECKING:
    from gen.api.python import OutputPlan, PythonSignature


@dataclass(frozen=True)
class BoundAPI:
    api: API
    page: Page
    semantics: Optional[OpSemantics] = None
    # A digest of everything the API's generated code is made from (its page's bytes, the READMEs
    # merged into it, its semantics file); "" when unknown (a model built without the pipeline's
    # cache), which makes every emitter render it.
    fingerprint: str = field(default="", compare=False)
    # The page as the docs directory names it (relative to the directory the run was given), for
    # what the generated code tells its users; "" when the model was built without one.
    doc_name: str = ""

    @property
    def name(self) -> str:
        return self.api.name

    @property
    def page_name(self) -> str:
        """The page relative to its docs directory (its source, when that is not known)."""
        return self.doc_name or self.page.source

    @property
    def python_name(self) -> str:
        return names.python_function(self.api.name)

    @property
    def header(self) -> str:
        return self.api.header or names.header_file(self.api.name)

    @property
    def simulated(self) -> bool:
        """Whether the simulator has a kernel for it (otherwise phase 2 says "not simulated")."""
        return bool(self.semantics and self.semantics.computes)

    @functools.cached_property
    def family_binding(self) -> tuple[Mapping[str, str], str]:
        """The page's parameter playing each role of the semantics' family, or no roles and why
        they cannot be bound (gen.families.bind_roles); none and "" without a family. Bound once:
        the simulator's spec, the output plans and the test planner read these."""
        if self.semantics is None or not self.semantics.family:
            return MappingProxyType({}), ""
        roles, why = families.bind_roles(self.semantics, [p.name for p in self.api.params])
        return MappingProxyType(roles), why

    @property
    def family_roles(self) -> Mapping[str, str]:
        return self.family_binding[0]

    # What the API layer (gen/api/python.py) decides from this object, decided once for every
    # emitter that reads it.
    @functools.cached_property
    def python_signature(self) -> PythonSignature:
        """The Python function's signature, for the bindings, the stubs, the docstrings and the tests."""
        return api_python.signature_of(self)

    @functools.cached_property
    def output_plans(self) -> tuple[OutputPlan, ...]:
        """How each output is allocated when out= does not give it (shaped by the family's rules
        from the roles bound above), for the bindings and the test planner."""
        return api_python.plan_outputs(self)


@dataclass(frozen=True)
class Skipped:
    what: str  # an API or page name
    source: str
    reason: str


@dataclass(frozen=True)
class Model:
    pages: tuple[Page, ...]
    apis: tuple[BoundAPI, ...]  # sorted by API name
    skipped: tuple[Skipped, ...] = ()
    # Diagnostics about the set of pages (duplicates, semantics without a page), by source.
    notes: tuple[tuple[str, Diagnostic], ...] = ()
    # The fingerprint of each page and semantics file, by source (see BoundAPI.fingerprint).
    fingerprints: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    def fingerprint(self, source: str) -> str:
        return self.fingerprints.get(source, "")

    @functools.cached_property
    def apis_fingerprint(self) -> str:
        """The key of the files made of every API's whole text (the stub, _apis.json): the APIs'
        fingerprints in order; "" (unknown) without a cache."""
        return digest(*(b.fingerprint for b in self.apis)) if self.apis else ""

    def api(self, name: str) -> BoundAPI:
        for bound in self.apis:
            if bound.name == name:
                return bound
        raise KeyError(name)

    def examples(self) -> dict[str, BoundAPI]:
        """The pages' examples to write (generated/examples/) and build, by name: one per distinct
        example text (a page that documents aclnnAdd and aclnnInplaceAdd shows one program for
        both), named after its first API's Python function. An example that includes no aclnnop/
        header is a sketch (aclnnLogSoftmaxV2's declares the API itself, "函数签名仅为示意", and
        uses aclTensor undeclared): no machine compiles it, so it is not built; nor is one that
        holds a merge's conflict markers (aclnnRotaryPositionEmbedding's: `<<<<<<< HEAD` in Init), nor
        one that includes an aclnnop/ header of no page of this build (aclnnMatmulWeightNz's
        aclnn_trans_matmul_weight.h: it calls aclnnTransMatmulWeight, which no page here declares)."""
        return dict(self._examples)

    @functools.cached_property
    def _examples(self) -> dict[str, BoundAPI]:
        """examples(), worked out once per model (two emitters ask)."""
        chosen: dict[str, BoundAPI] = {}
        seen: set[str] = set()
        declared = {bound.header for bound in self.apis}
        for bound in self.apis:
            code = bound.api.example
            if (code.strip() and code not in seen and _OP_HEADER.search(code) and not _has_conflict_markers(code)
                    and set(_OP_HEADER_NAME.findall(code)) <= declared):
                seen.add(code)
                name = bound.python_name
                # CMake's Ninja generator names a phony target after each executable's file: an
                # example called `all` (aclnnAll) would be a second rule for Ninja's own `all`.
                chosen[name + "_example" if name in _BUILD_TARGETS else name] = bound
        return chosen

    def headers(self) -> dict[str, tuple[BoundAPI, ...]]:
        """Every aclnnop/ header and the APIs it declares, in API order."""
        groups: dict[str, list[BoundAPI]] = {}
        for bound in self.apis:
            groups.setdefault(bound.header, []).append(bound)
        return {header: tuple(apis) for header, apis in sorted(groups.items())}


# An example's include of an operator's header ("aclnnop/aclnn_add.h"), and the header it names.
_OP_HEADER = re.compile(r'#\s*include\s*[<"]aclnnop/')
_OP_HEADER_NAME = re.compile(r'#\s*include\s*[<"](aclnnop/[^>"]+)[>"]')
# A line git leaves where a merge conflicted ("<<<<<<< HEAD", ">>>>>>> b09f372 (...)").
_CONFLICT = re.compile(r"^(<{7}|>{7})( |$)", re.MULTILINE)

def _has_conflict_markers(code: str) -> bool:
    # The substrings first: the line-anchored expression alone scanned every example at every run
    # (4 MB for op_docs/, a fortieth of a run after one page changed).
    return ("<<<<<<<" in code or ">>>>>>>" in code) and _CONFLICT.search(code) is not None


# Targets the build system defines itself (CMake, Ninja), which no example may be named.
_BUILD_TARGETS = frozenset({"all", "clean", "help", "install", "test", "package", "edit_cache", "rebuild_cache",
                            "list_install_components", "install/local", "install/strip"})


def unbindable_reason(api: API) -> Optional[str]:
    """Why bindings cannot be generated for an API, or None when they can."""
    if not api.params:
        return "no parameters were recovered from the page"
    unknown = [p for p in api.params if p.kind is None]
    if unknown:
        return "unknown C type of " + ", ".join(f"{p.name} ({p.c_type})" for p in unknown)
    return None


def is_experimental(source: str) -> bool:
    """Whether a page is a contributed sample (a directory `experimental/` on its path): CANN
    ships the operators of the other pages; a sample may declare another signature under the
    same name (ops-nn/experimental/index/median/docs/aclnnMedian.md, 5 parameters, against
    the shipped ops-nn/index/gather_v2/docs/aclnnMedian.md's 2). Split as a string: a Path per page
    was a tenth of the model's build after one page changed (the empty and "." parts a Path drops
    are never "experimental")."""
    return "experimental" in source.replace(os.sep, "/").split("/")


def _completeness(page: Page, api: API) -> tuple:
    """Orders two pages that document the same API: a shipped page over a contributed sample
    (experimental/), then the one that says more."""
    typed = sum(1 for p in api.params if p.dtypes or p.kind not in (ParamKind.TENSOR, ParamKind.TENSOR_LIST))
    warnings = sum(1 for d in page.diagnostics if d.level is not Level.INFO)
    return (not is_experimental(page.source), typed, len(api.errors), bool(api.example), -warnings, page.source)


def signature(api: API) -> tuple[tuple[str, str], ...]:
    """What a caller of the C ABI depends on: the parameters' names and C types, in order."""
    return tuple((p.name, p.c_type) for p in api.params)


def _duplicate_note(name: str, page: Page, api: API, other: Page, other_api: API,
                    roots: Sequence[str | Path]) -> Diagnostic:
    """What the page not bound for `name` is told. Two signatures under one name are a clash,
    reported as a warning whichever page wins; the same signature twice is a note."""
    winner = doc_name(page.source, roots)
    why = ("it is a contributed sample (experimental/) and that page is shipped"
           if is_experimental(other.source) and not is_experimental(page.source) else "that page says more")
    if signature(api) != signature(other_api):
        ours = ", ".join(f"{t} {n}" for n, t in signature(other_api))
        theirs = ", ".join(f"{t} {n}" for n, t in signature(api))
        return Diagnostic(Level.WARNING, other_api.line, "api-clash",
                          f"{name} is declared here as ({ours}) and by {winner} as ({theirs}); {winner} is bound "
                          f"because {why}")
    return Diagnostic(Level.INFO, other_api.line, "duplicate-api",
                      f"{name} is also documented by {winner}; that page is used because {why}")


def example_evidence(api: API) -> tuple[API, tuple[Diagnostic, ...]]:
    """The API with what its page's example passes admitted where its table does not list it: a
    tensor's dtype (on the default chip) and its rank, and shapes its SAME_SHAPE relations differ on. An example is a program the
    page's authors ran; a table that refuses its call is the page contradicting itself, and the
    simulator is never stricter than the page (aclnnLog10's out table omits the DOUBLE its example
    passes, aclnnSilentCheck's shape column "3" is its example's [3]). A semantics file's
    table_over_example keeps the table where CANN is known to refuse the example's call."""
    if api.example_call is None:
        return api, ()
    notes: list[Diagnostic] = []
    params: list[Param] = []
    line = api.example_call.line
    nulls = api.example_call.null_params
    for param in api.params:
        if param.name in nulls and param.kind in (ParamKind.TENSOR, ParamKind.STRING) and \
                param.direction is Direction.IN and not param.optional:
            # aclnnBatchNormElemt's weight and bias: the page's table names no optional tensor
            # (its 161001 row: any null pointer), its example passes nullptr, as op-plugin passes
            # torch's None. A string the same (aclnnRmsNormDynamicMxQuant's roundMode, which its
            # null-pointer row leaves out): the simulator reads a null char* as "" (CallString), the
            # families as their default mode.
            notes.append(Diagnostic(Level.WARNING, line, "example-widens-table",
                                    f"{api.name}.{param.name}: the page's example passes nullptr: the simulator "
                                    f"admits it absent"))
            params.append(replace(param, optional=True))
            continue
        arg = api.example_call.arg(param.name)
        if arg is None or param.kind is not ParamKind.TENSOR:
            params.append(param)
            continue
        changes: dict = {}
        dtype = arg.dtype
        # The example runs on the chip a page is written for, the simulator's default: only what
        # that chip's list lacks is admitted (other chips' lists say what differs on them).
        if dtype is not None and param.dtypes and dtype not in param.dtypes_for(DEFAULT_SOC):
            if any(e.soc is DEFAULT_SOC for e in param.dtypes_by_product):
                changes["dtypes_by_product"] = tuple(ProductDTypes(e.soc, e.dtypes + (dtype,)) if e.soc is DEFAULT_SOC
                                                     else e for e in param.dtypes_by_product)
            else:
                changes["dtypes"] = param.dtypes + (dtype,)
            notes.append(Diagnostic(Level.WARNING, line, "example-widens-table",
                                    f"{api.name}.{param.name}: the page's example passes {dtype.value}, which its "
                                    f"table (line {param.line}) does not list for {DEFAULT_SOC.value}: the simulator "
                                    f"admits it"))
        if arg.shape is not None and param.rank is not None and not param.rank[0] <= len(arg.shape) <= param.rank[1]:
            rank = len(arg.shape)
            changes["rank"] = (min(param.rank[0], rank), max(param.rank[1], rank))
            notes.append(Diagnostic(Level.WARNING, line, "example-widens-table",
                                    f"{api.name}.{param.name}: the page's example passes a {rank}-D tensor "
                                    f"{list(arg.shape)}, outside the table's ranks {list(param.rank)} (line "
                                    f"{param.line}): the simulator admits rank {rank}"))
        shape = arg.shape
        relations = []
        for relation in param.relations:
            if relation.kind is RelationKind.SAME_SHAPE and shape is not None:
                broken = [o for o in relation.others if (other := api.example_call.arg(o)) is not None
                          and other.shape is not None and other.shape != shape]
                if broken:
                    notes.append(Diagnostic(Level.WARNING, line, "example-widens-table",
                                            f"{api.name}.{param.name}: the page's example passes shape {list(shape)} "
                                            f"with {', '.join(broken)} of another shape: the simulator does not "
                                            f"hold them to one shape"))
                    kept = tuple(o for o in relation.others if o not in broken)
                    if kept:
                        relations.append(Relation(relation.kind, kept))
                    continue
            relations.append(relation)
        if tuple(relations) != param.relations:
            changes["relations"] = tuple(relations)
        params.append(replace(param, **changes) if changes else param)
    return (replace(api, params=tuple(params)) if notes else api), tuple(notes)


_PARAM_INVALID = abi.status_code("ACLNN_ERR_PARAM_INVALID")


def ranges_the_checks_state(api: API, semantics: Optional[OpSemantics]) -> tuple[API, tuple[Diagnostic, ...]]:
    """`api` without the value ranges and sets of a parameter whose values a check of the semantics file
    refuses with another status than ACLNN_ERR_PARAM_INVALID: the file states what the page's error table
    gives them (aclnnMoeInitRoutingV3's expertTokensNumType, "只支持 1 和 2", is 561002 by its row
    "输入的属性不在支持的范围内"), and a range, checked first as 161002, would answer for it."""
    if semantics is None or not (api.value_ranges or api.value_sets):
        return api, ()
    statuses = {arg.param: check.status for check in semantics.checks
                if check.status != _PARAM_INVALID and len(check.violation) == 1 for arg in check.violation}
    ranges = tuple(r for r in api.value_ranges if r.param not in statuses)
    sets = tuple(r for r in api.value_sets if r.param not in statuses)
    if ranges == api.value_ranges and sets == api.value_sets:
        return api, ()
    valued: tuple[ValueRange | ValueSet, ...] = (*api.value_ranges, *api.value_sets)
    notes = tuple(Diagnostic(Level.INFO, r.line, "range-checked-by-semantics",
                             f"{api.name}: {r.describe()} is checked by the semantics file, with status "
                             f"{statuses[r.param]}, not as a page rule (161002)")
                  for r in valued if r.param in statuses)
    return replace(api, value_ranges=ranges, value_sets=sets), notes


# A check's view of a parameter: its name followed by a member (`learnableSinkOptional.present`).
_CHECKED_PARAM = re.compile(r"\b([A-Za-z_]\w*)\s*\.\s*[A-Za-z_]")


def checks_of_the_page(api: API, semantics: Optional[OpSemantics]) -> tuple[Optional[OpSemantics], tuple[Diagnostic, ...]]:
    """The semantics without the checks that name a parameter `api`'s page does not have. The file is
    keyed by API name, and another page of the API may have more parameters (op_docs/derived/
    aclnnFusedInferAttentionScoreV4.md adds the learnable sink the corpus page lacks and op-plugin
    passes): a check of a parameter the page lacks has nothing to check there, and its C++ would
    name no parameter of the generated entry."""
    if semantics is None or not semantics.checks:
        return semantics, ()
    names = {param.name for param in api.params}
    kept, notes = [], []
    for check in semantics.checks:
        absent = sorted(set(_CHECKED_PARAM.findall(check.when)) - names)
        if absent:
            notes.append(Diagnostic(Level.INFO, api.line, "check-of-an-absent-parameter",
                                    f"{api.name}: the check at {semantics.source}:{check.line} names "
                                    f"{', '.join(absent)}, which this page does not have: it does not apply here"))
        else:
            kept.append(check)
    if not notes:
        return semantics, ()
    return replace(semantics, checks=tuple(kept)), tuple(notes)


def client_evidence(api: API, semantics: Optional[OpSemantics]) -> tuple[API, tuple[Diagnostic, ...]]:
    """The API with the dtypes a framework built against real CANN passes (the semantics file's
    client_dtypes) admitted: added to the parameter's list on every chip, and the parameter freed
    from the "数据类型与x一致" relations that tie it to another tensor's dtype, both ways. CANN runs
    that framework's calls (torch_npu's op-plugin gives aclnnLayerNorm FLOAT statistics for a
    FLOAT16 input), so the simulator is not stricter than it; each widening is a warning on the
    page, naming the evidence. Likewise client_optional (NULL admitted), client_ranks (ranks
    widened), client_broadcast (the "shape与x一致" and "维度与x一致" relations among its tensors made broadcast ones),
    client_empty (outputs admitted empty) and client_tensor_for_list (one aclTensor admitted for a list: checked and noted here, read by
    the simulator's spec rows, gen.emit.sim)."""
    if semantics is None or not semantics.client_widens:
        return api, ()
    line = semantics.line
    notes: list[Diagnostic] = []
    widened = {c.param: c.dtypes for c in semantics.client_dtypes}
    nullable = set(semantics.client_optional)
    ranks = {r.param: tuple(r.value) for r in semantics.client_ranks}
    broadcasting = set(semantics.client_broadcast)
    tensors = {p.name for p in api.params if p.kind is ParamKind.TENSOR}
    lists = {p.name for p in api.params if p.kind is ParamKind.TENSOR_LIST}
    # A host scalar's dtype too: op-plugin makes a Python float an aclScalar of DOUBLE; and a list's
    # members' (npu_grouped_matmul's INT32-packed INT4 weights).
    typed = tensors | lists | {p.name for p in api.params if p.kind is ParamKind.SCALAR}
    # A framework may pass NULL for any pointer (op-plugin's nullptr outputMask, an aclBoolArray).
    pointers = {p.name for p in api.params if p.kind is not None and p.kind.is_pointer}
    single = set(semantics.client_tensor_for_list)
    emptied = set(semantics.client_empty)
    outputs = {p.name for p in api.params if p.kind is ParamKind.TENSOR and p.direction is Direction.OUT}
    allowed = {"client_dtypes": (typed, "tensor, tensor list or scalar"), "client_optional": (pointers, "pointer"),
               "client_ranks": (tensors, "tensor"), "client_broadcast": (tensors, "tensor"),
               "client_tensor_for_list": (lists, "tensor list"), "client_empty": (outputs, "tensor output")}
    for key, named in (("client_dtypes", widened), ("client_optional", nullable), ("client_ranks", ranks),
                       ("client_broadcast", broadcasting), ("client_tensor_for_list", single),
                       ("client_empty", emptied)):
        names, kind = allowed[key]
        for name in sorted(set(named) - names):
            notes.append(Diagnostic(Level.ERROR, line, "client-dtypes", f"{api.name}: {key} names {name}, "
                                                                        f"which is not a {kind} parameter of the page"))
            if isinstance(named, set):
                named.discard(name)
            else:
                del named[name]

    def with_dtypes(dtypes: tuple[DType, ...], extra: tuple[DType, ...]) -> tuple[DType, ...]:
        return dtypes + tuple(d for d in extra if d not in dtypes)

    params: list[Param] = []
    packed_int4: set[str] = set()
    for param in api.params:
        changes: dict = {}
        extra = widened.get(param.name, ())
        if extra:
            if param.dtypes:
                changes["dtypes"] = with_dtypes(param.dtypes, extra)
            if param.dtypes_by_product:
                changes["dtypes_by_product"] = tuple(ProductDTypes(e.soc, with_dtypes(e.dtypes, extra))
                                                     for e in param.dtypes_by_product)
            notes.append(Diagnostic(Level.WARNING, line, "client-widens-table",
                                    f"{api.name}.{param.name}: a framework passes "
                                    f"{', '.join(d.value for d in extra)} ({semantics.client_evidence}): the "
                                    f"simulator admits it, and its dtype is no longer tied to another tensor's"))
        if param.name in nullable and not param.optional:
            changes["optional"] = True
            notes.append(Diagnostic(Level.WARNING, line, "client-widens-table",
                                    f"{api.name}.{param.name}: a framework passes NULL ({semantics.client_evidence}): "
                                    "the simulator admits it absent"))
        if param.name in single:
            notes.append(Diagnostic(Level.WARNING, line, "client-widens-table",
                                    f"{api.name}.{param.name}: a framework passes one aclTensor for the list "
                                    f"({semantics.client_evidence}): the simulator reads it as the list of it"))
        if param.name in emptied and param.empty_tensor is False:
            changes["empty_tensor"] = True
            notes.append(Diagnostic(Level.WARNING, line, "client-widens-table",
                                    f"{api.name}.{param.name}: a framework passes it empty "
                                    f"({semantics.client_evidence}): the simulator admits it empty"))
        if param.name in ranks and param.rank != ranks[param.name]:
            lo, hi = ranks[param.name]
            if param.rank is not None:
                lo, hi = min(lo, param.rank[0]), max(hi, param.rank[1])
            changes["rank"] = (lo, hi)
            notes.append(Diagnostic(Level.WARNING, line, "client-widens-table",
                                    f"{api.name}.{param.name}: a framework passes ranks {lo} to {hi} "
                                    f"({semantics.client_evidence}): the simulator admits them"))
        # INT32 given for an INT4 output is eight INT4 a word along the last dimension (op-plugin's
        # quint4x2 outputs; the sibling pages' "INT32实际为8个INT4拼接"): its shape is no longer the one
        # the "shape与x一致" relation states, and the family sizes it (x's, the last dimension / 8).
        packs_int4 = param.direction is Direction.OUT and DType.INT32 in extra and DType.INT4 in param.dtypes
        if packs_int4:
            packed_int4.add(param.name)
        relations = []
        for relation in param.relations:
            if packs_int4 and relation.kind is RelationKind.SAME_SHAPE:
                notes.append(Diagnostic(Level.WARNING, line, "client-widens-table",
                                        f"{api.name}.{param.name}: a framework passes INT32 words of eight INT4 "
                                        f"({semantics.client_evidence}): its shape is no longer tied to "
                                        f"{', '.join(relation.others)}'s; the family checks it"))
                continue
            freed = tuple(o for o in relation.others if o in broadcasting) if param.name in broadcasting else ()
            # Broadcasting shapes need not share a rank either (torch.polar(abs of (4,), angle of (2, 3, 4))).
            if relation.kind in (RelationKind.SAME_SHAPE, RelationKind.SAME_RANK) and freed:
                kept = tuple(o for o in relation.others if o not in freed)
                relations.extend([Relation(relation.kind, kept)] if kept else [])
                relations.append(Relation(RelationKind.BROADCAST, freed))
                notes.append(Diagnostic(Level.WARNING, line, "client-widens-table",
                                        f"{api.name}.{param.name}: a framework passes shapes that broadcast with "
                                        f"{', '.join(freed)} ({semantics.client_evidence}): the simulator admits "
                                        f"them, as broadcasting"))
                continue
            if relation.kind is RelationKind.SAME_DTYPE:
                kept = () if extra else tuple(o for o in relation.others if o not in widened)
                if kept != relation.others:
                    if kept:
                        relations.append(Relation(relation.kind, kept))
                    continue
            relations.append(relation)
        if tuple(relations) != param.relations:
            changes["relations"] = tuple(relations)
        params.append(replace(param, **changes) if changes else param)
    # The INT32 words stand for INT4 in the dtype-combination rows too: a row's INT4 for such an output
    # admits INT32 beside it.
    combinations = tuple(
        replace(row, cells=tuple(replace(c, dtypes=c.dtypes + (DType.INT32,))
                                 if c.param in packed_int4 and DType.INT4 in c.dtypes and DType.INT32 not in c.dtypes
                                 else c for c in row.cells))
        for row in api.dtype_combinations) if packed_int4 else api.dtype_combinations
    return replace(api, params=tuple(params), dtype_combinations=combinations), tuple(notes)


def doc_name(source: str, roots: Sequence[str | Path]) -> str:
    """`source` relative to the first of `roots` (docs directories) that holds it, else as given
    (as Path.relative_to compares them: by their parts, without touching the file system)."""
    for root in roots:
        prefix = _root_prefix(str(root))
        if source.startswith(prefix) and not (prefix == "" and source.startswith("/")):
            return source[len(prefix):]
    return source


@functools.lru_cache(maxsize=64)
def _root_prefix(root: str) -> str:
    # A string prefix per root: a run names ~800 APIs' pages, and two Path objects and a
    # relative_to per name were a fifth of the model's build after one page changed.
    posix = Path(root).as_posix()
    return "" if posix == "." else posix.rstrip("/") + "/"


def build_model(pages: Iterable[Page], semantics: Iterable[OpSemantics] = (),
                fingerprints: Mapping[str, str] = {}, roots: Sequence[str | Path] = ()) -> Model:
    """The `select` stage. `fingerprints`: of the pages and semantics files, by source, for the
    emitters' memo (gen.cache). `roots`: the docs directories the pages were found in, that the
    generated code names them relative to."""
    pages = tuple(sorted(pages, key=lambda p: p.source))
    by_api: dict[str, list[tuple[Page, API]]] = {}
    for page in pages:
        if page.kind is PageKind.API_PAGE:
            for api in page.apis:
                by_api.setdefault(api.name, []).append((page, api))

    semantics_by_api = {s.api: s for s in semantics}
    bound: list[BoundAPI] = []
    skipped: list[Skipped] = []
    notes: list[tuple[str, Diagnostic]] = []
    python_names: dict[str, str] = {}  # Python function -> the API bound to it
    for name in sorted(by_api):
        candidates = sorted(by_api[name], key=lambda pa: _completeness(*pa), reverse=True)
        page, api = candidates[0]
        for other, other_api in candidates[1:]:
            notes.append((other.source, _duplicate_note(name, page, api, other, other_api, roots)))
        reason = unbindable_reason(api)
        chosen = semantics_by_api.pop(name, None)
        if not (chosen and chosen.table_over_example):
            api, widened = example_evidence(api)
            notes.extend((page.source, note) for note in widened)
        api, widened = client_evidence(api, chosen)
        notes.extend((page.source, note) for note in widened)
        api, superseded = ranges_the_checks_state(api, chosen)
        notes.extend((page.source, note) for note in superseded)
        chosen, inapplicable = checks_of_the_page(api, chosen)
        notes.extend((page.source, note) for note in inapplicable)
        if chosen is not None and chosen.family:
            notes.extend((page.source, note) for note in conventions.nonempty_planes_contradicted(
                api, chosen.family, chosen.role("self") or "self", api.line))
        fingerprint = digest(fingerprints.get(page.source, ""), name,
                             fingerprints.get(chosen.source, "") if chosen else "no semantics")
        candidate = BoundAPI(api=api, page=page, semantics=chosen, fingerprint=fingerprint,
                             doc_name=doc_name(page.source, roots))
        if not reason and candidate.python_name in python_names:
            # aclnnBatchMatMulWeightNz and aclnnBatchMatMulWeightNZ: one Python name, one function.
            reason = f"same Python function as {python_names[candidate.python_name]} (aclnn.{candidate.python_name})"
        if reason:
            skipped.append(Skipped(name, page.source, reason))
            continue
        python_names[candidate.python_name] = name
        bound.append(candidate)

    for orphan in semantics_by_api.values():
        notes.append((orphan.source, Diagnostic(
            Level.WARNING, orphan.line, "semantics-without-page",
            f"{orphan.api} has semantics but no page in the set documents it")))
    return Model(pages=pages, apis=tuple(bound), skipped=tuple(skipped), notes=tuple(notes),
                 fingerprints=dict(fingerprints))


# Wrappers are grouped: this many APIs per unit on average. The figure dates from when every unit
# included pybind11 and paid ~3.6 CPU-seconds for it whatever it held (ops_000 of 48 APIs 6.8 s, two
# such units in one 10.0 s): 96 built op_docs' ~720 APIs in 8 units, ~30 CPU-seconds less than 16.
# The units include runtime/binding/wrapper.h alone now, whose fixed cost is ~1 CPU-second (the
# generated module.cpp compiles in 0.9-1.2), and ops_000 of 91 APIs compiles in 5-7 CPU-seconds;
# smaller units would cost little more in total (not re-measured at another size). 128 since op_docs
# passed 768 APIs: at 96 its 769th doubled the units to 16, every API's unit changed (all of
# generated/bindings and generated/sim rewritten) and each unit paid its fixed second again.
APIS_PER_UNIT = 128


def translation_units(apis: tuple[BoundAPI, ...], per_unit: int = APIS_PER_UNIT) -> tuple[tuple[BoundAPI, ...], ...]:
    """Groups APIs into translation units so that adding or changing one page rewrites one unit.

    An API's unit is a hash of its name modulo a power of two, so the grouping of the others
    changes only when the number of units doubles, not whenever a page is added.
    """
    count = 1
    while count * per_unit < len(apis):
        count *= 2
    units: list[list[BoundAPI]] = [[] for _ in range(count)]
    for bound in apis:
        units[zlib.crc32(bound.name.encode()) % count].append(bound)
    return tuple(tuple(unit) for unit in units)


def unit_path(directory: str, index: int) -> str:
    """The generated source of translation unit `index` in `directory` (sim/, bindings/)."""
    return f"{directory}/ops_{index:03d}.cpp"
