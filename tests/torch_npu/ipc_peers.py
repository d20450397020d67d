"""The children test_multiprocessing.py's scripts start with torch.multiprocessing (spawn): functions of
an importable module, as spawn pickles them by name (a script run with `python -c` has none)."""

from __future__ import annotations

import torch


def backing_file(address: int) -> str:
    """What this process's memory at `address` is a mapping of (/proc/self/maps' path): the simulator's
    memory files say how the memory came from the other process (ipc.h: an allocation exported by key,
    or physical memory exported by shareable handle)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            start, end = (int(bound, 16) for bound in fields[0].split("-"))
            if start <= address < end:
                return fields[5].strip() if len(fields) == 6 else ""
    raise LookupError(f"{address:#x} is not mapped")


def read_write_and_answer(inbox, outbox):
    """Takes (tensor, neighbour, event) from the producer: waits for the event on its current stream,
    reads both tensors, adds 100 to the first in place and answers what it read and the file its memory
    maps, then a tensor of its own on the device (shared the other way); holds them until the producer
    says it has read them."""
    shared, neighbour, written = inbox.get()
    torch.npu.current_stream().wait_event(written)
    seen = shared.cpu(), neighbour.cpu()
    shared.add_(100)
    torch.npu.synchronize()
    ours = torch.arange(6, dtype=torch.float32, device="npu") * -1
    done = torch.npu.Event(interprocess=True)
    done.record()
    outbox.put((seen, backing_file(shared.data_ptr()), ours, done))
    inbox.get()


def synchronize_on_parent_event(event, parent_to_child, child_to_parent):
    """PyTorch's test_event_multiprocess child: synchronises on an event the parent records."""
    child_to_parent.put(event.query())  # never recorded: complete
    parent_to_child.get()  # the parent recorded it behind a sleep
    event.synchronize()
    child_to_parent.put(event.query())
