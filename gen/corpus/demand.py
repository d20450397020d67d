"""The aclnn APIs a framework backend calls: derived from an installed torch_npu wheel's binaries.

torch_npu's op-plugin does not link the aclnn functions: it looks each one up by name with
`dlsym` in `libopapi.so` (its `EXEC_NPU_CMD` macro names `aclnnXxxGetWorkspaceSize` and
`aclnnXxx`), so the names sit in its shared objects as C strings. What counts, read from the
bytes of the wheel's own shared objects (`BINARIES`), never by importing torch_npu (its import
needs the CANN libraries):

- a referenced name is a whole identifier `aclnn[A-Z][A-Za-z0-9_]*` ended by a NUL, with no
  identifier character before it. The NUL makes it a C string of its own, or the tail of a
  longer one that the linker merged it into ("... please upgrade CANN to support aclnnXxx");
  a run of those characters inside other bytes (an instruction's immediate, `aclnnLogH`) or
  followed by more text (`aclnnNotFound(val)`) is a fragment, not a name;
- an API is a two-phase pair: `aclnnXxx` and `aclnnXxxGetWorkspaceSize` both referenced, one API
  `aclnnXxx`, the pair op-plugin looks up for each call;
- the other referenced names (single-phase utilities such as `aclnnSetPytorchRandom`, helpers
  such as `aclnnXxxGetMaxWorkspaceSize`, and names of torch_npu's own sentinels) are kept apart,
  as `unpaired`, and are not APIs of the demand.

    python -m gen.corpus.demand [--list] [--pages DIR]
    python -m gen.corpus.report build/corpus-report.json      a report's demand table
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence

from gen.corpus.records import PHASE1

DISTRIBUTION = "torch-npu"
PACKAGE = "torch_npu"
# The shared objects of the wheel that hold op-plugin's lookups (libtorch_npu.so), relative to the
# package directory. torchair's graph-mode objects under dynamo/ call GE, not aclnn.
BINARIES = ("_C*.so", "lib/*.so")
# A whole identifier ended by a NUL; the lookbehind refuses the tail of a longer identifier.
REFERENCED_NAME = re.compile(rb"(?<![A-Za-z0-9_])aclnn[A-Z][A-Za-z0-9_]*(?=\x00)")
NOT_INSTALLED = (f"{PACKAGE} is not installed in this Python (pip install {DISTRIBUTION}): "
                 "no demand table")


@dataclass(frozen=True)
class Demand:
    """The aclnn APIs one torch_npu release references, and where they were read."""

    version: str
    package_dir: str
    binaries: tuple[str, ...]  # the files read, relative to package_dir
    apis: tuple[str, ...]  # sorted: the two-phase pairs, by the phase-2 name
    unpaired: tuple[str, ...]  # sorted: referenced names that are neither an API nor its phase-1 name

    @property
    def source(self) -> str:
        return f"{PACKAGE} {self.version}"


def referenced_names(data: bytes) -> set[str]:
    """The aclnn names a binary holds as C strings (see the module's docstring)."""
    return {m.group().decode("ascii") for m in REFERENCED_NAME.finditer(data)}


def two_phase_apis(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """The APIs among `names` (each `aclnnXxx` whose `aclnnXxxGetWorkspaceSize` is there too) and
    the names left over, both sorted."""
    names = set(names)
    apis = {name for name in names if name + PHASE1 in names}
    paired = apis | {api + PHASE1 for api in apis}
    return sorted(apis), sorted(names - paired)


def binaries(package_dir: Path) -> list[Path]:
    return sorted({path for pattern in BINARIES for path in package_dir.glob(pattern) if path.is_file()})


def from_package(package_dir: Path, version: str = "") -> Demand:
    """The demand of the torch_npu package installed at `package_dir`: a function of its files."""
    files = binaries(package_dir)
    names: set[str] = set()
    for path in files:
        names |= referenced_names(path.read_bytes())
    apis, unpaired = two_phase_apis(names)
    return Demand(version=version or "unknown", package_dir=str(package_dir),
                  binaries=tuple(str(p.relative_to(package_dir)) for p in files),
                  apis=tuple(apis), unpaired=tuple(unpaired))


def installed_package() -> Optional[Path]:
    """The directory of the torch_npu this Python would import, found without importing it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def installed() -> Optional[Demand]:
    """The installed torch_npu's demand, or None when there is none (`NOT_INSTALLED` says so)."""
    package_dir = installed_package()
    if package_dir is None:
        return None
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = ""
    return from_package(package_dir, version)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gen.corpus.demand", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print the APIs, one a line")
    parser.add_argument("--pages", type=Path, default=None,
                        help="a directory of pages (the corpus): how many of the APIs it documents, parsing only")
    args = parser.parse_args(argv)
    demand = installed()
    if demand is None:
        print(NOT_INSTALLED)
        return 0
    print(f"{demand.source} ({demand.package_dir}): {len(demand.apis)} aclnn APIs referenced "
          f"in {', '.join(demand.binaries)}; {len(demand.unpaired)} other aclnn names: {', '.join(demand.unpaired)}")
    if args.list:
        print("\n".join(demand.apis))
    if args.pages:
        from gen import pipeline
        from gen.corpus.records import page_records

        records = page_records(pipeline.merge(pipeline.parse(pipeline.discover([args.pages]).pages)))
        documented = {r.api for r in records if r.api} & set(demand.apis)
        parsed = {r.api for r in records if r.parsed} & documented
        print(f"{len(documented)} of them have a page in {args.pages} ({len(parsed)} parsed to a full IR); "
              "how far they get: make corpus")
    return 0


if __name__ == "__main__":
    sys.exit(main())
