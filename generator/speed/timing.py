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
def no_collections() -> Iterator[None]:
    """Run the generator without the cycle collector, and put it back as it was.

    The stages build hundreds of thousands of long-lived objects (documents, graph edges,
    pages) and tie almost none into cycles: what the collector finds after a build is a
    few small objects per document and the concept graph, which networkx's cached views
    make a cycle once the build lets go of it (tests/test_scale.py holds it to that). So
    collections during the build free next to nothing, and are not cheap: with the young generation at 100,000
    objects, the build spent 0.6-1.5 s more at 10,000 entries (six alternating runs; peak
    memory the same). The collector runs again as soon as the generator returns."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
