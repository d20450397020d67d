"""The generator's tests use torch as the CPU golden only. torch_npu, installed for tests/torch_npu,
makes `import torch` load it, and its loading needs a CANN toolkit: the tests' own process keeps the
backend autoload off (the Makefile does the same for every target), and tests/torch_npu starts its
processes with the simulator's environment instead."""

import os

os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
