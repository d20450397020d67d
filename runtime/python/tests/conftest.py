"""The generated suites run against whichever aclnn package Python finds: an installed one, or
the package built in place next to this directory (generated/aclnn after `make generate` and
the build). The backend is the package's choice (ACLNN_BACKEND=cann|sim; CANN when installed);
ACLNN_SIM_SOC picks the simulated chip.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

# torch is the golden here (PyTorch on the CPU). With torch_npu installed, `import torch` would load
# it, and its loading needs a CANN toolkit: keep the backend autoload off unless the caller set it.
os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")

# The support module sits next to the tests, whatever pytest's import mode.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
# No installed aclnn: the one built in place (generated/aclnn).
if "aclnn" not in sys.modules and importlib.util.find_spec("aclnn") is None:
    sys.path.insert(0, str(HERE.parent))


def pytest_collection_finish(session):
    """What collecting imported (torch, numpy, aclnn: ~170,000 objects before the suites) is kept
    out of the garbage collector's passes (gc.freeze): each full collection the tests' allocations
    trigger traversed it again. An eighth of the suites: 41.8 CPU-s, 39.0 frozen."""
    import gc

    gc.freeze()


def pytest_report_header(config):
    import aclnn

    info = aclnn.backend()
    return f"aclnn: {aclnn.__file__}, backend {info!r}"


@pytest.fixture(scope="module", autouse=True)
def chip_the_page_supports(request):
    """Each suite's tests on a chip its page supports (_aclnn_testing.computing_chip)."""
    import _aclnn_testing

    with _aclnn_testing.computing_chip(getattr(request.module, "OP", None)):
        yield
