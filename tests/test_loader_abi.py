"""The compile-time ABI check (runtime/include/aclnn_bindgen/abi_check.h): it passes on the header
set it was dumped from, fails naming the value on a set that differs, and its list of names
covers every enumerator and status code of runtime/include."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INCLUDE = ROOT / "runtime" / "include"
BINDING = ROOT / "runtime" / "binding"


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """abi_expected.h, dumped from runtime/include as the build does."""
    out = tmp_path_factory.mktemp("abi")
    subprocess.run(["g++", "-std=c++17", f"-I{INCLUDE}", str(BINDING / "abi_dump.cpp"), "-o", str(out / "dump")],
                   check=True)
    subprocess.run([str(out / "dump"), str(out / "abi_expected.h")], check=True)
    return out


def check(headers: Path, expected: Path):
    return subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{headers}", f"-I{INCLUDE}", f"-I{expected}",
                           str(BINDING / "abi_check.cpp")], capture_output=True, text=True)


def test_expected_values_are_runtime_includes(expected):
    text = (expected / "abi_expected.h").read_text()
    assert "#define ACLNN_BINDGEN_EXPECTED_ACL_BF16 27LL" in text
    assert "#define ACLNN_BINDGEN_EXPECTED_ACLNN_ERR_PARAM_NULLPTR 161001LL" in text


def test_the_same_headers_pass(expected):
    assert check(INCLUDE, expected).returncode == 0


@pytest.mark.parametrize("header,old,new,name", [
    ("acl/acl_base.h", "ACL_BF16 = 27", "ACL_BF16 = 28", "ACL_BF16"),
    ("aclnn/acl_meta.h", "ACLNN_ERR_PARAM_INVALID 161002", "ACLNN_ERR_PARAM_INVALID 161003", "ACLNN_ERR_PARAM_INVALID"),
    ("acl/acl_rt.h", "ACL_MEMCPY_DEVICE_TO_HOST = 2", "ACL_MEMCPY_DEVICE_TO_HOST = 5", "ACL_MEMCPY_DEVICE_TO_HOST"),
])
def test_a_differing_header_set_fails_naming_the_value(expected, tmp_path, header, old, new, name):
    other = tmp_path / "cann_include"
    shutil.copytree(INCLUDE / "acl", other / "acl")
    shutil.copytree(INCLUDE / "aclnn", other / "aclnn")
    path = other / header
    path.write_text(path.read_text().replace(old, new))
    result = check(other, expected)
    assert result.returncode != 0
    assert f"ABI mismatch: {name} differs" in result.stderr


def _declared_names() -> set[str]:
    """Every enumerator, status macro and aclError constant of runtime/include."""
    names = set()
    for header in ("acl/acl_base.h", "acl/acl_rt.h", "aclnn/acl_meta.h"):
        text = (INCLUDE / header).read_text()
        for body in re.findall(r"typedef enum\s*\w*\s*\{(.*?)\}", text, re.S):
            names.update(re.findall(r"^\s*(\w+)\s*=", body, re.M))
        names.update(re.findall(r"^#define (ACLNN_\w+) \d+", text, re.M))
        names.update(re.findall(r"static const int (ACL_\w+) =", text))
    return names


def test_every_declared_value_is_checked():
    listed = set(re.findall(r"X\((\w+)\)", (INCLUDE / "aclnn_bindgen" / "abi_values.h").read_text()))
    missing = _declared_names() - listed - {"ACL_ERROR_NONE"}  # ACL_ERROR_NONE is ACL_SUCCESS's alias
    assert not missing
