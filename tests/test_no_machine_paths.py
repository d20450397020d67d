"""No tracked file names a place on the machine it was made on: a clone elsewhere must work the
same, and finds the corpus through ACLNN_CORPUS or ../shared/corpus only (gen/locations.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gen.locations import REPOSITORY


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPOSITORY, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    return [REPOSITORY / name for name in listed.stdout.decode().split("\0") if name]


def test_no_tracked_file_names_the_directory_the_clone_sits_in():
    # The clone's parent (where ../shared/corpus sits here) is the machine-specific part of any
    # absolute path a tool or a person might paste into a file.
    machine = str(REPOSITORY.parent.resolve()) + "/"
    offending = []
    for path in tracked_files():
        if path.is_file() and not path.is_symlink() and machine.encode() in path.read_bytes():
            offending.append(path.relative_to(REPOSITORY).as_posix())
    assert offending == []
