"""Will it fit, and how fast can it go: memory of a model on a device, and the decode and
prefill ceilings, for one sequence and for a batch, on one device, on the reader's N, split
over as many as it needs, or with weights offloaded to system memory.

    memory  = weights (every part at its precision) + KV cache + overhead
    decode ceiling, all sequences = bandwidth / (weights one step reads + every sequence's cache) x sequences
    prefill ceiling               = dense tensor FLOPS / (2 x active parameters) tokens per second
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from generator.knowledge.calc.limits import LIMITS, CalcError, check
from generator.knowledge.calc.parts import PART_LABELS, Precision, uniform
from generator.knowledge.calc.specs import GIB, DeviceSpec, ModelSpec

OVERHEAD_FRACTION = 0.10
"""Activations, CUDA context, allocator slack: a tenth of weights + cache by default."""

HOST_BANDWIDTH_GBS = 76.8
"""System memory that offloaded weights are read from: two channels of DDR5-4800, 38.4 GB/s
each by JEDEC's figures (glossary/terms/dram.yaml cites JESD79-5), a common desktop."""


@dataclass(frozen=True)
class Estimate:
    model: str
    device: str
    bits: float
    weights_gb: float
    kv_gb: float
    overhead_gb: float
    total_gb: float
    memory_gb: float | None
    fits: bool | None
    decode_tps: float | None  # per sequence at `sequences` at once, upper bound; None where it cannot run on the devices
    prefill_tps: float | None  # tokens per second, upper bound
    devices_needed: int | None = None  # where it does not fit: how many devices it would take to hold it
    split_decode_tps: float | None = None  # per sequence on that many devices, before any communication cost
    can_split: bool | None = None  # whether that many is a usual setup (DeviceSpec.max_devices)
    offload_gb: float | None = None  # or: what would have to live in system memory instead
    offload_decode_tps: float | None = None  # ... and the ceiling per sequence when a step reads those bytes from there
    missing: tuple[str, ...] = ()  # figures the device entry lacks, in words
    prefill_precision: str | None = None  # the tensor rate behind prefill_tps: fp16/bf16, else the only one the entry has
    sequences: int = 1
    decode_total_tps: float | None = None  # all sequences together: decode_tps x sequences
    decode_bound: str | None = None  # what limits decode: "memory bandwidth" or "compute"
    kv_per_sequence_gb: float | None = None  # one sequence's cache at this context (windows and fixed state included)
    devices: int = 1  # how many devices the reader has (fit and speed are over all of them)
    split_decode_total_tps: float | None = None  # all sequences on devices_needed devices
    offload_decode_total_tps: float | None = None  # all sequences with the offloaded weights read from system memory
    better: str | None = None  # of split and offload, the one giving more tokens per device: "split" or "offload"
    read_gb: float | None = None  # weights one decoded token reads (one sequence alone), every part at its precision
    format: str | None = None  # the precision's label
    parts: tuple = ()  # (part, billions, bits, GB) held in memory
    parts_note: str | None = None  # what the split could not count, in words

    def as_dict(self) -> dict:
        return {k: (round(v, 3) if isinstance(v, float) else [list(x) if isinstance(x, tuple) else x for x in v]
                    if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def _times(d: DeviceSpec, n: int) -> DeviceSpec:
    """n devices as one: n times the memory, bandwidth and tensor rate (tensor parallelism,
    before the traffic between them)."""
    if n == 1:
        return d
    return replace(d, memory_gb=d.memory_gb * n if d.memory_gb else None,
                   gpu_default_gb=d.gpu_default_gb * n if d.gpu_default_gb else None,
                   bandwidth_gbs=d.bandwidth_gbs * n if d.bandwidth_gbs else None,
                   tflops={k: v * n for k, v in d.tflops.items()})


def estimate(m: ModelSpec, d: DeviceSpec | None, bits: float | Precision, tokens: int, sequences: int = 1,
             kv_bits: float = 16, overhead: float = OVERHEAD_FRACTION, precision: str | None = None,
             host_bandwidth_gbs: float = HOST_BANDWIDTH_GBS, devices: int = 1) -> Estimate:
    p = bits if isinstance(bits, Precision) else uniform(bits)
    check("bits", p.bits)
    check("tokens", tokens)
    check("sequences", sequences)
    check("kv_bits", kv_bits)
    check("devices", devices)
    if overhead < 0 or overhead > LIMITS["overhead"][1]:
        raise CalcError(f"overhead = {overhead:g} must be between 0 and {LIMITS['overhead'][1]:g} (a fraction of weights + cache)")
    if m.context_length and tokens > m.context_length:
        raise CalcError(f"{tokens:,} tokens is more than {m.title}'s context length of {m.context_length:,}")
    if d is not None and devices > d.max_devices:
        raise CalcError(f"{devices} of {d.title} is more than a usual setup ({d.max_devices} at most)")
    weights = m.weight_bytes(p)
    kv_seq = m.kv_bytes(tokens, kv_bits)
    kv = kv_seq * sequences
    over = overhead * (weights + kv)
    total = weights + kv + over
    read_one = m.bytes_read(p, 1)
    parts = tuple((PART_LABELS[x.name], round(x.params_b, 4), p.of(x.name), round(x.params_b * p.of(x.name) / 8, 4))
                  for x in m.parts) if m.parts else ()
    fits = decode = prefill = prefill_precision = None
    needed = split = offload = offload_tps = decode_total = bound = can_split = None
    split_total = offload_total = better = None
    missing: list[str] = []
    if d is not None:
        n = devices
        dn = _times(d, n)
        if d.memory_gb:
            fits = total <= dn.usable_gb * GIB
        else:
            missing.append("memory size unknown: whether it fits cannot be said")
        if d.tflops:
            prefill, prefill_precision = prefill_rate(m, dn, precision)
        else:
            missing.append("tensor throughput (TFLOPS) unknown: no prefill ceiling")
        if d.bandwidth_gbs:
            decode, decode_total, bound = decode_rates(m, dn, p, tokens, kv_bits, sequences, prefill)
        else:
            missing.append("memory bandwidth unknown: no decode ceiling")
        if fits is False:
            # Split over as many as hold it (tensor parallelism): each holds and reads 1/N, so N
            # times the bandwidth and the compute, before the all-reduce traffic takes its share.
            needed = math.ceil(total / (d.usable_gb * GIB))
            can_split = needed <= d.max_devices
            # Or keep what fits on the reader's devices and read the rest from system memory:
            # each decode step streams the offloaded weights it uses once over the host link, for
            # the whole batch; every sequence's cache stays on the device.
            offload = total - dn.usable_gb * GIB
            if decode is not None:
                one = decode_rates(m, d, p, tokens, kv_bits, sequences, prefill_rate(m, d, precision)[0])
                if can_split and one[0] is not None:  # only a split people actually build
                    split, split_total = one[0] * needed, one[1] * needed
                step = m.bytes_read(p, sequences)
                if d.max_devices > 1 and step is not None:  # a card beside system memory (one machine's unified memory has no "beside")
                    off_read = min(offload, weights) * step / weights  # the share of the offloaded bytes a step touches
                    seconds = (step - off_read + kv_seq * sequences) / (dn.bandwidth_gbs * 1e9) + off_read / (host_bandwidth_gbs * 1e9)
                    offload_total = sequences / seconds
                    offload_tps = offload_total / sequences
                if split_total and offload_total:
                    better = "split" if split_total / needed > offload_total / n else "offload"
            decode = decode_total = None  # the devices cannot hold it: no figure for them alone
    return Estimate(model=m.id, device=d.id if d else "", bits=p.bits, weights_gb=weights / 1e9, kv_gb=kv / 1e9,
                    overhead_gb=over / 1e9, total_gb=total / 1e9, memory_gb=d.memory_gb if d else None,
                    fits=fits, decode_tps=decode, prefill_tps=prefill, prefill_precision=prefill_precision,
                    devices_needed=needed, split_decode_tps=split, can_split=can_split,
                    offload_gb=offload / 1e9 if offload is not None else None, offload_decode_tps=offload_tps,
                    missing=tuple(missing), sequences=sequences, decode_total_tps=decode_total, decode_bound=bound,
                    kv_per_sequence_gb=kv_seq / 1e9, devices=devices, split_decode_total_tps=split_total,
                    offload_decode_total_tps=offload_total, better=better,
                    read_gb=read_one / 1e9 if read_one is not None else None, format=p.label, parts=parts,
                    parts_note=m.parts_note)


def decode_rates(m: ModelSpec, d: DeviceSpec, bits: float | Precision, tokens: int, kv_bits: float, batch: int,
                 compute_tps: float | None) -> tuple[float | None, float | None, str | None]:
    """(per sequence, all sequences, the bound) for `batch` sequences decoding together:
    each step reads the weights the batch uses once and every sequence's cache
    (decode_ceiling), and no step can beat the device's tensor rate at 2 FLOP per active
    parameter per token (`compute_tps`, the prefill ceiling). The lower one applies."""
    memory = decode_ceiling(m, d, bits, tokens, kv_bits, batch)
    if memory is None:
        return None, None, None
    if compute_tps is not None and compute_tps < memory:
        return compute_tps / batch, compute_tps, "compute"
    return memory / batch, memory, "memory bandwidth"


def decode_ceiling(m: ModelSpec, d: DeviceSpec, bits: float | Precision, tokens: int, kv_bits: float = 16,
                   batch: int = 1) -> float | None:
    """Tokens per second, all sequences together, that a device's bandwidth allows for
    `batch` sequences of `tokens`, whether or not the model fits its memory: one step reads
    the weights the batch uses once, each part at its precision (ModelSpec.bytes_read: in a
    mixture of experts a batch touches more experts than one token) and every sequence's
    cache. None for an MoE model above one sequence when its entry lacks the expert counts."""
    if not d.bandwidth_gbs:
        return None
    p = bits if isinstance(bits, Precision) else uniform(bits)
    read = m.bytes_read(p, batch)
    if read is None:
        return None
    return batch * d.bandwidth_gbs * 1e9 / (read + m.kv_bytes(tokens, kv_bits) * batch)


def prefill_rate(m: ModelSpec, d: DeviceSpec, precision: str | None = None) -> tuple[float | None, str | None]:
    """Prompt tokens per second a device cannot beat, and the tensor rate it comes from:
    dense throughput in `precision`, else the first of 16-bit, FP8, FP4 the entry gives,
    over 2 FLOP per active parameter per token."""
    tflops = d.tflops or {}
    p = precision or next((x for x in ("fp16", "bf16", "fp8", "fp4") if x in tflops), None)
    return (tflops[p] * 1e12 / (2 * m.active_b * 1e9), p) if p in tflops else (None, None)
