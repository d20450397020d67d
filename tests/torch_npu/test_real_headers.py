"""The simulator and the bindings compile against the real CANN headers torch_npu's wheel ships
(acl/*.h, hccl/*.h), searched before runtime/include as a build with ACLNN_CANN_HEADERS does: a
declaration of ours that differs from CANN's (a parameter type, an enum value, a function the
simulator defines with another signature) is a compile error here, not a surprise on an NPU.

Checked: every unit that defines the ABI's functions (libascendcl, libnnopbase, libacl_op_compiler,
libhccl), the loader and the bindings' runtime that call them through CANN's declarations, and one
generated unit of each kind (they are alike). The kernel families and the rest of the bindings use
no declaration the checked units do not (a full build with ACLNN_CANN_HEADERS compiles them too);
abi_dump.cpp and abi_check.cpp are left out: they exist to compare two header sets (runtime/include
against a toolkit's), and a partial one like the wheel's does not declare all of ours
(ACL_FORMAT_DHWCN)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from gen.corpus import demand

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = demand.installed_package()
SOURCES = sorted(
    [p for library in ("ascendcl", "nnopbase", "op_compiler", "hccl", "placeholder")
     for p in (ROOT / "runtime/sim/src" / library).glob("*.cpp")]
    + [ROOT / "runtime/loader/loader.cpp", ROOT / "runtime/binding/runtime.cpp", ROOT / "runtime/binding/streams.cpp",
       ROOT / "runtime/sim/src/opapi/phase1.cpp", ROOT / "generated/sim/ops_000.cpp",
       ROOT / "generated/bindings/ops_000.cpp"])


def include_flags() -> list[str]:
    import pybind11
    import scipy_openblas32

    assert PACKAGE is not None
    real = [PACKAGE / "include/third_party/acl/inc", PACKAGE / "include/third_party/hccl/inc", PACKAGE / "include"]
    # generated/ for the generated aclnnop/ prototypes (the wheel ships none), which the aclop bridge's
    # units check their calls against (generated/include/aclnn_sim/declared_apis.h includes them).
    ours = [ROOT / d for d in ("runtime/include", "generated/include", "generated", "runtime/sim/include",
                               "runtime/sim/src", "runtime/binding", "runtime/loader")]
    # nlohmann/json for aclInit's acl.json (runtime/sim/CMakeLists.txt finds it the same way).
    json_spec = importlib.util.find_spec("nlohmann_json")
    assert json_spec is not None and json_spec.origin is not None
    others = [Path(sysconfig.get_paths()["include"]), Path(pybind11.get_include()),
              Path(scipy_openblas32.__file__).parent / "include", Path(json_spec.origin).parent / "include"]
    return [f"-I{d}" for d in [*real, *ours, *others]]


def test_the_wheel_ships_the_headers():
    assert (PACKAGE / "include/third_party/acl/inc/acl/acl_rt.h").is_file()
    assert (PACKAGE / "include/third_party/hccl/inc/hccl/hccl.h").is_file()


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_compiles_against_canns_headers(source):
    proc = subprocess.run(["c++", "-std=c++17", "-fsyntax-only", *include_flags(), str(source)],
                          capture_output=True, text=True)
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    assert proc.returncode == 0, "\n".join(errors[:20]) or proc.stderr[-3000:]
