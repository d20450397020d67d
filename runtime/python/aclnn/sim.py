"""The simulator as a CANN toolkit, for programs that look for CANN (torch_npu, a framework's build).

    python -m aclnn.sim home        # prints the directory laid out like a CANN toolkit
    source "$(python -m aclnn.sim home)/set_env.sh"

The directory holds `lib64/` (the simulator's libraries under CANN's file names: libascendcl.so,
libopapi.so, libnnopbase.so, libhccl.so, libacl_op_compiler.so, ...), the `runtime/`, `compiler/`
and `opp/` directories frameworks check for, and `set_env.sh`, which sets the variables CANN's own
script sets (ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME, ASCEND_OPP_PATH, LD_LIBRARY_PATH). It is made
by the build, next to the simulator's libraries (`ACLNN_SIM_DIR`, else the package's `_sim/`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["home", "environment"]


def _sim_dir() -> Path:
    configured = os.environ.get("ACLNN_SIM_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parent / "_sim"


def home() -> Path:
    """The simulator's toolkit directory; FileNotFoundError (naming where it looked) when the
    simulator is not built there."""
    toolkit = _sim_dir() / "toolkit"
    if not (toolkit / "set_env.sh").is_file() or not (toolkit / "lib64" / "libascendcl.so").exists():
        raise FileNotFoundError(f"no simulator toolkit at {toolkit}: build the simulator (make build), "
                                "or set ACLNN_SIM_DIR to the directory of its libraries")
    return toolkit


def environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (default: os.environ) as `source set_env.sh` leaves it: for starting a process that
    finds the simulator as it would find CANN (subprocess.run(..., env=aclnn.sim.environment())).
    The script is the one home of those variables: it is run, not restated."""
    script = home() / "set_env.sh"
    listing = subprocess.run(["bash", "-c", 'source "$1" && env -0', "set_env", str(script)],
                             env=dict(os.environ if base is None else base), check=True,
                             capture_output=True).stdout
    return dict(entry.split("=", 1) for entry in listing.decode().split("\0") if "=" in entry)


def main(argv: list[str]) -> int:
    if argv != ["home"]:
        print("usage: python -m aclnn.sim home", file=sys.stderr)
        return 2
    try:
        print(home())
    except FileNotFoundError as error:
        print(f"aclnn.sim: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
