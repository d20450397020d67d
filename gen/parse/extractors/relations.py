"""How a parameter must relate to others, from its usage notes and description.

One sentence states at most one kind of relation, except "数据类型、shape需要与result一致",
which states two (same dtype and same shape). A relation is kept only when the sentence names
other parameters of the same API; relations come in the order the text states them, and their
others in the order the sentence names them.

A relation holds unconditionally or it is not read: a clause under a condition ("当reduction为0时，
out的shape与self一致") states none (gen.parse.extractors.rules reads the conditions it can), nor does a default its sentence then makes an exception to ("数据类型默认和self保持一致，若self
数据类型为BOOL或INT64时，out的数据类型默认为FLOAT32"), and shape wording about part of a shape ("第一维", "除倒数两维", "其他维度", "logits.size(0)"),
its rank ("维度数需要与updates一致") or a product of tensors ("batch1@batch2", "mat和vec的乘积") states
no shape relation.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Collection, Mapping, Sequence

from gen.ir import API, Diagnostic, ErrorCase, ErrorCategory, Level, Param, ParamKind, Relation, RelationKind
from gen.parse.extractors.conditions import classify, given_opening, without_given_tensor, without_presence
from gen.parse.extractors.prose import name_set, names_in
from gen.parse.extractors.vocab import WHEN
from gen.parse.patterns import lazy_pattern

# A full stop after a word, or after the markup closing one ("the same as that of $gamma$. The shape is ...").
_SENTENCE = lazy_pattern(r"[。；;\n]|(?<=[A-Za-z0-9)$`*])\.(?:\s|$)")
# CAST_FROM: the parameter's dtype is one the others' promoted dtype can be cast to ("需要是gradOutput与
# self推导之后可转换的数据类型"). The converse ("需要可转换成self与other推导后的数据类型": castable *to*
# the promoted dtype) is no relation of the IR, and is not read as one.
_CAST = lazy_pattern(r"推导(?:之后|后)(?:的数据类型)?可转换|推导之后可以转换|"
                   r"(?:data\s*type|dtype)[^.;]{0,40}(?:converted|cast)\s+from|"
                   r"to\s+which\s+the\s+(?:deduced|promoted)[^.;]{0,60}can\s+be\s+(?:converted|cast)", re.I)
_CAST_TO = lazy_pattern(r"可转换(?:成|为)|可以转换(?:成|为)|convertible\s+to|converted\s+to|cast\s+to", re.I)
_PROMOTE = lazy_pattern(r"推导规则|互推导|推导关系|类型推导|type\s+promotion|deduction|promot", re.I)
_BROADCAST = lazy_pattern(r"broadcast|广播", re.I)
# "A和self满足broadcast关系之后的维度，最后一根轴dim=self[-1]" (aclnnTriangularSolve's xOut): dimensions taken
# from the broadcast shape, the rest the sentence's next clause states; "shape需要与broadcast后的A、b满足AX=b
# 约束": a shape an equation of the broadcast operands gives; "broadcast后A的上三角（下三角）拷贝" (its mOut):
# part of a broadcast operand. None is a shape that broadcasts.
_DERIVED_FROM_BROADCAST = lazy_pattern(r"(?:broadcast|广播)\s*(?:关系)?\s*(?:之)?后(?:的维度|\s*[A-Za-z]\w*\s*的)|"
                                       r"满足\s*\w+\s*=\s*\w+\s*约束")
# "元素个数为mask和self广播后的shapesize": a count taken from the broadcast shape, not a shape that broadcasts.
_ELEMENT_COUNT = lazy_pattern(r"元素个数|元素数量|shapesize|number\s+of\s+elements", re.I)
_SAME = lazy_pattern(r"一致|相同|\bmust\s+match\b|\bmatch(?:es)?\b|(?:数据类型|dtype|shape)\s*(?:与|和)?同(?!时|样|步)|same\s+as|the\s+same|consistent\s+with|identical|equal\s+to", re.I)
_NEGATED = lazy_pattern(r"不一致|不相同|不同|not\s+the\s+same|inconsistent|different", re.I)
# "数据类型与输入input一致或为FLOAT类型": the same dtype is one alternative, not the rule; so is a shape
# the tensor may have ("shape可以和`gamma`/`beta`或`x1`/`x2`一致": aclnnAddLayerNorm's biasOptional, of either).
_ALTERNATIVE = lazy_pattern(r"(?:一致|相同)\s*(?:或|或者|或是)|\bor\s+(?:is\s+)?(?:FLOAT|float)|可以\s*(?:和|与|跟)")
_DTYPE_WORD = lazy_pattern(r"数据类型|data\s*types?|dtype", re.I)
_SHAPE_WORD = lazy_pattern(r"shape|形状", re.I)
# "维度需要与self和gradInput一致" (the pad backwards' gradOutput: its example passes [1, 4] beside self's
# [1, 2]), "数据格式和维度与输入self一致" (MaxPool's out, pooled smaller than self): 维度 alone is the rank
# (SAME_RANK, `_states_rank`), no shape relation; a sentence that says shape as well ("维度（shape）与self
# 一致") is one.
_FORMAT_WORD = lazy_pattern(r"数据格式|data\s*formats?|\bformats?\b", re.I)
# "shape需要与x最后一维一致": equal to one dimension of the other, not to its shape (no IR relation
# says that, so none is read; SAME_SHAPE would make a valid call fail). So for part of a shape
# ("除倒数两维", "其他维度", "后两维", "后几维", "前n-1维", "logits.size(0)") and for the rank ("维度数", "维数").
_ONE_DIMENSION = lazy_pattern(r"(?:最后|最末|第\s*[\d一二三四五六七八九十零]+\s*|某一?|尾|倒数第?\s*[\d一二三四五六七八九十]*\s*)"
                            r"(?:一个?|个)?(?:维|轴)|除(?:了)?[^，,。；]{0,12}(?:维|轴)|(?:其他|其余|其它|后|前)\s*(?:[\d一二两三四五六七八九十几]*|n\s*-\s*1)\s*(?:个)?维|"
                            r"维(?:度)?(?:数|数量|值)|维数|总维度?|\.(?:size|shape|dim)\s*[(\[]|"
                            # "the dimension to be normalized in x1" (aclnnAddRmsNormQuantV2's gamma); "the
                            # batch dimension must meet the broadcast relationship with the batch dimension of x"
                            # (aclnnWeightQuantBatchMatmulV2's weight: the matrices' dimensions need not); "shape
                            # 与self的batch一致" (aclnnSlogdet's signOut: self is (*, n, n), signOut (*))
                            r"\b(?:dimensions?|axes|axis)\s+to\s+be\s+normali[sz]ed|to-be-normali[sz]ed|"
                            r"\bbatch\s*(?:dimensions?|dims?|axes|axis|维度?|轴)|的\s*`?batch(?![A-Za-z_])|"
                            # "The shape length is the same as the length of the channel axis of the input
                            # parameter input" (the corpus's aclnnBatchNorm_en: weight is (C,))
                            # ("shape与入参input中channel轴保持一致": no word boundary after a Chinese character)
                            r"(?<![A-Za-z])channel\s*(?:axis|axes|dimensions?|dims?|维度?|轴)|"
                            # "the same as the first several dimensions of the input x" (aclnnRmsNorm_en's rstdOut)
                            r"\b(?:first|last)\s+(?:several|few|two|three|four|\d+)\s+(?:dimensions|dims|axes)\b|"
                            # "NC维度和self保持一致", "H、W轴": named dimensions; "需要norm的维度" ("需要norm（层归一化）的维度"): some of them
                            r"(?<![A-Za-z])[A-Z](?:\s*[、,/]?\s*[A-Z]){0,4}\s*(?:个)?(?:维|轴)|norm\s*(?:[(（][^()（）]{0,12}[)）]\s*)?的(?:维|轴)|指定的(?:维|轴)|"
                            r"\b(?:last|first|\d+(?:st|nd|rd|th))\s+(?:dimension|dim|axis)\b|\bin\s+(?:the\s+)?\w+\s+dimension\b|"
                            r"\bshape\s+(?:value|size)\b|\bother\s+dimensions\b|\bexcept\b|number\s+of\s+dimensions", re.I)
# A shape of something derived from the tensor, not the tensor's ("与varRef计算得出的切片shape保持一致"), its
# element count ("元素个数与self输入的channels一致"), or one alternative of several ("或者"): no SAME_SHAPE.
_NOT_THE_SHAPE = lazy_pattern(r"计算(?:得出|得到|出)|推导(?:得出|出)|切片|元素个数|元素数量|number\s+of\s+elements|"
                            r"computed\s+from|derived\s+from|或者|或是|\bor\b", re.I)
# "与batch1@batch2的后两维一致", "与mat和vec的乘积相同", "vec1 ⊗ vec2": a shape of a product of tensors.
PRODUCT = lazy_pattern(r"@|乘积|外积|矩阵乘|⊗|\\otimes|\bproduct\b|\bmatmul\b", re.I)
# A clause under a condition: "当...时", "如果", "若", "...场景下", "if", "when". "同时" is not one.
# "In the conv3d scenario, ..." / "for the pertensor mode": the English "场景下".
# "时" ends a condition before a comma, or before the statement's first name ("其他数据类型时shape和x保持
# 一致": aclnnDynamicQuantV3's yOut, whose dtype is never x's).
# "renorm为0且outputSoftmaxResultFlag为true时输出，shape与x一致": an output given only then.
# "For other types, the shape is the same as that of x" (aclnnAscendQuant_en's y, after "If the data type is INT32, ..."):
# the other cases of a condition the sentence before states.
CONDITION = lazy_pattern(WHEN + r"|如果|若(?!干)|假如|仅在|只有|(?:场景|情况|模式)下|(?<![同及暂])时(?:输出)?(?:[，,：:]|$|(?=\s*[A-Za-z]))|"
                       r"\b(?:if|when|unless|only\s+in)\b|\b(?:in|for)\s+(?:the\s+)?\S+(?:\s+\S+)?\s+(?:scenarios?|mode)\b|"
                       r"\bfor\s+(?:all\s+)?other\s+(?:data\s+)?(?:types|dtypes)\b",
                       re.I)
# A default ("默认与self一致"): a relation only when no clause of its sentence states an exception.
_DEFAULT = lazy_pattern(r"默认|\bby\s+default\b", re.I)


def relations_in(text: str, own_name: str, api_params: Collection[str]) -> tuple[Relation, ...]:
    """The relations a parameter's notes state to the others of `api_params` (a set, made once
    per API: `prose.name_set`)."""
    wanted = name_set(api_params)
    found: dict[RelationKind, dict[str, None]] = {}  # ordered sets
    for sentence, conditional in _clauses(text, wanted, own_name):
        if not sentence.strip() or conditional:
            continue
        named = [n for n in names_in(sentence, wanted) if n != own_name]
        if not named:
            continue
        for kind in _kinds(sentence):
            found.setdefault(kind, {}).update(dict.fromkeys(named))
    # In the order the text states them.
    return tuple(Relation(kind, tuple(names)) for kind, names in found.items() if names)


_CLAUSE = lazy_pattern(r"[，,]|且(?!为\d)|\band\s+(?=the\s|its\s)")
_FIRST_WORD = lazy_pattern(r"^\s*`?([A-Za-z_][A-Za-z0-9_]*)")


def _clauses(text: str, names: Collection[str], own_name: str) -> list[tuple[str, bool]]:
    """Sentences, and their comma-separated clauses; a clause that starts with a parameter name
    continues a list of names ("与result，gradInput一致") and stays with the one before. Each clause
    comes with whether a condition governs it: one that states a condition, and the clauses after
    it in its sentence ("当reduction为0时，out的shape与self一致")."""
    out: list[tuple[str, bool]] = []
    wanted = name_set(names)
    for sentence in _SENTENCE.split(text):
        clauses: list[str] = []
        for clause in _CLAUSE.split(sentence):
            first = _FIRST_WORD.match(clause)
            if clauses and first is not None and first.group(1) in wanted:
                clauses[-1] += "，" + clause
            else:
                clauses.append(clause)
        conditions = [bool(CONDITION.search(_before_aside(without_presence(clause, own_name))) or _EXCEPTION.match(clause))
                      for clause in clauses]
        excepted = any(conditions)
        conditional = False
        for clause, condition in zip(clauses, conditions):
            conditional = conditional or condition
            out.append((clause, conditional or (excepted and bool(_DEFAULT.search(clause)))))
    return out


# An exception that opens a sentence ("除最后一维外，shape与grad一致", "Except the axis specified by dim, the
# shape of out must be the same as that of self": aclnnGeGlu_en's out) governs the clauses after it, as a
# condition does: the relation holds of part of the shape.
_EXCEPTION = lazy_pattern(r"\s*(?:除(?:了)?\S|except\b)", re.I)




_OPENING_PARENTHESIS = lazy_pattern(r"[（(]")


def _before_aside(clause: str) -> str:
    """A clause without the parenthesis that follows its statement: "数据类型与self满足数据类型推导
    规则（当beta是float，self是整型...不满足推导关系）" states the relation, and its exceptions aside.
    A clause that opens with a parenthesis keeps it ("(当reduction为0时)out的shape...")."""
    head = _OPENING_PARENTHESIS.split(clause, maxsplit=1)[0]
    return head if head.strip() else clause


# The rank as a count ("维度数", "维数", "维度数量"), spelled as the plain word for `_states_rank`.
_RANK_COUNT = lazy_pattern(r"维度数量|维度数|维数")


def _states_rank(sentence: str) -> bool:
    """Whether a sentence that says two tensors agree says it of their ranks alone: "维度需要与self和
    gradInput一致", "维度数需要与updates一致", "TensorList中每个输出tensor的维度与self的维度一致". Not when it
    says shape too (SAME_SHAPE, which keeps the rank), nor of some dimensions ("其他维度", "NC维度",
    "前几维的维度", "总维度"), a product, a derived shape or one alternative of several. A page whose
    维度 means the shape (LogicalNot's "输出维度与x一致") loses nothing: equal shapes have equal ranks."""
    plain = _RANK_COUNT.sub("维度", sentence)
    return "维度" in plain and not _SHAPE_WORD.search(plain) and not _ONE_DIMENSION.search(plain) \
        and not PRODUCT.search(plain) and not _NOT_THE_SHAPE.search(plain) and not _ALTERNATIVE.search(plain)


def _kinds(sentence: str) -> list[RelationKind]:
    if _CAST.search(sentence):
        return [RelationKind.CAST_FROM]
    if _CAST_TO.search(sentence):
        return []
    if _PROMOTE.search(sentence):
        return [RelationKind.PROMOTE]
    if _BROADCAST.search(sentence):
        return [] if _ONE_DIMENSION.search(sentence) or PRODUCT.search(sentence) or _ELEMENT_COUNT.search(sentence) \
            or _DERIVED_FROM_BROADCAST.search(sentence) else [RelationKind.BROADCAST]
    if _SAME.search(sentence) and not _NEGATED.search(sentence):
        kinds = []
        if _DTYPE_WORD.search(sentence) and not _ALTERNATIVE.search(sentence):
            kinds.append(RelationKind.SAME_DTYPE)
        if _SHAPE_WORD.search(sentence) and not _ONE_DIMENSION.search(sentence) and not PRODUCT.search(sentence) \
                and not _NOT_THE_SHAPE.search(sentence) and not _ALTERNATIVE.search(sentence):
            kinds.append(RelationKind.SAME_SHAPE)
        if _FORMAT_WORD.search(sentence):
            kinds.append(RelationKind.SAME_FORMAT)
        if _states_rank(sentence):
            kinds.append(RelationKind.SAME_RANK)
        return kinds
    return []


# The relation an error row states between the tensors it names: the status is returned when they
# differ in dtype ("self和out的数据类型不相同"), in shape ("gradOutput、self和out的shape不相同"), or do
# not broadcast ("self和other的shape不满足broadcast关系").
ERROR_ROW_RELATIONS: dict[ErrorCategory, RelationKind] = {
    ErrorCategory.DTYPE_MISMATCH: RelationKind.SAME_DTYPE,
    ErrorCategory.SHAPE_MISMATCH: RelationKind.SAME_SHAPE,
    ErrorCategory.BROADCAST: RelationKind.BROADCAST,
}
_SHAPE_KINDS = (RelationKind.SAME_SHAPE, RelationKind.BROADCAST)
# What a shape row may say besides the names of its tensors for it to relate them all: that their
# shapes differ ("gradOutput、self和out的shape不相同", "The shapes of x and y are not the same") or do
# not broadcast. A row that says more states what no relation of the IR says, and is not read:
# "与参数说明中不一致" (each as its own row describes), "out和mat1@mat2 shape不一致" (a product),
# "shape长度与input shape中channel轴的长度不相等" (one axis), "shape乘积" (a product of extents).
_PLAIN_SHAPE_ROW = lazy_pattern(
    r"(?:[\s、，,;；:：。.()（）和与及或跟都之间的]|参数|输入|输出|shapes?|形状|不一致|不相同|不相等|不等于|不同|不匹配|不是|"
    r"完全相同|"
    r"broadcast(?:ed|ing)?|之后|后|关系|无法|不能|做|进行|不满足|满足|the|of|and|or|are|is|not|same|different|"
    r"inconsistent|mismatch(?:ed)?|do|does|match|from|that|those|with|each|other|can|cannot|be|satisfy|"
    r"relationship|after|to)*", re.I)


def with_error_table_relations(params: Sequence[Param], errors: Sequence[ErrorCase]) -> tuple[Param, ...]:
    """The relations an error row states between the tensors it names (`ERROR_ROW_RELATIONS`),
    added to their parameters: the page states them there when its parameter table does not
    (aclnnRelu's dtypes, aclnnLog's shapes), and the bindings' output shapes, the tests' shape
    groups and the simulator's checks all read them from the IR.

    The table is the authority on what it states: two tensors it relates by a shape relation (on
    either side) get no other from a row, and a shape row among tensors the table lets broadcast
    speaks of the shapes after broadcasting (aclnnLeakyReluBackward: gradOutput and self broadcast,
    and "gradOutput、self和out的shape不相同" makes out their broadcast, not their equal). Rows the
    classifier left conditional are unclassified, so never read; a shape row that says more than
    that the shapes differ (`_PLAIN_SHAPE_ROW`), or about one dimension of another tensor ("与x最后
    一维不一致", as in usage notes), or among tensors whose documented ranks cannot be equal, states
    no relation."""
    by_name = {p.name: p for p in params if p.kind is ParamKind.TENSOR}

    def related(a: str, b: str, kinds: tuple[RelationKind, ...]) -> bool:
        return any(b in by_name[a].related(k) or a in by_name[b].related(k) for k in kinds)

    found: dict[tuple[str, RelationKind], list[str]] = {}
    for row in errors:
        for kind, _, named in _row_statements(row.category, row.condition, list(by_name)):
            if kind is RelationKind.SAME_SHAPE:
                if not _ranks_meet([by_name[n] for n in named]):
                    continue
                if any(related(a, b, (RelationKind.BROADCAST,)) for a in named for b in named):
                    kind = RelationKind.BROADCAST
            stated = _SHAPE_KINDS if kind in _SHAPE_KINDS else ()
            for name in named:
                bucket = found.setdefault((name, kind), [])
                bucket.extend(n for n in named if n != name and n not in bucket and n not in by_name[name].related(kind)
                              and not related(name, n, stated))
    params = tuple(_with_others(param, {kind: found.get((param.name, kind), ()) for kind in RelationKind})
                   for param in params)
    return _broadcast_results(params, errors)


def given_relations(sentence: str, tensors: Collection[str]) -> tuple[str, tuple[Relation, ...]]:
    """A constraint that opens by requiring a tensor to be given and then relates it to others ("x3若非空，
    shape与output相同", "若传入 quantOffset2 ，需保证其类型和shape信息与 quantScale2 一致"): the tensor, and the
    relations its usage notes would state in those words ("" and none for any other sentence). Phase 1
    judges no relation on an absent tensor, which is the sentence's condition already."""
    given = given_opening(sentence)
    if given is None or given[0] not in tensors:
        return "", ()
    name, rest = given
    # "当bias非空时，x3的shape与output相同": the statement is another tensor's, under a condition.
    subject = _STATEMENT_OTHERS.split(rest, maxsplit=1)
    if len(subject) < 2 or any(n != name for n in names_in(subject[0], tensors)):
        return "", ()
    return name, relations_in(rest, name, tensors)


# Where a statement's subject ends and the tensors it relates it to begin.
_STATEMENT_OTHERS = lazy_pattern(r"与|跟|同")


def with_constraint_relations(params: Sequence[Param], lines: Sequence[str]) -> tuple[Param, ...]:
    """The relations the constraints section states of a tensor it requires to be given (`given_relations`),
    joined to that tensor's own; a shape relation only among tensors whose documented ranks can meet, as
    the error table's."""
    by_name = {p.name: p for p in params if p.kind is ParamKind.TENSOR}
    found: dict[str, dict[RelationKind, list[str]]] = {}
    for line in lines:
        for sentence in _SENTENCE.split(line):
            name, read = given_relations(sentence, list(by_name))
            for relation in read:
                others = [n for n in relation.others if n in by_name and n not in by_name[name].related(relation.kind)
                          and (relation.kind not in _SHAPE_KINDS or _ranks_meet([by_name[name], by_name[n]]))]
                bucket = found.setdefault(name, {}).setdefault(relation.kind, [])
                bucket.extend(n for n in others if n not in bucket)
    return tuple(_with_others(param, found.get(param.name, {})) for param in params)


def _row_statements(category: ErrorCategory | None, condition: str,
                    tensors: Collection[str]) -> list[tuple[RelationKind, str, tuple[str, ...]]]:
    """The relations an error row's wording states, each with its statement and the tensors it
    names, before the parameters' ranks are consulted (`with_error_table_relations`). A row whose
    opening is only that a tensor be given relates it whenever it is (conditions.without_given_tensor)."""
    row_kind = ERROR_ROW_RELATIONS.get(category) if category else None
    if row_kind is None:
        return []
    out = []
    for statement in _statements(without_given_tensor(condition), tensors):
        named = names_in(statement, tensors)
        if len(named) < 2:
            continue
        if row_kind in _SHAPE_KINDS and not _plain_shape_row(statement, named):
            continue
        # "shape不匹配": the shapes do not fit together (a pooled gradient and its input), not that
        # they differ; no equality is read from it.
        if row_kind is RelationKind.SAME_SHAPE and (_ONE_DIMENSION.search(statement) or _MISMATCH.search(statement)):
            continue
        out.append((row_kind, statement, named))
    return out


def states_relation(condition: str, tensors: Collection[str]) -> bool:
    """Whether an error row's condition states a relation the error table's reader reads."""
    return bool(_row_statements(classify(condition), condition, tensors))


# "out的shape不是self和other broadcast之后的shape": the row names a result and the operands whose
# broadcast it is.
_BROADCAST_RESULT = lazy_pattern(r"(\w+)的shape不是(.{1,40}?)(?:broadcast|广播)\s*(?:之)?后的shape")
# "input、shiftBits的shape在broadcast之后与out的shape不一致" (aclnnRightShift, aclnnLeftShift): the
# operands first, the result after 与.
_BROADCAST_RESULT_AFTER = lazy_pattern(r"([^，。；]{1,40}?)的shape在(?:broadcast|广播)\s*(?:之)?后与(\w+)的shape不一致")


def _broadcast_results(params: tuple[Param, ...], errors: Sequence[ErrorCase]) -> tuple[Param, ...]:
    """A result an error row says is its operands' broadcast ("out的shape不是self和other broadcast之后
    的shape", "input、shiftBits的shape在broadcast之后与out的shape不一致") broadcasts with them, whatever its usage note says: the table is the authority on
    what it states, and a note giving it self's shape (aclnnFmodTensor's "shape需要与self一致",
    copied from an in-place sibling) would refuse every call that broadcasts self."""
    tensors = [p.name for p in params if p.kind is ParamKind.TENSOR]
    pairs: set[frozenset[str]] = set()
    for row in errors:
        condition = row.condition.replace(" ", "")
        found = _BROADCAST_RESULT.findall(condition) + [(r, o) for o, r in _BROADCAST_RESULT_AFTER.findall(condition)]
        for result, operands in found:
            if result in tensors:
                pairs.update(frozenset((result, n)) for n in names_in(operands, tensors) if n != result)
    if not pairs:
        return params

    def rebuilt(param: Param) -> Param:
        moved = [n for r in param.relations if r.kind is RelationKind.SAME_SHAPE for n in r.others
                 if frozenset((param.name, n)) in pairs]
        if not moved:
            return param
        relations = [r for r in param.relations if r.kind is not RelationKind.SAME_SHAPE]
        kept = tuple(n for n in param.related(RelationKind.SAME_SHAPE) if n not in moved)
        if kept:
            relations.append(Relation(RelationKind.SAME_SHAPE, kept))
        return _with_others(dataclasses.replace(param, relations=tuple(relations)),
                            {RelationKind.BROADCAST: [n for n in moved if n not in param.related(RelationKind.BROADCAST)]})

    return tuple(rebuilt(p) for p in params)


_MISMATCH = lazy_pattern(r"不匹配|mismatch|(?:do|does)\s+not\s+match|don't\s+match", re.I)


def _statements(condition: str, tensors: Collection[str]) -> list[str]:
    """An error row's statements: "out的shape与self的shape不相同，sorter的shape与sortedSequence的shape不相同"
    (aclnnSearchSorted) states two relations of two tensors each, not one of four; a row whose
    clauses name tensors more than once is read clause by clause, and so is a row one clause of
    which relates tensors while another names a tensor of its own."""
    parts = re.split(r"[，,；;。]", condition)
    clauses = [c for c in parts if len(names_in(c, tensors)) >= 2]
    # "gradOutput 与 out 的数据类型不一致，或 self 不为 uint8" (aclnnReluGradV4): the one clause
    # relating tensors relates those it names, not the tensor another clause says something else
    # of; "self，vec和out的数据类型不同" (aclnnMv) lists three names across a comma.
    alone = [c for c in parts if len(names_in(c, tensors)) == 1]
    if len(clauses) == 1 and alone and all(_says_more_than_names(c, tensors) for c in alone):
        return clauses
    return clauses if len(clauses) > 1 else [condition]


def _says_more_than_names(clause: str, tensors: Collection[str]) -> bool:
    for name in sorted(tensors, key=len, reverse=True):
        clause = clause.replace(name, " ")
    return re.fullmatch(r"[\s、和与及或以及and]*", clause) is None


def _plain_shape_row(condition: str, names: Sequence[str]) -> bool:
    for name in sorted(names, key=len, reverse=True):
        condition = condition.replace(name, " ")
    return _PLAIN_SHAPE_ROW.fullmatch(condition) is not None


def _ranks_meet(tensors: Sequence[Param]) -> bool:
    """Whether the tensors' documented ranks leave one rank they can all have: tensors of equal
    shape have one rank (aclnnQuantMatmul's "x2与bias的shape不一致" relates a 2-D x2 to a 1-D bias, so
    does not mean equal shapes)."""
    bounds = [p.rank for p in tensors if p.rank is not None]
    return not bounds or max(lo for lo, _ in bounds) <= min(hi for _, hi in bounds)


def _with_others(param: Param, added: Mapping[RelationKind, Sequence[str]]) -> Param:
    """`param` with `added` names joined to its relation of each kind (one relation per kind, as
    `relations_in` gives them), or a new relation after its own."""
    if not any(added.values()):
        return param
    joined = {r.kind for r in param.relations}
    relations = [Relation(r.kind, r.others + tuple(added.get(r.kind, ()))) for r in param.relations]
    relations += [Relation(kind, tuple(names)) for kind, names in added.items() if names and kind not in joined]
    return dataclasses.replace(param, relations=tuple(relations))


def shape_relations_the_example_keeps(api: API, shapes: dict[str, tuple[int, ...]], diags: list[Diagnostic]) -> API:
    """`api` without the shape relations (same shape, broadcast, same rank) its page's own example breaks, both
    ways (`shapes`: the tensors' shapes in the example's call): the example is a program the page's authors ran, and a call the page shows is never refused
    (as `comparisons.ranges_the_example_keeps` does for values). aclnnMaxPool2dWithMaskBackward's error
    row says "gradOutput与indices的shape不一致" while its example passes a gradOutput of [1, 1, 2, 1] and
    the packed mask indices of [1, 1, 4, 64], as the row of indices describes it ("最大值在求mask的kernel
    位置的bit值组成的Tensor")."""
    broken: dict[frozenset[str], RelationKind] = {}
    for param in api.params:
        for relation in param.relations:
            if relation.kind not in _EXAMPLE_KINDS or param.name not in shapes:
                continue
            for other in relation.others:
                if other in shapes and not _shapes_fit(relation.kind, shapes[param.name], shapes[other]):
                    broken.setdefault(frozenset((param.name, other)), relation.kind)
    if not broken:
        return api
    line_of = {p.name: p.line for p in api.params}
    for pair, kind in broken.items():
        a, b = sorted(pair, key=lambda name: line_of.get(name, 0))
        diags.append(Diagnostic(Level.INFO, line_of.get(a, api.line), "example-breaks-relation",
                                f"{api.name}: the page's example passes {a} of {list(shapes[a])} and {b} of "
                                f"{list(shapes[b])}, which break the page's {kind.value} relation between them: "
                                f"the simulator does not check it"))

    def kept(param: Param) -> Param:
        relations = []
        for relation in param.relations:
            others = tuple(o for o in relation.others
                           if relation.kind not in _EXAMPLE_KINDS or frozenset((param.name, o)) not in broken)
            if others:
                relations.append(relation if others == relation.others else Relation(relation.kind, others))
        return param if len(relations) == len(param.relations) and all(
            r is o for r, o in zip(relations, param.relations)) else dataclasses.replace(param, relations=tuple(relations))

    return dataclasses.replace(api, params=tuple(kept(p) for p in api.params))


# The relations an example's shapes can break: the shape relations and the rank's.
_EXAMPLE_KINDS = (*_SHAPE_KINDS, RelationKind.SAME_RANK)


def _shapes_fit(kind: RelationKind, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    if kind is RelationKind.SAME_SHAPE:
        return a == b
    if kind is RelationKind.SAME_RANK:
        return len(a) == len(b)
    return all(x == y or 1 in (x, y) for x, y in zip(reversed(a), reversed(b)))


# An operand of a product in the formula: "vec1 \otimes vec2", "mat @ vec", "batch1@batch2". The
# left operand starts a word: tried inside a long word, it would scan the rest of it from every
# letter (quadratic: a 100 KB word in a formula's example took minutes).
_PRODUCT_OPERANDS = lazy_pattern(r"(?<!\w)([A-Za-z_]\w*)\s*\}?\s*(?:@|⊗|\\otimes)\s*\{?\s*([A-Za-z_]\w*)")


def without_product_shapes(params: Sequence[Param], formula: str) -> tuple[tuple[Param, ...], list[tuple[str, str]]]:
    """The parameters without the shape relations (same shape, broadcast) that touch an operand
    of a product the formula writes (`out = β self + α (vec1 ⊗ vec2)`): such a page's "self需要与vec1、
    vec2满足broadcast关系" means the product's shape, which no relation of the IR states, so no
    relation is read (the simulator would reject the page's own example). Also what was dropped,
    as (parameter, others) pairs, for the diagnostics."""
    names = {p.name for p in params}
    operands: set[str] = set()
    for left, right in _PRODUCT_OPERANDS.findall(formula.replace("\\text{", "").replace("\\mathrm{", "")):
        if left in names and right in names:
            operands.update((left, right))
    if not operands:
        return tuple(params), []
    dropped: list[tuple[str, str]] = []
    kept: list[Param] = []
    for param in params:
        relations = []
        for relation in param.relations:
            if relation.kind in _SHAPE_KINDS and (param.name in operands or operands & set(relation.others)):
                dropped.append((param.name, ", ".join(relation.others)))
                continue
            relations.append(relation)
        kept.append(param if len(relations) == len(param.relations) else
                    dataclasses.replace(param, relations=tuple(relations)))
    return tuple(kept), dropped


def speaks_of_broadcasting(params: Sequence[Param], formula: str) -> bool:
    """Whether the page speaks of broadcasting the API's tensors: a broadcast relation between them,
    or the word ("满足broadcast关系", "广播") in a parameter's notes or in the formula's section (a
    product's "self需要与mat1@mat2满足broadcast关系", whose relation without_product_shapes drops)."""
    if any(p.related(RelationKind.BROADCAST) for p in params):
        return True
    texts = [formula] + [t for p in params for t in (p.usage, p.description)]
    return any(_BROADCAST.search(text or "") for text in texts)
