"""fork_map, which spreads the build over the cores: same answers as the plain loop, and a
failure in a worker fails the build, fast, instead of hanging or being lost."""

import os
import signal
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from generator.workers import fork_map

ITEMS = [f"entry-{i}" for i in range(300)]


def test_results_come_back_in_order_and_equal_to_the_loop():
    parent = os.getpid()
    pids = fork_map(lambda x: (time.sleep(0.002), os.getpid())[1], ITEMS, workers=2)  # work enough for both
    assert parent not in pids and len(set(pids)) == 2  # really two other processes
    assert fork_map(lambda x: x.upper(), ITEMS, workers=2) == [x.upper() for x in ITEMS]


def test_with_here_the_caller_takes_its_share_and_the_order_holds():
    parent = os.getpid()
    pids = fork_map(lambda x: (time.sleep(0.002), os.getpid())[1], ITEMS, workers=2, here=True)
    assert parent in pids and len(set(pids)) == 2  # this process and one forked worker
    assert pids.count(parent) > len(ITEMS) // 4  # the work is shared, not left to one of them
    sizes = [{"k": "v" * (i % 7) * 1000} for i in range(len(ITEMS))]  # results of mixed, large sizes
    assert fork_map(lambda x: sizes[ITEMS.index(x)], ITEMS, workers=3, here=True) == sizes


@pytest.mark.parametrize("here", [False, True])
def test_an_error_in_a_worker_is_raised_in_the_build(here):
    parent = os.getpid()

    def fail(x):
        if x == "entry-123":
            raise ValueError(f"bad {x}")
        return x

    def fail_in_a_forked_worker(x):
        if os.getpid() != parent:
            raise ValueError(f"bad {x} in a worker")
        time.sleep(0.005)  # 1.5 s for all the items
        return x

    with pytest.raises(ValueError, match="^bad entry-123$"):
        fork_map(fail, ITEMS, workers=2, here=here)
    t = time.perf_counter()
    with pytest.raises(ValueError, match="^bad entry-[0-9]+ in a worker$"):
        fork_map(fail_in_a_forked_worker, ITEMS, workers=2, here=here)
    assert time.perf_counter() - t < 0.75  # the other processes stopped taking work


@pytest.mark.parametrize("here", [False, True])
def test_a_killed_worker_fails_the_build_instead_of_hanging_it(here):
    parent = os.getpid()

    def die(x):
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
        time.sleep(0.001)
        return x

    t = time.perf_counter()
    with pytest.raises(BrokenProcessPool):
        fork_map(die, ITEMS, workers=2, here=here)
    assert time.perf_counter() - t < 30


def test_one_worker_or_few_items_run_in_this_process():
    parent = os.getpid()
    assert set(fork_map(lambda x: os.getpid(), ITEMS, workers=1)) == {parent}
    assert set(fork_map(lambda x: os.getpid(), ITEMS[:10], workers=2)) == {parent}
    # A map inside a map runs in whichever process runs the outer call.
    nested = fork_map(lambda x: (os.getpid(), set(fork_map(lambda y: os.getpid(), ITEMS, workers=2))), ITEMS, workers=2, here=True)
    assert all(inner == {outer} for outer, inner in nested) and len({outer for outer, _ in nested}) == 2


def test_meanwhile_runs_here_while_the_workers_start_and_its_error_stops_the_map():
    parent, seen = os.getpid(), []

    def meanwhile():
        seen.append((os.getpid(), time.perf_counter()))
        time.sleep(0.3)  # long enough for the worker to take many chunks first

    pids = fork_map(lambda x: (time.sleep(0.002), os.getpid(), len(seen))[1:], ITEMS, workers=2, here=True, meanwhile=meanwhile)
    assert len(seen) == 1 and seen[0][0] == parent  # in this process, once
    assert {n for pid, n in pids if pid != parent} == {0}  # the worker was forked before it ran
    # ... and worked while it ran: it took well over half the items (about 150 in 0.3 s,
    # then half the rest), not the half it takes when both start together.
    assert sum(pid != parent for pid, _ in pids) > len(ITEMS) * 0.6

    def fails():
        raise KeyError("meanwhile failed")

    t = time.perf_counter()
    with pytest.raises(KeyError, match="meanwhile failed"):
        fork_map(lambda x: time.sleep(0.01), ITEMS, workers=2, here=True, meanwhile=fails)
    assert time.perf_counter() - t < 1  # the worker was stopped, not waited for (3 s of work)
    assert fork_map(str.upper, ITEMS, workers=1, meanwhile=lambda: seen.append("serial")) == [x.upper() for x in ITEMS]
    assert seen[-1] == "serial"
