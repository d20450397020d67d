"""Ranks an error row bounds for tensors whose own rows state none (gen.parse.param_ranks)."""

import pytest

from gen.ir import Direction, ErrorCase, ErrorCategory, Param, ParamKind
from gen.parse.param_ranks import ranks_from_errors


def tensor(name, rank=None, kind=ParamKind.TENSOR):
    return Param(name=name, c_type="const aclTensor*", kind=kind, direction=Direction.IN, rank=rank, line=10)


def rank_row(condition, line=50):
    return ErrorCase(name="ACLNN_ERR_PARAM_INVALID", code=161002, condition=condition, category=ErrorCategory.RANK,
                     line=line)


def ranks(condition, params=None):
    params = params or [tensor("self"), tensor("other"), tensor("out")]
    return {p.name: (p.rank, p.rank_line) for p in ranks_from_errors(params, [rank_row(condition)])}


@pytest.mark.parametrize("condition, named", [
    ("input或out的维数大于8。", ("input", "out")),            # aclnnAcos.md:178
    ("self、other或out的维度大于8。", ("self", "other", "out")),
    ("参数self、out的维度大于8", ("self", "out")),
    ("self的shape超过8维。", ("self",)),
    ("self的数据维度超过了8维。", ("self",)),
    ("x或out中的Tensor维度超过8维。", ("x", "out")),            # a foreach page's lists
    ("self和out的维度大于8时。", ("self", "out")),
    ("The number of dimensions of self is greater than eight.", ("self",)),  # the English pages
    ("The number of dimensions of self or out is greater than 8.", ("self", "out")),
    ("self has more than 8 dimensions.", ("self",)),
])
def test_a_row_bounding_ranks_from_above_bounds_each_tensor_it_names(condition, named):
    params = [tensor(n) for n in ("self", "other", "input", "out")] + [tensor("x", kind=ParamKind.TENSOR_LIST)]
    found = ranks(condition, params)
    assert {n for n, (rank, _) in found.items() if rank is not None} == set(named)
    assert all(found[n] == ((0, 8), 50) for n in named)


@pytest.mark.parametrize("condition, named, bound", [
    ("self和out的shape超过8维，或者两者shape不一致。", ("self", "out"), (0, 8)),  # aclnnRelu (relu.md), aclnnThreshold
    ("self 或 out 的维度大于 8，或 betaOptional 无法转换为 FLOAT。", ("self", "out"), (0, 8)),
    ("self维度大于8，或小于2且不是0。", ("self",), (0, 8)),  # the ranks 0 and 2-8: read as at most 8
])
def test_an_alternative_that_bounds_ranks_bounds_them_on_its_own(condition, named, bound):
    # CANN refuses a call for either alternative of a row, so the rank alternative refuses alone.
    found = ranks(condition)
    assert {n for n, (rank, _) in found.items() if rank is not None} == set(named)
    assert all(found[n] == (bound, 50) for n in named)


def test_a_lower_bound_beside_the_upper_one_is_read():
    assert ranks("self维度大于8，或小于2。")["self"] == ((2, 8), 50)  # aclnnTriu.md:210
    assert ranks("self的维度小于2维，或者大于8维。")["self"] == ((2, 8), 50)


@pytest.mark.parametrize("condition", [
    "self的维度小于2。",                               # no upper bound
    "self的维度不等于4。",                             # not a bound
    "selfRef的维度大于8。",                            # a name the API does not have
    "输入维度超过 8 维。",                             # names no tensor
    "self has no more than one dimension or has more than eight dimensions.",
])
def test_a_row_that_says_more_or_less_bounds_nothing(condition):
    assert all(rank is None for rank, _ in ranks(condition).values())


def test_the_parameter_table_keeps_its_own_rank():
    params = [tensor("self", rank=(2, 4)), tensor("out")]
    found = {p.name: (p.rank, p.rank_line) for p in ranks_from_errors(params, [rank_row("self和out的维度大于8。")])}
    assert found == {"self": ((2, 4), 0), "out": ((0, 8), 50)}
