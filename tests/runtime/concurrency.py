"""Running a test's work on several threads at once."""

from __future__ import annotations

import threading
from typing import Callable


def run_in_threads(work: Callable[[int], None], count: int) -> None:
    """`work(0)`, ..., `work(count - 1)`, each on a thread of its own, all started before any is
    joined; returns when every one has returned. `work` reports its failures itself (an exception
    ends only its thread)."""
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
