"""The generator's tests use torch as the CPU golden only. torch_npu, installed for tests/torch_npu,
makes `import torch` load it, and its loading needs a CANN toolkit: the tests' own process keeps the
backend autoload off (the Makefile does the same for every target), and tests/torch_npu starts its
processes with the simulator's environment instead."""

import gc
import os

import pytest

os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")


@pytest.fixture(scope="session")
def aclnn():
    """The session's package, which the binding and runtime tests call: the seed pages' and the
    probe APIs' (tests/support/bindings_build.py), built once, imported in this process."""
    from tests.support import bindings_build

    return bindings_build.import_aclnn()


def pytest_collection_modifyitems(items):
    """The tests that start torch_npu processes take seconds to minutes each (the OpInfo passes the
    longest): run first, they are shared by the workers of `pytest -n` from the start, instead of
    leaving one worker idle while the other finishes the last long test."""
    def weight(item) -> int:
        path = item.nodeid.replace("\\", "/")
        if "tests/torch_npu/test_opinfo.py" in path:
            return 0
        return 1 if "tests/torch_npu/" in path else 2

    items.sort(key=weight)


def pytest_collection_finish(session):
    """What collecting imported (torch, numpy, the generator, the test modules) is kept out of the
    garbage collector's passes (gc.freeze): each full collection the tests' allocations trigger
    traversed it again (measured on the generated suites: ~7% of a run's CPU)."""
    gc.freeze()
