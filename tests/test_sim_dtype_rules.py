"""The simulator's 互推导关系 and 互转换关系 are PyTorch's promote_types and can_cast, pair by pair."""

import itertools

import pytest
import torch

from tests.sim_lib import session_sim

# aclDataType value -> the torch dtype it stands for.
TORCH = {
    12: torch.bool, 4: torch.uint8, 2: torch.int8, 6: torch.int16, 3: torch.int32, 9: torch.int64,
    7: torch.uint16, 8: torch.uint32, 10: torch.uint64, 1: torch.float16, 27: torch.bfloat16, 0: torch.float32,
    11: torch.float64, 33: torch.complex32, 16: torch.complex64, 17: torch.complex128,
    35: torch.float8_e5m2, 36: torch.float8_e4m3fn,
}
ACL = {v: k for k, v in TORCH.items()}
PAIRS = list(itertools.product(TORCH, repeat=2))


@pytest.fixture(scope="module")
def sim():
    return session_sim()


def torch_promote(a, b):
    try:
        return ACL[torch.promote_types(TORCH[a], TORCH[b])]
    except (RuntimeError, TypeError):
        return -1


def test_promotion_matches_torch_for_every_pair(sim):
    wrong = [(TORCH[a], TORCH[b], sim.aclsimPromoteTypes(a, b), torch_promote(a, b)) for a, b in PAIRS
             if sim.aclsimPromoteTypes(a, b) != torch_promote(a, b)]
    assert not wrong


def test_castability_matches_torch_for_every_pair(sim):
    wrong = [(TORCH[a], TORCH[b]) for a, b in PAIRS
             if bool(sim.aclsimCanCast(a, b)) != torch.can_cast(TORCH[a], TORCH[b])]
    assert not wrong


def test_exotic_dtypes_promote_only_with_themselves(sim):
    assert sim.aclsimPromoteTypes(34, 34) == 34  # HIFLOAT8
    assert sim.aclsimPromoteTypes(34, 0) == -1
    assert sim.aclsimPromoteTypes(29, 3) == -1  # INT4
