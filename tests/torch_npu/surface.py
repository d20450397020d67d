"""The CANN surface an installed torch_npu needs, derived from its wheel (never written by hand).

- `libraries`: the shared objects its binaries link (ELF NEEDED) that neither torch, the wheel
  itself nor the C/C++ runtime provide: the CANN libraries a toolkit must hold;
- `imports`: the dynamic symbols its binaries import that those same providers do not define:
  torch_npu is linked with BIND_NOW, so every one must resolve when it is loaded;
- `opened`: the libraries it opens by name at run time (dlopen) without linking them: the C strings
  in its binaries that name a library (`libascendsk`, `libmsprofiler.so`, `/lib64/libms_tools_ext.so`),
  less what it links and what torch, the wheel and the C runtime provide. Each must be in the
  toolkit, or be one torch_npu does without (tests/torch_npu/test_surface.py says why, for each);
- `lookups`: the functions it finds by name at run time (dlsym): the C strings in its binaries that
  name a function declared in the CANN headers the wheel ships (`include/third_party/acl/inc` and
  `hccl/inc`). Intersecting with the declarations leaves out fragments and torch_npu's own strings
  (`HcclAllGH`, `aclprofFH`), and keeps names it looks up only in newer CANN releases. The wheel
  does not ship nnopbase's header (aclnn/acl_meta.h: aclCreateTensor, aclGetViewShape, ...), which
  op-plugin looks up in libopapi.so too: its declarations are taken from runtime/include/aclnn.

The aclnn operator APIs it looks up are the demand (gen/corpus/demand.py): what computes is a
matter of coverage, not of the runtime surface, and is reported, not required.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gen.corpus import demand

# The libraries of the C and C++ runtime, which every Linux provides.
SYSTEM_LIBRARIES = re.compile(r"^(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[\w-]*)\.so")
# Where a prototype declares a function in the shipped headers: a name in front of "(" at the
# start of a declaration (after the return type and the visibility macro).
DECLARATION = re.compile(r"\b((?:acl|rt|Msprof|Hccl|hccl)[A-Za-z0-9_]*)\s*\(")
# A library named by a C string, with or without its suffix: torch_npu's loader appends ".so" to
# the names it registers. The look-behind keeps out names inside longer words and paths' middles.
LIBRARY_STRING = re.compile(rb"(?<![A-Za-z0-9_/.])(?:/lib64/)?(lib[a-z0-9_]*[a-z0-9])(?:\.so)?\x00")
C_STRING = re.compile(rb"(?<![A-Za-z0-9_])((?:acl|rt|Msprof|Hccl)[A-Za-z0-9_]{2,})\x00")


@dataclass(frozen=True)
class Surface:
    package_dir: Path
    libraries: frozenset[str]
    imports: frozenset[str]
    opened: frozenset[str]
    lookups: frozenset[str]


def _dynamic(binary: Path, *flags: str) -> list[str]:
    out = subprocess.run(["nm", "-D", *flags, str(binary)], check=True, capture_output=True, text=True).stdout
    return [line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()]


def needed(binary: Path) -> list[str]:
    out = subprocess.run(["readelf", "-d", str(binary)], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def defined(binary: Path) -> set[str]:
    return set(_dynamic(binary, "--defined-only"))


REPOSITORY = Path(__file__).resolve().parents[2]


def declared_functions(package_dir: Path) -> set[str]:
    headers = package_dir / "include" / "third_party"
    names: set[str] = set()
    for root in (headers / "acl" / "inc", headers / "hccl" / "inc", REPOSITORY / "runtime" / "include" / "aclnn"):
        for header in root.rglob("*.h"):
            text = re.sub(r"/\*.*?\*/|//[^\n]*", "", header.read_text(errors="replace"), flags=re.S)
            names.update(DECLARATION.findall(text))
    return names


def derive(package_dir: Path) -> Surface:
    # The providers torch_npu links against: torch's own libraries (found, not imported: importing
    # torch would load torch_npu).
    torch_spec = importlib.util.find_spec("torch")
    assert torch_spec is not None and torch_spec.submodule_search_locations
    torch_dir = Path(list(torch_spec.submodule_search_locations)[0])
    binaries = demand.binaries(package_dir)
    own = {b.name for b in binaries}
    torch_libs = sorted(torch_dir.joinpath("lib").glob("*.so*"))
    provided: set[str] = set()
    for library in [*binaries, *torch_libs]:
        provided |= defined(library)
    provided_names = own | {p.name for p in torch_libs} | {"libtorch_python.so"}
    libraries = {name for b in binaries for name in needed(b)
                 if name not in provided_names and not SYSTEM_LIBRARIES.match(name)}
    imports = set()
    for b in binaries:
        imports |= {s for s in _dynamic(b, "--undefined-only") if re.match(r"(acl|rt|Msprof|Hccl)", s)}
    imports -= provided
    declared = declared_functions(package_dir)
    strings: set[str] = set()
    for b in binaries:
        strings |= {m.decode() for m in C_STRING.findall(b.read_bytes())}
    lookups = {name for name in strings & declared if not name.startswith("aclnn")}
    linked = {name for b in binaries for name in needed(b)}
    opened = {f"{stem}.so" for b in binaries for stem in (m.decode() for m in LIBRARY_STRING.findall(b.read_bytes()))}
    opened = {name for name in opened
              if name not in linked | provided_names and not SYSTEM_LIBRARIES.match(name)
              and not name.startswith(("libtorch", "libc10"))}
    return Surface(package_dir, frozenset(libraries), frozenset(imports), frozenset(opened), frozenset(lookups))
