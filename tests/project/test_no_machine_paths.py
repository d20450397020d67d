"""No tracked file names a place on the machine it was made on: a clone elsewhere must work the
same, and finds the corpus through ACLNN_CORPUS or ../shared/corpus only (gen/locations.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gen.locations import REPOSITORY

# An absolute path into a home directory, a /work tree or root's home, on Linux, macOS or Windows:
# what a tool or a person pastes from their machine (the cases below). A path that only ends in
# such a word (opapi/work.h) is relative, not one of them.
MACHINE_PATH = re.compile(rb"(?<![\w.~/-])/(?:home|work|root|Users)/[\w.-]|\b[A-Za-z]:[\\/]+Users[\\/]", re.I)


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPOSITORY, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    return [REPOSITORY / name for name in listed.stdout.decode().split("\0") if name]


def machine_paths(data: bytes) -> list[str]:
    return [m.group().decode(errors="replace") for m in MACHINE_PATH.finditer(data)]


def test_no_tracked_file_names_a_machine_path():
    # The clone's parent (where ../shared/corpus sits here) is the machine-specific part of any
    # absolute path written from this checkout, wherever the machine keeps its clones.
    clone_parent = (str(REPOSITORY.parent.resolve()) + "/").encode()
    offending = {}
    for path in tracked_files():
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found = machine_paths(data) + ([clone_parent.decode()] if clone_parent in data else [])
            if found:
                offending[path.relative_to(REPOSITORY).as_posix()] = found[:3]
    assert offending == {}


@pytest.mark.parametrize("text", ["/" + "home/ann/corpus", "see /" + "work/shared/corpus/ops-math",
                                  "'/" + "root/.cache'", "/" + "Users/ann/x", "C:" + "\\Users\\ann"])
def test_machine_paths_are_seen(text):
    assert machine_paths(text.encode())


@pytest.mark.parametrize("text", ["opapi/work.h", "../shared/corpus", "/usr/local/Ascend/ascend-toolkit/latest",
                                  "a/home/b", "~/notes/x"])
def test_relative_and_system_paths_are_not_machine_paths(text):
    assert not machine_paths(text.encode())
