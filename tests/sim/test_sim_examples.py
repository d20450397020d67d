"""The seed pages' 调用示例 programs, unmodified, on the simulator: each compiles against
runtime/include and its generated aclnnop/ header, links with -lascendcl -lnnopbase -lopapi, runs,
and prints the golden reference's values for the example's own inputs."""

import os
import re
import subprocess

import numpy as np
import pytest
import torch

from gen.parse.extractors.example_call import extract_example_call
from tests.sim import sim_lib
from tests.sim.sim_lib import ROOT, session_sim

SEEDS = ["aclnnLeakyReluBackward", "aclnnHardsigmoidBackward", "aclnnSeluBackward"]


@pytest.fixture(scope="module")
def sim():
    return session_sim()


def run_example(sim, api: str, tmp_path) -> list[float]:
    bound = sim.model.api(api)
    source = tmp_path / f"{bound.python_name}.cpp"
    source.write_text(bound.api.example, encoding="utf-8")
    binary = tmp_path / bound.python_name
    sanitize = ["-fsanitize=address,undefined"] if sim_lib.SANITIZE else []
    subprocess.run(["g++", "-std=c++17", *sanitize, f"-I{ROOT / 'runtime/include'}", f"-I{sim_lib.generated_dir()}", str(source),
                    f"-L{sim.libdir}", "-lascendcl", "-lnnopbase", "-lopapi", f"-Wl,-rpath,{sim.libdir}",
                    "-o", str(binary)], check=True, capture_output=True, text=True)
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # the program links the sanitizers itself
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return [float(v) for v in re.findall(r"result\[\d+\] is: (\S+)", result.stdout)]


def golden(sim, api: str) -> np.ndarray:
    """The semantics file's golden on the inputs the example's code creates."""
    bound = sim.model.api(api)
    call = extract_example_call(bound.api.example, bound.api)
    assert call is not None
    values = {}
    for param in bound.api.params:
        arg = call.arg(param.name)
        if arg is None:
            continue
        if arg.shape is not None:
            values[param.name] = torch.tensor(arg.values, dtype=torch.float32).reshape(arg.shape)
        elif param.kind.value == "bool":
            values[param.name] = bool(arg.values[0])
        else:
            values[param.name] = float(np.float32(arg.values[0]))  # the example's float scalar
    return eval(bound.semantics.golden, {"torch": torch, **values}).numpy()


@pytest.mark.parametrize("api", SEEDS)
def test_example_prints_the_golden_values(sim, api, tmp_path):
    printed = run_example(sim, api, tmp_path)
    expected = golden(sim, api).reshape(-1)
    assert len(printed) == expected.size
    np.testing.assert_allclose(printed, expected, atol=1e-6)  # printed with %f


def test_leaky_relu_backward_example_prints_2_3_4_5(sim, tmp_path):
    assert run_example(sim, "aclnnLeakyReluBackward", tmp_path) == [2.0, 3.0, 4.0, 5.0]
