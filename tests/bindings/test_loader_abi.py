"""The compile-time ABI check (runtime/include/aclnn_bindgen/abi_check.h): it passes on the header
set it was dumped from, fails naming the value on a set that differs, and its list of names
covers every enumerator and status code of runtime/include."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


# Values as CANN's own public headers declare them (acl/acl_base.h, acl/acl_rt.h, aclnn/acl_meta.h of
# the CANN toolkit), written down independently of runtime/include: the compile-time check above
# compares a CANN install with runtime/include, and without one (here) it compares runtime/include
# with itself, so a wrong value there (ACL_ERROR_FAILURE once read 500003, which is
# ACL_ERROR_RT_FAILURE) would pass it.
CANN_PUBLIC_VALUES = {
    "ACL_SUCCESS": 0, "ACL_ERROR_INVALID_PARAM": 100000, "ACL_ERROR_UNINITIALIZE": 100001,
    "ACL_ERROR_BAD_ALLOC": 200000, "ACL_ERROR_RT_MEMORY_ALLOCATION": 207001, "ACL_ERROR_FAILURE": 500001,
    "ACL_ERROR_RT_FAILURE": 500003, "ACL_ERROR_RT_AICORE_EXCEPTION": 507015,
    "ACL_ERROR_OP_TYPE_NOT_MATCH": 100020, "ACL_ERROR_OP_INPUT_NOT_MATCH": 100021,
    "ACL_ERROR_OP_OUTPUT_NOT_MATCH": 100022, "ACL_ERROR_OP_ATTR_NOT_MATCH": 100023, "ACL_ERROR_OP_NOT_FOUND": 100024,
    "ACL_ERROR_UNSUPPORTED_DATA_TYPE": 100026, "ACL_ERROR_FORMAT_NOT_MATCH": 100027,
    "ACL_FLOAT": 0, "ACL_FLOAT16": 1, "ACL_INT8": 2, "ACL_INT32": 3, "ACL_UINT8": 4, "ACL_INT16": 6,
    "ACL_UINT16": 7, "ACL_UINT32": 8, "ACL_INT64": 9, "ACL_UINT64": 10, "ACL_DOUBLE": 11, "ACL_BOOL": 12,
    "ACL_COMPLEX64": 16, "ACL_COMPLEX128": 17, "ACL_BF16": 27,
    "ACL_FORMAT_NCHW": 0, "ACL_FORMAT_NHWC": 1, "ACL_FORMAT_ND": 2,
    "ACL_MEMCPY_HOST_TO_HOST": 0, "ACL_MEMCPY_HOST_TO_DEVICE": 1, "ACL_MEMCPY_DEVICE_TO_HOST": 2,
    "ACL_MEMCPY_DEVICE_TO_DEVICE": 3,
    # Graph capture's statuses (error_codes/rt_error_codes.h) and the stream attributes (acl_rt.h's aclrtStreamAttr).
    "ACL_ERROR_RT_CAPTURE_DEPENDENCY": 107024, "ACL_ERROR_RT_STREAM_UNJOINED": 107025, "ACL_ERROR_RT_MODEL_CAPTURED": 107026,
    "ACL_ERROR_RT_STREAM_CAPTURED": 107027, "ACL_ERROR_RT_EVENT_CAPTURED": 107028, "ACL_ERROR_RT_STREAM_NOT_CAPTURED": 107029,
    "ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT": 107030, "ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD": 107038,
    "ACL_ERROR_STREAM_TASK_GROUP_STATUS": 107033, "ACL_ERROR_STREAM_TASK_GROUP_INTR": 107034,
    "ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED": 107036, "ACL_ERROR_RT_MODEL_UPDATE_FAILED": 107040,
    "ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP": 207019,
    "ACL_STREAM_ATTR_FAILURE_MODE": 1, "ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK": 2, "ACL_STREAM_ATTR_USER_CUSTOM_TAG": 3,
    "ACL_STREAM_ATTR_CACHE_OP_INFO": 4, "ACL_STREAM_ATTR_PRIORITY": 5,
    "ACLNN_SUCCESS": 0, "ACLNN_ERR_PARAM_NULLPTR": 161001, "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001, "ACLNN_ERR_INNER": 561000, "ACLNN_ERR_INNER_NULLPTR": 561103,
}


def test_runtime_include_declares_cann_public_values(expected):
    text = (expected / "abi_expected.h").read_text()
    declared = {name: int(value) for name, value in re.findall(r"#define ACLNN_BINDGEN_EXPECTED_(\w+) (-?\d+)LL", text)}
    assert {name: declared.get(name) for name in CANN_PUBLIC_VALUES} == CANN_PUBLIC_VALUES
