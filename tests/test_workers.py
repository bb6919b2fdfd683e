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


def test_an_error_in_a_worker_is_raised_in_the_build():
    def fail(x):
        if x == "entry-123":
            raise ValueError(f"bad {x}")
        return x

    with pytest.raises(ValueError, match="bad entry-123"):
        fork_map(fail, ITEMS, workers=2)


def test_a_killed_worker_fails_the_build_instead_of_hanging_it():
    def die(x):
        if x == "entry-200":
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
        return x

    t = time.perf_counter()
    with pytest.raises(BrokenProcessPool):
        fork_map(die, ITEMS, workers=2)
    assert time.perf_counter() - t < 30


def test_one_worker_or_few_items_run_in_this_process():
    parent = os.getpid()
    assert set(fork_map(lambda x: os.getpid(), ITEMS, workers=1)) == {parent}
    assert set(fork_map(lambda x: os.getpid(), ITEMS[:10], workers=2)) == {parent}
