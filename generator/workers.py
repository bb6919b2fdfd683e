"""Spread independent per-entry work over the machine's cores.

`fork_map(fn, items)` is `[fn(x) for x in items]`, computed by forked processes that
inherit `fn` and `items` (so neither has to be picklable; only the results travel back)
and returned in order, so the output is the same as the serial loop's (the build's
reproducibility test compares a parallel build with a serial one byte for byte).

It runs serially off Linux (Windows has no fork; macOS's system libraries are not
fork-safe), when there are too few items to pay for the processes, when
`ATLAS_WORKERS=1`, and under `mkdocs serve`, whose server threads make forking unsafe.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 64  # below this, starting processes costs more than it saves
serial_only = False  # set under `mkdocs serve`
_JOB: dict[str, Any] = {}  # what the forked workers read: inherited, never pickled


def count(option: int = 0) -> int:
    """How many processes to use: ATLAS_WORKERS, else `option`, else one per core."""
    # Linux only: macOS offers fork, but its system libraries are not safe to fork into.
    if serial_only or not sys.platform.startswith("linux") or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    env = os.environ.get("ATLAS_WORKERS", "").strip()
    n = int(env) if env.isdigit() else option
    if n <= 0:
        n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return n


def fork_map(fn: Callable[[T], R], items: Sequence[T], workers: int | None = None,
             min_items: int = MIN_ITEMS) -> list[R]:
    """[fn(x) for x in items], on `workers` forked processes when it is worth it."""
    n = count() if workers is None else workers
    if n < 2 or len(items) < min_items or _JOB:  # _JOB set: already inside a worker
        return [fn(x) for x in items]
    size = max(4, len(items) // (n * 32))  # small chunks keep both cores busy to the end
    chunks = [range(i, min(i + size, len(items))) for i in range(0, len(items), size)]
    _JOB.update(fn=fn, items=items)
    # Objects that exist before the fork go to the permanent generation: otherwise every
    # collection in a worker writes to all of them, copying the parent's whole heap page
    # by page (copy-on-write) and scanning it again and again. (No collection first: at
    # 10,000 entries it costs more than the little garbage it would free.)
    gc.freeze()
    try:
        # concurrent.futures rather than multiprocessing.Pool: a worker that dies (killed
        # for memory, say) fails the build with BrokenProcessPool instead of hanging it.
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork")) as pool:
            out: list[R] = []
            for part in pool.map(_run, chunks):
                out += part
            return out
    finally:
        gc.unfreeze()
        _JOB.clear()


def _run(chunk: range) -> list:
    fn, items = _JOB["fn"], _JOB["items"]
    return [fn(items[i]) for i in chunk]
