"""Compiling a corpus's generated sources, and blaming the APIs a compile error comes from.

The simulator and the extension are built with CMake and the venv's Ninja. A translation unit
that fails does not lose the others: Ninja keeps going (-k 0), the compiler's errors are
attributed to the APIs whose wrapper or entry they point into (each generated unit marks where
an API starts), and those APIs are left out with the first error as their reason (`without`), so
that the rest can be generated and built again.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from gen.corpus.records import COMPILE_ERROR, first_line
from gen.model import Model, Skipped

ROOT = Path(__file__).resolve().parents[2]
# Rounds of "build, leave out the APIs at fault, build again" before the run gives up on a unit.
MAX_BUILD_ROUNDS = 6


def without(model: Model, excluded: dict[str, str]) -> Model:
    kept = tuple(b for b in model.apis if b.name not in excluded)
    skipped = model.skipped + tuple(Skipped(b.name, b.page.source, excluded[b.name])
                                    for b in model.apis if b.name in excluded)
    return dataclasses.replace(model, apis=kept, skipped=skipped)


_API_MARK = re.compile(r"^// ---- (aclnn\w+) \(")
_LOCATION = re.compile(r"^(?P<file>[^\s:]+\.(?:cpp|h)):(?P<line>\d+):(?:\d+:)?\s*(?P<text>.*)$")


def api_spans(source: Path) -> list[tuple[int, str]]:
    """(first line, API) of each API's section of a generated unit, in file order."""
    spans = []
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
        m = _API_MARK.match(line)
        if m:
            spans.append((number, m.group(1)))
    return spans


def api_at(spans: list[tuple[int, str]], line: int) -> Optional[str]:
    found = None
    for start, api in spans:
        if start > line:
            break
        found = api
    return found


@dataclass
class BuildResult:
    ok: bool
    culprits: dict[str, str] = field(default_factory=dict)  # API -> the compiler's first error about it
    unattributed: list[str] = field(default_factory=list)  # failures no API could be blamed for
    seconds: float = 0.0
    units_compiled: int = 0


def configure(build_dir: Path, generated: Path) -> None:
    cmake = Path(sys.executable).parent / "cmake"
    ninja = Path(sys.executable).parent / "ninja"
    log = build_dir.with_suffix(".configure.log")
    build_dir.mkdir(parents=True, exist_ok=True)
    command = [str(cmake), "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
               f"-DCMAKE_MAKE_PROGRAM={ninja}", f"-DPython_EXECUTABLE={sys.executable}",
               "-DCMAKE_BUILD_TYPE=Release", f"-DACLNN_GENERATED_DIR={generated.resolve()}",
               "-DACLNN_BUILD_EXAMPLES=OFF"]
    done = subprocess.run(command, capture_output=True, text=True)
    log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"CMake configure failed (see {log}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def failed_blocks(output: str) -> list[tuple[str, str]]:
    """(the failed Ninja edge's line, the compiler output under it) for each FAILED edge."""
    blocks: list[tuple[str, list[str]]] = []
    for line in output.splitlines():
        if line.startswith("FAILED: "):
            blocks.append((line, []))
        elif blocks and not re.match(r"^\[\d+/\d+\] ", line) and not line.startswith("ninja: "):
            blocks[-1][1].append(line)
    return [(head, "\n".join(body)) for head, body in blocks]


def attribute(body: str, generated: Path) -> dict[str, str]:
    """The APIs a compiler output blames: each error (or the 'required from here' note that leads
    to it) pointing into a generated unit, mapped to the API section holding that line."""
    spans_of: dict[str, list[tuple[int, str]]] = {}
    culprits: dict[str, str] = {}
    pending: list[str] = []  # unit locations seen since the last error ("required from here" chains)
    for line in body.splitlines():
        m = _LOCATION.match(line.strip())
        if not m:
            continue
        path = Path(m.group("file"))
        in_unit = path.suffix == ".cpp" and path.resolve().is_relative_to(generated.resolve())
        api = None
        if in_unit:
            key = str(path.resolve())
            if key not in spans_of:
                spans_of[key] = api_spans(path)
            api = api_at(spans_of[key], int(m.group("line")))
        if api:
            pending.append(api)
        if "error:" in m.group("text"):
            message = m.group("text").split("error:", 1)[1].strip()
            for blamed in pending[-1:]:
                culprits.setdefault(blamed, f"{COMPILE_ERROR}: {first_line(message)}")
            pending.clear()
    return culprits


def build(build_dir: Path, generated: Path, jobs: int, log) -> BuildResult:
    ninja = Path(sys.executable).parent / "ninja"
    start = time.perf_counter()
    # aclsim_hccl too: the mc2 APIs' calls name a communicator the harness makes through libhccl.
    done = subprocess.run([str(ninja), "-C", str(build_dir), "-k", "0", f"-j{jobs}", "aclnn_python", "aclsim_opapi",
                           "aclsim_hccl"], capture_output=True, text=True)
    output = done.stdout + done.stderr
    log(output)
    result = BuildResult(ok=done.returncode == 0, seconds=time.perf_counter() - start,
                         units_compiled=len(re.findall(r"Building CXX object .*ops_\d+\.cpp", output)))
    if result.ok:
        return result
    for head, body in failed_blocks(output):
        culprits = attribute(body, generated)
        if culprits:
            result.culprits.update({k: v for k, v in culprits.items() if k not in result.culprits})
        else:
            first_error = next((l for l in body.splitlines() if "error" in l), body[:300])
            result.unattributed.append(f"{head[8:]}: {first_line(first_error)}")
    return result
