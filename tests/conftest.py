"""The generator's tests use torch as the CPU golden only. torch_npu, installed for tests/torch_npu,
makes `import torch` load it, and its loading needs a CANN toolkit: the tests' own process keeps the
backend autoload off (the Makefile does the same for every target), and tests/torch_npu starts its
processes with the simulator's environment instead."""

import os

import pytest

os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")


@pytest.fixture(scope="session")
def aclnn():
    """The session's package, which the binding and runtime tests call: the seed pages' and the
    probe APIs' (tests/support/bindings_build.py), built once, imported in this process."""
    from tests.support import bindings_build

    return bindings_build.import_aclnn()
