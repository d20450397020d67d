"""npu tensors and events shared between processes with torch.multiprocessing (spawn), as torch_npu
shares them: the producer's allocation exported by key (aclrtIpcMemGetExportKey), the consumer mapping
it (aclrtIpcMemImportByKey) and unmapping it when its tensor dies (aclrtIpcMemClose); with expandable
segments (PYTORCH_NPU_ALLOC_CONF=expandable_segments:True) the segment's physical memory exported by
shareable handle (aclrtMemExportToShareableHandle), the consumer importing it
(aclrtMemImportFromShareableHandle) and mapping it into a range of its own (aclrtMapMem); events made
with ACL_EVENT_IPC and opened by handle (aclrtIpcGetEventHandle, aclrtIpcOpenEventHandle)."""

from pathlib import Path

import pytest

PEERS = str(Path(__file__).resolve().parent)


# The allocator's configuration, and the memory file (ipc.h) the shared memory is then a mapping of.
@pytest.mark.parametrize("alloc_conf, memory_file", [
    (None, "/memfd:aclsim-ipc-memory (deleted)"),
    ("expandable_segments:True", "/memfd:aclsim-physical (deleted)"),
], ids=["allocations", "expandable_segments"])
def test_a_tensor_and_an_event_shared_both_ways(run_npu, alloc_conf, memory_file):
    # The consumer reads what the producer wrote (behind the event it waits for), writes into the same
    # memory, and shares a tensor of its own back: every value asserted on both sides. The memory each
    # side maps of the other's is the memory file of the allocator's way (torch_npu exports a caching
    # allocator's segment by key, an expandable segment's physical memory by shareable handle).
    run_npu(f"""
        import sys
        import torch.multiprocessing as mp
        sys.path.insert(0, {PEERS!r})
        import ipc_peers

        context = mp.get_context("spawn")
        inbox, outbox = context.Queue(), context.Queue()
        child = context.Process(target=ipc_peers.read_write_and_answer, args=(inbox, outbox))
        child.start()
        x = torch.arange(12, dtype=torch.float32).npu()
        x.mul_(2)
        # Another tensor of the caching allocator's same segment: one exported allocation, two storages.
        neighbour = torch.full((5,), 7, dtype=torch.int32, device="npu")
        segment = [s for s in torch.npu.memory_snapshot() if s["address"] <= x.data_ptr() < s["address"] + s["total_size"]]
        assert len(segment) == 1 and 0 < neighbour.data_ptr() - segment[0]["address"] < segment[0]["total_size"]
        assert segment[0]["is_expandable"] == {alloc_conf is not None}
        written = torch.npu.Event(interprocess=True)
        written.record()
        inbox.put((x[2:], neighbour, written))  # a view: its offset in the allocation travels with it
        (seen, seen_neighbour), their_mapping, theirs, done = outbox.get(timeout=120)
        assert torch.equal(seen, torch.arange(2, 12, dtype=torch.float32) * 2), seen
        assert torch.equal(seen_neighbour, torch.full((5,), 7, dtype=torch.int32)), seen_neighbour
        assert their_mapping == {memory_file!r}, their_mapping
        assert ipc_peers.backing_file(theirs.data_ptr()) == {memory_file!r}
        torch.npu.current_stream().wait_event(done)
        assert torch.equal(theirs.cpu(), torch.arange(6, dtype=torch.float32) * -1), theirs
        expected = torch.arange(12, dtype=torch.float32) * 2
        expected[2:] += 100
        assert torch.equal(x.cpu(), expected), x
        assert theirs.device.type == "npu" and theirs.data_ptr() != x.data_ptr()
        assert torch.equal(neighbour.cpu(), torch.full((5,), 7, dtype=torch.int32))
        del theirs, done
        inbox.put(None)
        child.join(120)
        assert child.exitcode == 0, child.exitcode
        torch.npu.ipc_collect()
    """, env={"PYTORCH_NPU_ALLOC_CONF": alloc_conf} if alloc_conf else None, fresh=True)


def test_an_event_recorded_in_the_parent_is_waited_for_in_the_child(run_npu):
    # PyTorch's test_event_multiprocess, on npu: the event's record waits behind a sleep on the parent's
    # stream; the child's query sees it pending, its synchronisation returns once the parent's stream
    # reached it. torch.npu._sleep is aclnnSleep, whose page supports Ascend 950 alone.
    run_npu(f"""
        import sys
        import torch.multiprocessing as mp
        sys.path.insert(0, {PEERS!r})
        import ipc_peers

        context = mp.get_context("spawn")
        parent_to_child, child_to_parent = context.Queue(), context.Queue()
        event = torch.npu.Event(enable_timing=False, interprocess=True)
        child = context.Process(target=ipc_peers.synchronize_on_parent_event, args=(event, parent_to_child, child_to_parent))
        child.start()
        assert child_to_parent.get(timeout=120) is True
        import time
        start = time.monotonic()
        torch.npu._sleep(int(1.65e9 * 0.5))
        event.record()
        parent_to_child.put(0)
        # Asked before the sleep can have ended, the event is pending (a loaded machine may ask late).
        assert not event.query() or time.monotonic() - start >= 0.49
        assert child_to_parent.get(timeout=120) is True
        assert event.query()
        child.join(120)
        assert child.exitcode == 0, child.exitcode
    """, env={"ACLNN_SIM_SOC": "Ascend950"})
