"""The simulator's C++ tests (runtime/sim/tests/sim_tests.cpp), linked like a page's example."""

import subprocess

from tests.sim.sim_lib import session_build, sim_build_dir


def test_cpp_tests_pass():
    session_build()
    result = subprocess.run([str(sim_build_dir() / "cmake" / "tests" / "aclsim_tests")], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ", 0 failures" in result.stdout
