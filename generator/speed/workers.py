"""Spread independent per-entry work over the machine's cores.

`fork_map(fn, items)` is `[fn(x) for x in items]`, computed by forked processes that
inherit `fn` and `items` (so neither has to be picklable; only the results travel back)
and returned in order, so the output is the same as the serial loop's (the build's
reproducibility test compares a parallel build with a serial one byte for byte).

The items are cut into small chunks, handed out as processes become free, so every core
stays busy to the end. With `here=True` the calling process takes chunks too, in place of
one forked worker: what it computes is never pickled and copied back (at 10,000 entries
the generator took 8.7-9.7 s in four runs this way, against 11.1-12.1 s with the caller
only collecting results). Only for a `fn` that changes nothing the caller keeps, since the
caller's own calls do not run in a copy. Without it (MkDocs's page steps, whose calls
change the pages they are given), the caller only collects results.

It runs serially off Linux (Windows has no fork; macOS's system libraries are not
fork-safe), when there are too few items to pay for the processes, when
`ATLAS_WORKERS=1`, and under `mkdocs serve`, whose server threads make forking unsafe.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import sys
import traceback
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 64  # below this, starting processes costs more than it saves
serial_only = False  # set under `mkdocs serve`
_JOB: dict[str, Any] = {}  # set while a map runs: a map inside it (in any process) runs serially


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
             min_items: int = MIN_ITEMS, here: bool = False, meanwhile: Callable[[], Any] | None = None) -> list[R]:
    """[fn(x) for x in items], on `workers` processes when it is worth it; with `here`,
    this process is one of them (see the module's docstring).

    `meanwhile`: other work for this process, which (with `here`) it does once the workers
    have started on the items and before it takes any itself, so that work needing one
    core does not leave the others idle. What it computes stays in this process (the
    workers are forked before it runs); if it raises, the map stops and the error is
    raised here. Serially, it runs first."""
    n = count() if workers is None else workers
    if n < 2 or len(items) < min_items or _JOB:
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]
    size = max(4, len(items) // (n * 32))  # small chunks keep every core busy to the end
    chunks = [range(i, min(i + size, len(items))) for i in range(0, len(items), size)]
    _JOB.update(fn=fn, items=items)
    for stream in (sys.stdout, sys.stderr):  # or the workers would print what is buffered again
        stream.flush()
    # Objects that exist before the fork go to the permanent generation: otherwise every
    # collection in a worker writes to all of them, copying the parent's whole heap page
    # by page (copy-on-write) and scanning it again and again. (No collection first: at
    # 10,000 entries it costs more than the little garbage it would free.)
    gc.freeze()
    try:
        if here:
            return _shared(fn, items, chunks, n, meanwhile)
        if meanwhile is not None:
            meanwhile()
        return _pool(chunks, n)
    finally:
        gc.unfreeze()
        _JOB.clear()


def _pool(chunks: list[range], n: int) -> list:
    """The caller only waits: results come back through concurrent.futures as each chunk
    is done, and a worker that dies (killed for memory, say) fails the map with
    BrokenProcessPool instead of hanging it."""
    with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork")) as pool:
        out: list = []
        for part in pool.map(_run, chunks):
            out += part
        return out


def _run(chunk: range) -> list:
    fn, items = _JOB["fn"], _JOB["items"]
    return [fn(items[i]) for i in chunk]


def _shared(fn: Callable, items: Sequence, chunks: list[range], n: int, meanwhile: Callable[[], Any] | None) -> list:
    """The caller and n - 1 forked workers claim chunks from a shared counter. Between
    its own chunks the caller takes in what the workers have finished so far, so that
    little is left to read once the last chunk is done."""
    ctx = multiprocessing.get_context("fork")
    claims = ctx.Value("q", 0)  # the next chunk to take
    kids: list[_Worker] = []
    results: list[list | None] = [None] * len(chunks)
    try:
        for _ in range(n - 1):
            kids.append(_Worker(ctx, fn, items, chunks, claims, results))
        if meanwhile is not None:
            meanwhile()
        while (k := _claim(claims)) < len(chunks):
            results[k] = [fn(items[i]) for i in chunks[k]]
            for kid in kids:
                kid.take()
        for kid in kids:
            kid.finish()
        return [r for part in results for r in part]  # type: ignore[union-attr]
    finally:
        for kid in kids:
            kid.stop()


def _claim(claims) -> int:
    with claims.get_lock():
        k = claims.value
        claims.value = k + 1
    return k


_SIZE = 8  # bytes of the length that precedes each record a worker writes


class _Worker:
    """One forked process claiming chunks. It appends each chunk's results, as it
    finishes it, to a file in memory (its length, then the pickle); this process reads
    the complete ones whenever it looks. A pipe would hold the worker up whenever this
    process is busy with its own share."""

    def __init__(self, ctx, fn, items, chunks, claims, results: list) -> None:
        self.fd = os.memfd_create("atlas-worker")  # Linux, as fork is
        self.results, self.read, self.done = results, 0, False
        self.proc = ctx.Process(target=_work, args=(fn, items, chunks, claims, self.fd), daemon=True)
        self.proc.start()

    def take(self) -> None:
        """Put in place every complete record the worker has written since the last look."""
        size = os.fstat(self.fd).st_size
        while not self.done and self.read + _SIZE <= size:
            length = int.from_bytes(os.pread(self.fd, _SIZE, self.read), "little")
            if self.read + _SIZE + length > size:
                return  # still being written
            record = pickle.loads(os.pread(self.fd, length, self.read + _SIZE))
            self.read += _SIZE + length
            if isinstance(record, BaseException):
                raise record
            if record == "done":
                self.done = True
            else:
                k, part = record
                self.results[k] = part

    def finish(self) -> None:
        self.proc.join()
        self.take()
        if not self.done:
            raise BrokenProcessPool(f"a build worker (pid {self.proc.pid}, exit code {self.proc.exitcode}) ended without "
                                    f"sending its results; was it killed, perhaps for memory?")

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        os.close(self.fd)


def _work(fn, items, chunks, claims, fd: int) -> None:
    """In a worker: claim chunks until none are left, writing (chunk, results) for each."""
    try:
        while (k := _claim(claims)) < len(chunks):
            _write(fd, (k, [fn(items[i]) for i in chunks[k]]))
        _write(fd, "done")
    except BaseException as exc:  # raised in the caller, as the serial loop would raise it
        with claims.get_lock():
            claims.value = len(chunks)  # the others stop claiming: the map has failed
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:
            exc = RuntimeError("".join(traceback.format_exception(exc)))
        _write(fd, exc)


def _write(fd: int, record: Any) -> None:
    data = pickle.dumps(record, pickle.HIGHEST_PROTOCOL)
    for part in (len(data).to_bytes(_SIZE, "little"), data):  # the reader waits for the whole record
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view):]
