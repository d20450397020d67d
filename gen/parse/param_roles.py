"""What the page implies about a parameter's role beyond its row's direction word: the tensor an
in-place API writes, a const tensor declared before the outputs (read), a reserved parameter
(Reserved.NULL or Reserved.UNUSED), and pointers the error table shows to be optional."""

from __future__ import annotations

import dataclasses
import re
from typing import Collection, Optional, Sequence

from gen import abi
from gen.ir import Diagnostic, Direction, ErrorCase, ErrorCategory, Level, Param, ParamKind, Reserved, ShapeForm, ShapeRule
from gen.parse.extractors.entries import ParamEntry
from gen.parse.extractors.relations import CONDITION
from gen.parse.patterns import lazy_pattern


def in_place_target(api: str, params: list[Param], diags: list[Diagnostic]) -> list[Param]:
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


def read_before_outputs(params: list[Param], diags: list[Diagnostic]) -> list[Param]:
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


_RESERVED = lazy_pattern(r"预留|保留参数|(?:需要|需|必须|只能|仅支持|固定|即可)\s*(?:传入|为|是|设置?为)\s*(?:空指针|nullptr|NULL)|"
                       r"仅支持传入空指针|暂无用|暂无作用|暂未使用|"
                       r"only\s+(?:a\s+)?null\s*(?:pointers?|ptr)\s+(?:are|is|can\s+be)|"
                       r"\breserved\b|must\s+be\s+(?:set\s+to\s+)?(?:nullptr|null)|\bpass\s+(?:a\s+)?(?:nullptr|null)|"
                       r"\b(?:currently\s+)?unused\b|\bcurrently\s+not\s+used\b|\bnot\s+used\s+(?:yet|currently)\b",
                       re.I)


def is_reserved(entry: ParamEntry) -> bool:
    """A reserved parameter ("预留参数，当前版本不支持，需要传入nullptr"), one that must be NULL ("当前不支持，
    必须为nullptr", "Currently, only a null pointer can be passed.") or one the operator does not use yet
    ("用于保存正向计算的中间结果，暂无用") has no dtypes to state."""
    return bool(_RESERVED.search(entry.prose))


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


def optional_where_errors_refuse_only_all_null(params: Sequence[Param], errors: Sequence[ErrorCase]) -> list[Param]:
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


def optional_where_errors_say_non_null(params: Sequence[Param], errors: Sequence[ErrorCase]) -> list[Param]:
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


def with_reserved(param: Param, entry: Optional[ParamEntry], constraints: Sequence[str] = ()) -> Param:
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


_PARAM_NULLPTR = abi.status_code("ACLNN_ERR_PARAM_NULLPTR")
# "当outputRstd为True时，传入rstdOut是空指针", "当inputG为true时，sumDy或sumDyXmu是空指针": a null-pointer row
# under a bool argument's value, and nothing else.
_NULL_UNDER_BOOL = lazy_pattern(
    r"^\s*(?:当|如果|若)\s*`?(?P<when>[A-Za-z_]\w*)`?\s*(?:为|是|==?)\s*(?P<value>true|false)\s*(?:时|的时候)\s*[，,]?\s*"
    r"(?:传入(?:的)?\s*)?(?P<names>`?[A-Za-z_]\w*`?(?:\s*(?:或者|或|、|和)\s*`?[A-Za-z_]\w*`?)*)\s*(?:是|为)\s*空指针\s*[。.]?\s*$",
    re.I)


def present_under_bool_values(params: Sequence[Param], errors: Sequence[ErrorCase]) -> tuple[list[Param], list[ShapeRule]]:
    """The tensors a null-pointer row refuses only under a bool argument's value ("当outputRstd为True时，
    传入rstdOut是空指针": aclnnAddRmsNormDynamicMxQuant's example passes a null rstdOut with outputRstd
    false) made optional, each with the rule that it is given under that value (ShapeForm.PRESENT,
    citing the row): the page admits the null pointer otherwise."""
    kinds = {p.name: p.kind for p in params}
    named: list[str] = []
    rules: list[ShapeRule] = []
    for error in errors:
        found = _NULL_UNDER_BOOL.match(error.condition)
        if found is None or error.code != _PARAM_NULLPTR or kinds.get(found.group("when")) is not ParamKind.BOOL:
            continue
        names = _NAME.findall(found.group("names").replace("或者", " ").replace("或", " ").replace("和", " "))
        if not names or any(kinds.get(n) is not ParamKind.TENSOR for n in names):
            continue
        value = "1" if found.group("value").lower() == "true" else "0"
        for name in names:
            named.append(name)
            rules.append(ShapeRule(name, found.group("when"), (value,), ShapeForm.PRESENT, line=error.line))
    return _made_optional(params, named), rules
