"""The children test_multiprocessing.py's scripts start with torch.multiprocessing (spawn): functions of
an importable module, as spawn pickles them by name (a script run with `python -c` has none)."""

from __future__ import annotations

import torch


def read_write_and_answer(inbox, outbox):
    """Takes (tensor, neighbour, event) from the producer: waits for the event on its current stream,
    reads both tensors, adds 100 to the first in place and answers what it read, then a tensor of its
    own on the device (shared the other way); holds them until the producer says it has read them."""
    shared, neighbour, written = inbox.get()
    torch.npu.current_stream().wait_event(written)
    seen = shared.cpu(), neighbour.cpu()
    shared.add_(100)
    torch.npu.synchronize()
    ours = torch.arange(6, dtype=torch.float32, device="npu") * -1
    done = torch.npu.Event(interprocess=True)
    done.record()
    outbox.put((seen, ours, done))
    inbox.get()


def synchronize_on_parent_event(event, parent_to_child, child_to_parent):
    """PyTorch's test_event_multiprocess child: synchronises on an event the parent records."""
    child_to_parent.put(event.query())  # never recorded: complete
    parent_to_child.get()  # the parent recorded it behind a sleep
    event.synchronize()
    child_to_parent.put(event.query())
