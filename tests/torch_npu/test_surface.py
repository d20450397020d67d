"""The simulator's toolkit provides everything torch_npu links and looks up, as derived from the
installed wheel (tests/torch_npu/surface.py): a torch_npu release that needs a name the simulator
lacks fails here, naming it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gen.corpus import demand
from tests.torch_npu import surface

# Libraries torch_npu's binaries link that are not part of a CANN toolkit, and why none is needed.
NOT_IN_A_TOOLKIT = {
    # Ascend Transformer Boost (the NNAL package): only torch_npu's lib/libop_plugin_atb.so links it,
    # and torch_npu loads that library only for its ATB operators (torch_npu._npu_*), which then fail
    # to load with the loader's message naming libatb.so.
    "libatb.so": "ATB operators of the NNAL package",
}


# Libraries torch_npu opens by name at run time that the simulator's toolkit does not hold: each is an
# optional component torch_npu checks for and does without, and what it does then. Derived list
# (surface.opened); the reasons are read from torch_npu's sources and headers (csrc/core/npu/interface)
# and op-plugin's.
OPENED_AND_DONE_WITHOUT = {
    # CANN before 8.0 split libopapi.so into these; op-plugin searches them (and libopapi_*.so of the
    # split packages) only for an aclnn name libopapi.so lacks, and names the API in its error if none
    # has it (the custom-op sweep's "missing" verdict).
    **{f"libaclnn_{part}.so": "the pre-8.0 split of libopapi.so" for part in
       ("fft", "math", "ops_infer", "ops_train", "rand", "sparse")},
    # Vendors' custom operator packages (ASCEND_CUSTOM_OPP_PATH): searched before libopapi.so, absent
    # when no custom package is installed.
    "libcust_opapi.so": "custom operator packages, none installed",
    # Driver interfaces: device information and API version, NPU card/CPU affinity (CPU_AFFINITY_CONF)
    # and online hardware fault detection; torch_npu logs that the function was not found and leaves
    # the feature off. torch_npu.profiler's start needs the driver's queries and fails naming this
    # library (logged by the profiler, which then records nothing): the simulator writes no device
    # profile, and refuses aclprofStart with a configuration as well (ascendcl/tooling.cpp).
    "libascend_hal.so": "the driver's device queries (torch_npu.profiler's start fails naming it)",
    "libdcmi.so": "the device management interface (CPU affinity binding)",
    "libascend_ml.so": "online AI Core / P2P fault detection",
    # Dump of operator data (ACL dump switches), which the simulator never writes.
    "libascend_dump.so": "operator data dumps",
    # The ASD signal-processing library: op-plugin's 1-d complex FFT uses it when present and falls
    # back to aclnn's FFT otherwise (torch.fft on npu computes here through aclnnFft).
    "libasdsip.so": "asdFft (op-plugin falls back to aclnnFft)",
    # Graph-mode super kernels (torch_npu.npu.super_kernel_scope): the call raises naming this library.
    "libascendsk.so": "graph-mode super kernels; the scope call raises naming the library",
    # Profiling collectors loaded with LD_PRELOAD by MindStudio tools, never by torch_npu itself.
    "libmspti.so": "MindStudio's activity tracer (LD_PRELOAD by its tools)",
    "libascend_kernel_hook.so": "MindStudio's kernel hook (LD_PRELOAD by its tools)",
    # Multi-rank communication back ends beside HCCL (LCCL, HCOMM memory, symmetric memory): the
    # simulator models one rank through libhccl.
    "liblcal.so": "the LCCL back end (multi-rank)",
    "libshmem.so": "symmetric memory (multi-rank)",
}


@pytest.fixture(scope="module")
def wheel() -> surface.Surface:
    package_dir = demand.installed_package()
    assert package_dir is not None
    return surface.derive(package_dir)


@pytest.fixture(scope="module")
def toolkit_symbols(toolkit) -> dict[str, set[str]]:
    lib64 = toolkit / "lib64"
    return {library.name: surface.defined(library) for library in sorted(lib64.glob("*.so"))}


def test_the_derivation_finds_the_surface(wheel):
    # Sanity bounds, so that a derivation that silently found nothing cannot pass the tests below.
    assert {"libascendcl.so", "libhccl.so", "libacl_op_compiler.so"} <= wheel.libraries
    assert {"aclrtMalloc", "aclrtSetDevice"} <= wheel.imports
    assert {"aclrtCreateStreamWithConfig", "aclGetCompileopt", "HcclAllReduce", "aclCreateTensor",
            "aclGetViewShape"} <= wheel.lookups
    assert len(wheel.lookups) > 150


def test_every_library_torch_npu_links_is_in_the_toolkit(wheel, toolkit_symbols):
    missing = sorted(wheel.libraries - set(toolkit_symbols) - set(NOT_IN_A_TOOLKIT))
    assert missing == [], f"torch_npu links libraries the simulator's toolkit lacks: {missing}"


def test_every_library_torch_npu_opens_is_in_the_toolkit_or_done_without(wheel, toolkit_symbols):
    # Sanity bound: the profiler's and the super kernels' libraries are opened by name in 2.13.
    assert {"libmsprofiler.so", "libascendsk.so"} <= wheel.opened
    missing = sorted(wheel.opened - set(toolkit_symbols) - set(OPENED_AND_DONE_WITHOUT))
    assert missing == [], f"torch_npu opens libraries the toolkit lacks and this test does not explain: {missing}"
    stale = sorted(set(OPENED_AND_DONE_WITHOUT) - wheel.opened)
    assert stale == [], f"explained as opened, but torch_npu no longer names them: {stale}"


def test_every_symbol_torch_npu_imports_is_defined(wheel, toolkit_symbols):
    defined = set().union(*toolkit_symbols.values())
    missing = sorted(wheel.imports - defined)
    assert missing == [], f"torch_npu imports symbols no simulator library defines: {missing}"


def test_every_function_torch_npu_looks_up_is_defined(wheel, toolkit_symbols):
    defined = set().union(*toolkit_symbols.values())
    missing = sorted(wheel.lookups - defined)
    assert missing == [], f"torch_npu looks up functions no simulator library defines: {missing}"


def test_the_libraries_it_opens_by_name_resolve_its_lookups(wheel, toolkit_symbols, toolkit):
    # torch_npu opens libascendcl, libacl_op_compiler and libhccl and asks each for its functions:
    # dlsym searches a library and its dependencies, so a name must be found from the library opened.
    import ctypes

    lib64 = toolkit / "lib64"
    opened = {name: ctypes.CDLL(str(lib64 / name)) for name in ("libascendcl.so", "libacl_op_compiler.so", "libhccl.so")}
    for name in ("aclGetCompileopt", "aclSetCompileopt", "aclopCompileAndExecute"):
        assert hasattr(opened["libacl_op_compiler.so"], name), name
    for name in sorted(n for n in wheel.lookups if n.startswith(("aclrt", "aclmdl", "aclprof", "Msprof"))):
        assert hasattr(opened["libascendcl.so"], name), name
    for name in sorted(n for n in wheel.lookups if n.startswith("Hccl")):
        assert hasattr(opened["libhccl.so"], name), name
    # HCCL's group calls and communication memory are looked up in libhcomm.so (HcclCompile.h registers
    # them there): batch_isend_irecv's group could not start without them.
    package = demand.installed_package()
    assert package is not None
    header = package / "include" / "torch_npu" / "csrc" / "distributed" / "HcclCompile.h"
    in_hcomm = re.findall(r"TORCH_NPU_REGISTER_FUNCTION\(libhcomm, (\w+)\)", header.read_text(encoding="utf-8"))
    assert {"HcclGroupStart", "HcclGroupEnd"} <= set(in_hcomm)
    hcomm = ctypes.CDLL(str(lib64 / "libhcomm.so"))
    for name in in_hcomm:
        assert hasattr(hcomm, name), name
    # op-plugin finds nnopbase's functions through libopapi.so, which depends on libnnopbase.so.
    libopapi = ctypes.CDLL(str(lib64 / "libopapi.so"))
    for name in ("aclCreateTensor", "aclDestroyAclOpExecutor", "aclGetViewShape", "aclCreateIntArray"):
        assert hasattr(libopapi, name), name


def test_python_m_aclnn_sim_home_prints_the_toolkit(toolkit, npu_environment):
    import subprocess
    import sys

    env = {k: v for k, v in npu_environment.items() if not k.startswith("ACLNN_")}
    done = subprocess.run([sys.executable, "-m", "aclnn.sim", "home"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(toolkit)
    # bash (a user's shell) and a POSIX sh (make's recipes, `.` instead of source) alike.
    for shell in ("bash", "sh"):
        sourced = subprocess.run([shell, "-c", f'. "{toolkit}/set_env.sh" && echo "$ASCEND_HOME_PATH|$LD_LIBRARY_PATH"'],
                                 env=env, capture_output=True, text=True)
        home, library_path = sourced.stdout.strip().split("|")
        assert Path(home).resolve() == toolkit.resolve(), shell
        assert Path(library_path.split(":")[0]).resolve() == (toolkit / "lib64").resolve(), shell
