"""Progress of the long stages (parsing a corpus, phase 1 of its APIs): tqdm bars on stderr, or none.

A progress function takes what a stage iterates over and a label, and gives it back (perhaps
wrapped in a bar); given None and a total, it gives a bar to `update` by hand.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterable, Optional

Progress = Callable[..., Any]  # (iterable | None, desc, total=None) -> iterable | bar


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def tqdm_progress(iterable: Optional[Iterable], desc: str, total: Optional[int] = None):
    from tqdm import tqdm

    if iterable is None:
        return tqdm(total=total, desc=desc, unit="api", file=sys.stderr)
    return tqdm(iterable, desc=desc, total=total, unit="page", file=sys.stderr)


def no_progress(iterable: Optional[Iterable], desc: str = "", total: Optional[int] = None):
    return _NoBar() if iterable is None else iterable
