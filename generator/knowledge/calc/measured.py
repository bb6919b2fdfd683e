"""This project's own measurements (bench/gpu/results) beside the ceilings computed for the
same model, device, batch and context."""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.kb.model import Atlas
from generator.knowledge.calc.fit import decode_ceiling, prefill_rate
from generator.knowledge.calc.limits import CalcError
from generator.knowledge.calc.specs import device_spec, model_spec


MEASURED_BITS = 16
"""The GPU suite measures BF16 weights and a BF16 KV cache (bench/gpu/README.md)."""


@dataclass(frozen=True)
class Measured:
    """One decode figure this project measured (bench/gpu/results), beside the ceiling
    computed here for the same model, device, batch and context in 16-bit weights."""

    source: str  # source id of the record
    record: str  # its path in the repository
    model: str
    device: str
    device_name: str
    batch: int
    context: int
    tokens_per_s: float  # over the whole batch, median of the repeats
    min: float
    max: float
    ceiling_tps: float | None  # decode_ceiling: one device's bandwidth, whether or not the model fits it
    ratio: float | None
    layers_built: int
    layers: int
    slice: bool
    kernel: str
    what: str  # what ran, in a phrase

    def as_dict(self) -> dict:
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def _what(rec) -> str:
    if rec.slice:
        return (f"{rec.layers_built} of {rec.layers} layers run, per-layer time scaled to {rec.layers} "
                f"(output head timed alone); BF16, random weights, plain PyTorch")
    return f"all {rec.layers} layers; BF16, random weights, plain PyTorch"


def measured_points(atlas: Atlas, model: str | None = None, device: str | None = None,
                    batches: tuple[int, ...] | None = None) -> list[Measured]:
    """Every measured decode configuration of the records for a model and/or a device (of
    the given batch sizes), each with its computed ceiling and the ratio; by model,
    device, batch, context, then record."""
    out = []
    for rec in atlas.measured(model, device):
        if rec.hardware not in atlas.entries or rec.model not in atlas.entries:
            continue
        m, d = model_spec(atlas.entries[rec.model]), device_spec(atlas.entries[rec.hardware])
        for x in rec.decode:
            if batches is not None and x.batch not in batches:
                continue
            try:
                ceiling = decode_ceiling(m, d, MEASURED_BITS, x.context, MEASURED_BITS, x.batch)
            except CalcError:
                ceiling = None
            out.append(Measured(source=rec.source, record=rec.path, model=rec.model, device=rec.hardware,
                                device_name=rec.device_name, batch=x.batch, context=x.context, tokens_per_s=x.tokens_per_s,
                                min=x.min, max=x.max, ceiling_tps=ceiling, ratio=x.tokens_per_s / ceiling if ceiling else None,
                                layers_built=rec.layers_built, layers=rec.layers, slice=rec.slice, kernel=x.kernel, what=_what(rec)))
    return sorted(out, key=lambda p: (p.model, p.device, p.batch, p.context, p.source))


@dataclass(frozen=True)
class MeasuredPrefill:
    """One prefill this project measured (batch 1, BF16), beside the prefill ceiling."""

    source: str
    model: str
    device: str
    prompt: int
    ttft_s: float
    min_s: float
    max_s: float
    tokens_per_s: float
    ceiling_tps: float | None
    ratio: float | None
    layers_built: int
    layers: int
    slice: bool
    kernel: str


def measured_prefills(atlas: Atlas, model: str | None = None, device: str | None = None) -> list[MeasuredPrefill]:
    """Every measured prefill of the records for a model and/or a device, each with the
    ceiling computed here for the pair and the ratio; by model, device, prompt, record."""
    out = []
    for rec in atlas.measured(model, device):
        if rec.hardware not in atlas.entries or rec.model not in atlas.entries:
            continue
        ceiling, _ = prefill_rate(model_spec(atlas.entries[rec.model]), device_spec(atlas.entries[rec.hardware]))
        for x in rec.prefill:
            out.append(MeasuredPrefill(source=rec.source, model=rec.model, device=rec.hardware, prompt=x.prompt,
                                       ttft_s=x.ttft_s, min_s=x.min_s, max_s=x.max_s, tokens_per_s=x.tokens_per_s,
                                       ceiling_tps=ceiling, ratio=x.tokens_per_s / ceiling if ceiling else None,
                                       layers_built=rec.layers_built, layers=rec.layers, slice=rec.slice, kernel=x.kernel))
    return sorted(out, key=lambda p: (p.model, p.device, p.prompt, p.source))


def nearest_context(contexts, tokens: int) -> int:
    """The measured context closest to `tokens` by ratio (a tie goes to the shorter), the
    rule the calculator's page uses too (docs/assets/atlas-calc.js)."""
    return min(contexts, key=lambda c: (round(abs(math.log(c / tokens)), 9), c))


def _nearest_fastest(points: list, length: str, tokens: int):
    """Of measured points, those whose `length` (context or prompt) is nearest `tokens`
    (nearest_context's rule), and of them the fastest; None if there are none."""
    if not points:
        return None
    c = nearest_context({getattr(p, length) for p in points}, tokens)
    return max((p for p in points if getattr(p, length) == c), key=lambda p: (p.tokens_per_s, p.source))


def prefill_for(atlas: Atlas, model: str, device: str, tokens: int) -> MeasuredPrefill | None:
    """The measured prefill to show beside the prefill ceiling for a prompt of `tokens`:
    the measured prompt length nearest to it, the fastest record."""
    return _nearest_fastest(measured_prefills(atlas, model, device), "prompt", tokens)


def measured_for(atlas: Atlas, model: str, device: str, tokens: int) -> Measured | None:
    """The single-sequence measurement to show beside a ceiling at `tokens`: the measured
    context nearest to it, and of the records at that context the fastest (each is a
    lower bound of what this code reaches on that card)."""
    return _nearest_fastest(measured_points(atlas, model, device, batches=(1,)), "context", tokens)
