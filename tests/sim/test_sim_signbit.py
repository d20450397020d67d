"""aclsim::Signbit (runtime/sim/include/aclnn_sim/math.h) in the simulator's BFLOAT16 block, compiled
as the generated units of aclsim_opapi are: GCC 12 failed on std::signbit there with an internal
compiler error ("unrecognizable insn"), which broke `make corpus`'s build (aclnnSignbit). The
sign bit of -0.0 and -NaN counts, as torch.signbit's does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = r"""
#include <cstdio>

#include "aclnn_sim/entry.h"
#include "aclnn_sim/math.h"

struct SignbitKernel {
  float operator()(float x) const { return aclsim::Signbit(x); }
};

int main() {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("f16c")) return 77;
  // BFLOAT16 bits: -0, 0, -1.5, 2, -NaN, NaN, -inf, inf, subnormals, then two past the AVX2 block's
  // step of 16 (its tail).
  const uint16_t in[18] = {0x8000, 0x0000, 0xbfc0, 0x4000, 0xffc0, 0x7fc0, 0xff80, 0x7f80, 0x8001,
                           0x0001, 0x8000, 0x0000, 0xbfc0, 0x4000, 0xffc0, 0x7fc0, 0x8001, 0x0001};
  uint16_t out[18];
  const SignbitKernel kernel;
  const void* inputs[1] = {in};
  aclsim::ElementBlock16Avx2<SignbitKernel, aclsim::BFloat16Pairs, 0>(&kernel, inputs, out, 18);
  for (uint16_t bits : out) std::printf("%04x ", bits);
  // The AVX-512 path's block (32 a step: all through its tail), where the CPU has it.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    aclsim::ElementBlock16Avx512<SignbitKernel, aclsim::BFloat16Pairs16, 0>(&kernel, inputs, out, 18);
    for (uint16_t bits : out) std::printf("%04x ", bits);
  }
  return 0;
}
"""


def test_signbit_of_bfloat16_lanes_compiles_and_counts_negative_zero_and_nan(tmp_path):
    compiler = shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    (tmp_path / "signbit.cpp").write_text(PROGRAM)
    # aclsim_opapi's flags (runtime/sim/CMakeLists.txt), the build type's -O3 then its -O2.
    flags = ["-O3", "-DNDEBUG", "-std=c++17", "-fno-trapping-math", "-fno-math-errno", "-fwrapv", "-O2"]
    includes = [f"-I{ROOT / d}" for d in ("runtime/include", "generated/include", "runtime/sim/include",
                                            "runtime/sim/src")]
    done = subprocess.run([compiler, *flags, *includes, str(tmp_path / "signbit.cpp"), "-o", str(tmp_path / "signbit")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    ran = subprocess.run([str(tmp_path / "signbit")], capture_output=True, text=True)
    if ran.returncode == 77:
        pytest.skip("no AVX2/F16C: the simulator does not take the BFLOAT16 block path here")
    one, zero = "3f80", "0000"  # BFLOAT16 1.0 and 0.0
    assert ran.stdout.split() in ([one, zero] * 9, [one, zero] * 18)
