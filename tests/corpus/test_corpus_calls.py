"""gen.corpus.calls completes a suite's valid call for the corpus: out= arrays it must pass take the
golden's shapes (a reduction's out is not its input's shape), and a dtype the simulated chip's own
list lacks moves to one it lists (aclnnBatchMatMul takes no FLOAT on Ascend910B)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from gen.corpus.calls import documented_on, result_shapes


def _param(name: str, kind: str = "tensor") -> SimpleNamespace:
    return SimpleNamespace(name=name, kind=kind)


def test_out_arrays_take_the_goldens_shapes():
    op = SimpleNamespace(results=(_param("out"), _param("indices"), _param("names", "tensor_list")))
    expected = (np.zeros((2,)), np.zeros((2,), np.int64), [np.zeros(3)])
    assert result_shapes(op, expected) == {"out": (2,), "indices": (2,)}


def test_a_dtype_the_chip_lacks_moves_to_one_it_lists_for_every_tensor_of_that_dtype():
    lists = {"self": ("FLOAT16", "BFLOAT16"), "mat2": ("FLOAT16", "BFLOAT16"), "bias": ()}
    op = SimpleNamespace(inputs=(_param("self"), _param("mat2"), _param("bias"), _param("alpha", "scalar")),
                         documented=lambda soc, name: lists.get(name, ()))
    case = SimpleNamespace(dtypes={"self": "FLOAT", "mat2": "FLOAT", "bias": "FLOAT", "alpha": "FLOAT"})
    # bias lists nothing on the chip (no list: any), so it moves with the others; so does the scalar.
    assert documented_on(op, case, "Ascend910B") == {"self": "FLOAT16", "mat2": "FLOAT16", "bias": "FLOAT16",
                                                     "alpha": "FLOAT16"}
    listed = SimpleNamespace(dtypes={"self": "FLOAT16", "mat2": "FLOAT16"})
    assert documented_on(op, listed, "Ascend910B") == {}
