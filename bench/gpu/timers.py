"""Timing: warm-up, then repeats; median and spread.

On CUDA each repeat is timed with a pair of CUDA events around one call, so host-side gaps
between repeats are not counted. With `graph=True` the call is captured once in a CUDA graph
(after warm-up on a side stream, as capture requires) and each repeat is one replay, which
removes the launch gaps between kernels, as serving engines do for decode. On the CPU each
repeat is timed with time.perf_counter around one call.
"""

from __future__ import annotations

import statistics
import time

import torch


def summarize(samples: list[float]) -> dict:
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "repeats": len(samples),
    }


def time_call(fn, device: torch.device, warmup: int, repeats: int, graph: bool = False):
    """Seconds per call of `fn` over `repeats` calls; returns (samples, last output)."""
    if device.type != "cuda":
        out = None
        for _ in range(warmup):
            out = fn()
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn()
            samples.append(time.perf_counter() - t0)
        return samples, out

    run = fn
    g = None
    if graph:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_out = fn()

        def run():
            g.replay()
            return static_out

    out = None
    for _ in range(warmup):
        out = run()
    torch.cuda.synchronize()
    samples = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(repeats):
        start.record()
        out = run()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3)
    del g
    return samples, out
