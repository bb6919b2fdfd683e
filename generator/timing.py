"""Where a build's time goes: each generator stage's wall time, and the CPU time spent
linking terms (in whichever process rendered the page). The benchmark reads these from
the build it times, so stage times and build time come from the same run."""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from typing import Iterator

stages: dict[str, float] = {}  # stage name -> seconds of wall time, summed over calls
link_cpu = 0.0  # seconds spent in link_html in this process (workers report theirs back)


@contextmanager
def stage(name: str) -> Iterator[None]:
    t = time.perf_counter()
    try:
        yield
    finally:
        stages[name] = stages.get(name, 0.0) + time.perf_counter() - t


def reset() -> None:
    global link_cpu
    stages.clear()
    link_cpu = 0.0


@contextmanager
def fewer_collections(young: int = 100_000) -> Iterator[None]:
    """Run the generator with the cycle collector's young generation 100x larger than
    Python's default of 700 allocations. The stages build hundreds of thousands of
    long-lived objects (documents, graph edges, pages) and almost no cycles, so the default
    spends its time re-examining survivors: 15-20% of the generator's time at 10,000
    entries (measured; the old thresholds come back afterwards)."""
    before = gc.get_threshold()
    gc.set_threshold(young, before[1], before[2])
    try:
        yield
    finally:
        gc.set_threshold(*before)
