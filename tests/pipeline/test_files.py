"""gen/emit/files.py: a file is written only where its content changed, and a changed file ends up
holding exactly the new content, whatever its old length and wherever it first differs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gen.emit import files as files_module
from gen.emit.files import FileManager

OLD = b"0123456789" * 5


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Chunks of 8 bytes, so that a 50-byte file is compared over several.
    monkeypatch.setattr(files_module, "_COMPARED_BYTES", 8)


@pytest.mark.parametrize("new", [
    b"X" + OLD[1:],  # differs in the first chunk
    OLD[:-1] + b"X",  # in the last
    OLD[:20] + b"X" + OLD[21:],  # in a chunk between
    OLD[:17],  # shorter
    OLD + b"tail",  # longer
    b"",  # empty
], ids=["first-chunk", "last-chunk", "middle-chunk", "shorter", "longer", "empty"])
def test_a_changed_file_holds_the_new_content(tmp_path: Path, new: bytes) -> None:
    (tmp_path / "f.bin").write_bytes(OLD)
    files = FileManager(tmp_path)
    files.write("f.bin", new)
    assert (tmp_path / "f.bin").read_bytes() == new
    assert files.changed == ["f.bin"]


def test_an_unchanged_file_is_not_written(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(OLD)
    os.utime(target, ns=(1, 1))
    files = FileManager(tmp_path)
    files.write("f.bin", OLD)
    assert files.changed == [] and target.stat().st_mtime_ns == 1


def test_a_dry_run_says_what_changed_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "f.bin").write_bytes(OLD)
    files = FileManager(tmp_path, dry_run=True)
    files.write("f.bin", OLD[:-1] + b"X")
    files.write("new/g.txt", "new file")
    assert files.changed == ["f.bin", "new/g.txt"]
    assert (tmp_path / "f.bin").read_bytes() == OLD and not (tmp_path / "new").exists()


def test_a_file_removed_after_its_directory_was_listed_is_made_anew(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "b.txt").write_text("b")
    files = FileManager(tmp_path)
    files.write("a.txt", "A")  # lists the directory, b.txt included
    (tmp_path / "b.txt").unlink()
    files.write("b.txt", "B")
    assert (tmp_path / "b.txt").read_text() == "B" and files.changed == ["a.txt", "b.txt"]
