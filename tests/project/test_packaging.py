"""A wheel of the generator (`pip install .`, not editable) carries what it reads besides its
Python: generating from it, in a directory far from the clone, applies the semantics library to
the page (the op is simulated, its table named by its place in the repository), renders the
templates and reads the ABI's values, as the clone does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# What pyproject.toml builds the wheel from; the rest of the clone stays behind.
SOURCES = ("pyproject.toml", "README.md", "gen", "semantics", "templates", "runtime/include", "runtime/python")
PAGE = REPO / "op_docs" / "aclnnMean.md"


def _install(tmp_path: Path) -> Path:
    # A copy of the sources: the build writes build/ and *.egg-info beside them, not in the clone.
    source = tmp_path / "source"
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / name, source / name)
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--disable-pip-version-check", "--target", str(target), str(source)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def test_a_wheel_of_the_generator_finds_the_semantics_library_and_its_templates(tmp_path):
    site = _install(tmp_path)
    installed = site / "gen"
    packages = sorted(p.parent.relative_to(REPO).as_posix() for p in (REPO / "gen").rglob("__init__.py"))
    assert [p for p in packages if not (site / p / "__init__.py").is_file()] == []
    assert not (site / "generated").exists()  # the generated package is not the generator's
    assert (installed / "_data" / "semantics" / "reductions.toml").read_bytes() == \
        (REPO / "semantics" / "reductions.toml").read_bytes()

    docs, out = tmp_path / "docs", tmp_path / "out"
    docs.mkdir()
    shutil.copy(PAGE, docs)
    # The clone is out of reach: another working directory, and only the wheel on the path.
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-c", "import gen.locations as l; print(l.SEMANTICS_LIBRARY)"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert Path(done.stdout.strip()) == installed / "_data" / "semantics", done.stderr
    done = subprocess.run([sys.executable, "-m", "gen", "generate", str(docs), "--out", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr

    (api,) = json.loads((out / "aclnn" / "_apis.json").read_text())["apis"]
    assert api["name"] == "aclnnMean" and api["simulated"] is True
    assert "aclsim::PlanReduce" in (out / "sim" / "ops_000.cpp").read_text()
    suite = (out / "tests" / "test_mean.py").read_text()
    assert "semantics/reductions.toml" in suite and "torch.mean(" in suite  # the library's table, its golden
    # runtime/python's modules are copied into the package, the ABI's values read from runtime/include
    assert (out / "tests" / "_aclnn_testing.py").is_file() and (out / "aclnn" / "_runtime.py").is_file()
    assert "ACL_FLOAT16" in (out / "aclnn" / "_dtypes.py").read_text()
