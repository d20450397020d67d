#!/bin/sh
# The simulator under AddressSanitizer + UndefinedBehaviorSanitizer, in one command:
#   runtime/sim/tests/asan.sh            (from anywhere; PYTHON defaults to the repo's .venv)
# Builds it with -DACLNN_SANITIZE=ON in build/sim-asan (kept between runs), then runs the C++
# tests, the seed pages' examples (built with the sanitizers) and the Python ctypes tests with
# libasan preloaded into the interpreter. Any sanitizer report fails the run.
set -eu
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
cd "$ROOT"

export ACLNN_SIM_SANITIZE=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1

"$PYTHON" -c "from tests.sim.sim_lib import session_build; session_build()"
echo "== C++ tests (ASan + UBSan + LeakSanitizer)"
build/sim-asan/cmake/tests/aclsim_tests

echo "== Python tests on the sanitized libraries (libasan preloaded; leaks of the interpreter not checked)"
# libasan must come first; libstdc++ right after it, or ASan cannot find the real __cxa_throw when
# the (uninstrumented) interpreter loads a C++ extension that throws (torch does).
PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)"
# The interpreter is not instrumented: leak checking would report CPython's own allocations.
LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 \
  "$PYTHON" -m pytest -q -p no:cacheprovider "$@" \
  tests/sim/test_sim_runtime.py tests/sim/test_sim_objects.py tests/sim/test_sim_phase1.py \
  tests/sim/test_sim_kernels.py tests/sim/test_sim_executor.py tests/sim/test_sim_examples.py tests/sim/test_sim_cpp.py
