"""Where a build's time goes: each generator stage's wall time, and the CPU time spent
linking terms (in whichever process rendered the page). The benchmark reads these from
the build it times, so stage times and build time come from the same run."""

from __future__ import annotations

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
