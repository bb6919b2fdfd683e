"""fork_map, which spreads the build over the cores: same answers as the plain loop, and a
failure in a worker fails the build, fast, instead of hanging or being lost."""

import multiprocessing
import os
import signal
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from generator.speed.workers import fork_map

ITEMS = [f"entry-{i}" for i in range(300)]
CTX = multiprocessing.get_context("fork")  # made before the fork, shared with the workers


def _first_item_waits_for_the_others(barrier):
    """An fn whose first call in each process waits until every process has made one:
    whichever way the scheduler hands out chunks, each process takes part (no timing)."""
    started: set[int] = set()  # each forked process has its own copy

    def fn(x):
        if os.getpid() not in started:
            started.add(os.getpid())
            barrier.wait()
        return os.getpid()
    return fn


def test_results_come_back_in_order_and_equal_to_the_loop():
    parent = os.getpid()
    pids = fork_map(_first_item_waits_for_the_others(CTX.Barrier(2, timeout=120)), ITEMS, workers=2)
    assert parent not in pids and len(set(pids)) == 2  # really two other processes
    assert fork_map(lambda x: x.upper(), ITEMS, workers=2) == [x.upper() for x in ITEMS]


def test_with_here_the_caller_takes_its_share_and_the_order_holds():
    parent = os.getpid()
    pids = fork_map(_first_item_waits_for_the_others(CTX.Barrier(2, timeout=120)), ITEMS, workers=2, here=True)
    assert parent in pids and len(set(pids)) == 2  # this process and one forked worker, both working
    sizes = [{"k": "v" * (i % 7) * 1000} for i in range(len(ITEMS))]  # results of mixed, large sizes
    assert fork_map(lambda x: sizes[ITEMS.index(x)], ITEMS, workers=3, here=True) == sizes


@pytest.mark.parametrize("here", [False, True])
def test_an_error_in_a_worker_is_raised_in_the_build(here):
    parent = os.getpid()

    def fail(x):
        if x == "entry-123":
            raise ValueError(f"bad {x}")
        return x

    with pytest.raises(ValueError, match="^bad entry-123$"):
        fork_map(fail, ITEMS, workers=2, here=here)

    failed, done_here = CTX.Event(), CTX.Value("i", 0)

    def fail_in_a_forked_worker(x):
        if os.getpid() != parent:
            failed.set()
            raise ValueError(f"bad {x} in a worker")
        # This process's items start only once the worker has failed, then go slowly: if
        # the map did not stop, this process would go on through all of its items.
        assert failed.wait(120)
        time.sleep(0.01)
        with done_here.get_lock():
            done_here.value += 1
        return x

    with pytest.raises(ValueError, match="^bad entry-[0-9]+ in a worker$"):
        fork_map(fail_in_a_forked_worker, ITEMS, workers=2, here=here)
    assert done_here.value < len(ITEMS) // 4, done_here.value  # the others stopped taking work


@pytest.mark.parametrize("here", [False, True])
def test_a_killed_worker_fails_the_build_instead_of_hanging_it(here):
    parent = os.getpid()

    def die(x):
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
        time.sleep(0.001)
        return x

    signal.alarm(300)  # a guard against hanging for ever, not a speed check: a hang raises here
    try:
        with pytest.raises(BrokenProcessPool):
            fork_map(die, ITEMS, workers=2, here=here)
    finally:
        signal.alarm(0)


def test_one_worker_or_few_items_run_in_this_process():
    parent = os.getpid()
    assert set(fork_map(lambda x: os.getpid(), ITEMS, workers=1)) == {parent}
    assert set(fork_map(lambda x: os.getpid(), ITEMS[:10], workers=2)) == {parent}
    # A map inside a map runs in whichever process runs the outer call.
    outer = _first_item_waits_for_the_others(CTX.Barrier(2, timeout=120))
    nested = fork_map(lambda x: (outer(x), set(fork_map(lambda y: os.getpid(), ITEMS, workers=2))), ITEMS, workers=2, here=True)
    assert all(inner == {outer} for outer, inner in nested) and len({outer for outer, _ in nested}) == 2


def test_meanwhile_runs_here_while_the_workers_start_and_its_error_stops_the_map():
    parent, seen = os.getpid(), []
    by_worker = CTX.Value("i", 0)

    def count(x):
        if os.getpid() != parent:
            with by_worker.get_lock():
                by_worker.value += 1
        return os.getpid(), len(seen)

    def meanwhile():
        seen.append(os.getpid())
        # Returns only once the worker has done 100 items: it can only get there if the
        # worker really works while this runs (the caller takes none of its own before).
        for _ in range(120_000):
            if by_worker.value >= 100:
                return
            time.sleep(0.001)
        raise AssertionError("the worker did nothing while meanwhile ran")

    pids = fork_map(count, ITEMS, workers=2, here=True, meanwhile=meanwhile)
    assert seen == [parent]  # in this process, once
    assert {n for pid, n in pids if pid != parent} == {0}  # the worker was forked before it ran
    assert sum(pid != parent for pid, _ in pids) >= 100

    def fails():
        raise KeyError("meanwhile failed")

    never, finished = CTX.Event(), CTX.Value("i", 0)

    def blocked(x):
        never.wait(120)  # a worker that would hold the map up for minutes if it were waited for
        with finished.get_lock():
            finished.value += 1

    with pytest.raises(KeyError, match="meanwhile failed"):
        fork_map(blocked, ITEMS, workers=2, here=True, meanwhile=fails)
    assert finished.value == 0  # the worker was stopped, not waited for
    assert fork_map(str.upper, ITEMS, workers=1, meanwhile=lambda: seen.append("serial")) == [x.upper() for x in ITEMS]
    assert seen[-1] == "serial"
