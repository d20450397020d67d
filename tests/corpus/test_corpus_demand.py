"""gen.corpus.demand: the aclnn APIs a torch_npu wheel references, read from its binaries' bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.corpus import demand

# What a shared object's string table and code look like around op-plugin's lookups: C strings
# back to back, a name merged into the tail of a longer message, and identifier-like bytes that
# are not names (an immediate operand, a macro's text, the tail of a longer identifier).
FAKE_SO = (b"\x7fELF\x02\x01\x01\x00"
           b"\x00aclnnAddGetWorkspaceSize\x00aclnnAdd\x00"
           b"aclnnMatmulGetWorkspaceSize\x00"
           b"please upgrade CANN to support aclnnMatmul\x00"
           b"aclnnSetPytorchRandom\x00"
           b"\x48\xb8aclnnLogH\x89\x45"
           b"aclnnNotFound(val)\x00"
           b"my_aclnnAbsGetWorkspaceSize\x00my_aclnnAbs\x00"
           b"aclnnsoftmax\x00")


def test_names_are_whole_nul_terminated_identifiers():
    assert demand.referenced_names(FAKE_SO) == {
        "aclnnAddGetWorkspaceSize", "aclnnAdd", "aclnnMatmulGetWorkspaceSize", "aclnnMatmul", "aclnnSetPytorchRandom"}


def test_a_two_phase_pair_is_one_api_and_other_names_stay_apart():
    apis, unpaired = demand.two_phase_apis(demand.referenced_names(FAKE_SO))
    assert apis == ["aclnnAdd", "aclnnMatmul"]
    assert unpaired == ["aclnnSetPytorchRandom"]


def test_a_phase1_name_without_its_phase2_name_is_no_api():
    apis, unpaired = demand.two_phase_apis(["aclnnFooGetWorkspaceSize", "aclnnFooGetMaxWorkspaceSize"])
    assert apis == [] and unpaired == ["aclnnFooGetMaxWorkspaceSize", "aclnnFooGetWorkspaceSize"]


def test_a_package_is_read_from_its_shared_objects_only(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libtorch_npu.so").write_bytes(FAKE_SO)
    (tmp_path / "_C.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x00aclnnMulGetWorkspaceSize\x00aclnnMul\x00")
    (tmp_path / "notes.txt").write_bytes(b"\x00aclnnDivGetWorkspaceSize\x00aclnnDiv\x00")
    found = demand.from_package(tmp_path, "0.0")
    assert found.apis == ("aclnnAdd", "aclnnMatmul", "aclnnMul")
    assert found.binaries == ("_C.cpython-311-x86_64-linux-gnu.so", "lib/libtorch_npu.so")
    assert found.source == "torch_npu 0.0"


@pytest.fixture(scope="module")
def installed():
    found = demand.installed()
    if found is None:
        pytest.skip(demand.NOT_INSTALLED)
    return found


def test_the_installed_wheel_references_several_hundred_apis(installed):
    assert 300 <= len(installed.apis) <= 3000
    assert {"aclnnAdd", "aclnnMatmul", "aclnnSoftmax", "aclnnInplaceZero"} <= set(installed.apis)
    assert not [api for api in installed.apis if api.endswith(demand.PHASE1)]
    assert "lib/libtorch_npu.so" in installed.binaries
    assert Path(installed.package_dir, "lib", "libtorch_npu.so").is_file()


def test_without_torch_npu_there_is_no_demand_and_the_command_says_why(monkeypatch, capsys):
    monkeypatch.setattr(demand.importlib.util, "find_spec", lambda name: None)
    assert demand.installed() is None
    assert demand.main([]) == 0
    assert capsys.readouterr().out.strip() == demand.NOT_INSTALLED


def test_the_command_counts_the_apis_a_directory_of_pages_documents(monkeypatch, capsys, tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "add.md").write_bytes((Path(__file__).resolve().parents[2] / "op_docs" / "add.md").read_bytes())
    fake = demand.Demand(version="0.0", package_dir=str(tmp_path), binaries=(), apis=("aclnnAdd", "aclnnMul"),
                         unpaired=())
    monkeypatch.setattr(demand, "installed", lambda: fake)
    assert demand.main(["--pages", str(pages)]) == 0
    assert f"1 of them have a page in {pages} (1 parsed to a full IR)" in capsys.readouterr().out
