"""The advance_step family (aclnnAdvanceStep, torch_npu.npu_advance_step_flashattn without speculative tokens) on the
edges the generated suite's one valid call leaves: the page's example shapes [numSeqs, 1], blockSize 1, and the
refusals by name: its shape rules (561002), a block index past blockTables and a negative length in phase 2."""

from __future__ import annotations

import pytest

from tests.support import bindings_build
from tests.support.op_docs_process import check

pytestmark = pytest.mark.skipif(not bindings_build.real_simulator(), reason="phase 2 needs the simulator")


def test_advance_step_updates_the_queries_in_place_and_refuses_by_name():
    check(r'''
def step(seqs=4, queries=3, block=1, lens=(2, 0, 1, 7), rows=3, blocks=3, shape=lambda n: (n, 1)):
    col = lambda v: aclnn.to_device(np.array(v, np.int64).reshape(shape(len(v))))
    tokens, positions, seq_lens, slots = col([9] * 4), col([8] * 4), col(list(lens)), col([7] * 4)
    tables = np.arange(4 * blocks, dtype=np.int64).reshape(4, blocks) * 10
    aclnn.advance_step(tokens, np.array([[1], [2], [3]][:rows], np.int64), positions, seq_lens, slots, tables,
                       seqs, queries, block)
    return [host(t).reshape(-1).tolist() for t in (tokens, positions, seq_lens, slots)]
# blockSize 1: slot = blockTables[i, n] * 1
assert step() == [[1, 2, 3, 9], [2, 0, 1, 8], [3, 1, 2, 7], [20, 30, 70, 7]], step()
assert step(shape=lambda n: (n,)) == step()
refused(lambda: step(seqs=3), 561002, ["numSeqs"])
refused(lambda: step(rows=2), 561002, ["sampledTokenIds"])
refused(lambda: step(lens=(2, 0, 3, 7)), 507015, ["blockTables", "block 3"])
refused(lambda: step(lens=(2, -1, 1, 7)), 507015, ["seqLens", "-1"])
''')
