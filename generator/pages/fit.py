"""The fit and measured tables on model and device pages: what fits where at 16, 8 and 4
bits with its decode ceiling, and this project's GPU measurements beside the ceilings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.kb.model import Atlas, Entry
from generator.knowledge.calc import NOT_ONE_DEVICE as PER_DEVICE_EXCLUDED  # racks and product families
from generator.render.page import Page

FIT_ROWS = 64


"""At most this many rows in a fit table, over all its groups (tabs): a model page groups
devices by segment (data centre, workstation, consumer GPU, unified memory, edge), a device
page groups models by size (SIZE_GROUPS). The catalogue's 62 devices and 47 models all have
their rows; past the budget a group keeps rows spread across its range (memory, or size)
and the calculator lists every one, so an entry page weighs the same at 1,000 entries as at
3,000 (issue 48: it grew 2.1x when every device had a row)."""


def _shares(sizes: list[int], budget: int = FIT_ROWS) -> list[int]:
    """How many rows each group keeps: all of a small group, and the rest of the budget
    shared evenly among the larger ones (the smallest groups are served first)."""
    out, left = [0] * len(sizes), budget
    for k, i in enumerate(sorted(range(len(sizes)), key=lambda i: sizes[i])):
        out[i] = min(sizes[i], left // (len(sizes) - k))
        left -= out[i]
    return out


def _spread(entries: list, k: int) -> list:
    """k of the entries, evenly spaced through them (their first and last among them), in
    their order: a group sorted by memory or size keeps its whole range."""
    n = len(entries)
    if k >= n:
        return list(entries)
    if k <= 1:
        return list(entries[:k])
    return [entries[round(j * (n - 1) / (k - 1))] for j in range(k)]


def _fit_precisions(atlas: Atlas) -> list[tuple[str, float]]:
    """16-, 8- and 4.5-bit columns. A model page's columns hold across every device, so they
    are named by width with the formats of that width the entries give; a device page names
    them after what that device runs (device_labels)."""
    from generator.knowledge.calc import formats

    known = formats(atlas)
    out = []
    shown = {"fp16": "FP16", "bf16": "BF16", "fp8": "FP8", "int8": "INT8", "nvfp4": "NVFP4", "gguf q4_0": "GGUF Q4_0",
             "mlx affine 4-bit": "MLX 4-bit"}
    for names, bits, width in ((("fp16", "bf16"), 16.0, "16-bit"), (("fp8", "int8"), 8.0, "8-bit"),
                               (("nvfp4", "gguf q4_0", "mlx affine 4-bit"), 4.5, "4.5-bit")):
        labels = [shown[n] for n in names if n in known and abs(known[n][0] - bits) < 0.01]  # only formats of that width
        out.append((f"{width} ({', '.join(dict.fromkeys(labels))})" if labels else width, bits))
    return out


def device_labels(e: Entry, precisions: list[tuple[str, float]]) -> list[str]:
    """The fit columns of a device page, named after what the device runs: FP8 and NVFP4
    only where it has them (its formats or its tensor rates), never on Apple silicon or a
    card without an FP8 path; otherwise the width and the portable formats of that width."""
    runs = set((e.get("relations") or {}).get("supports_format", ()))
    specs = e.get("specs") or {}
    fp8 = "fp8" in runs or "fp8_tflops" in specs
    nvfp4 = "nvfp4" in runs or (e.get("vendor") == "NVIDIA" and "fp4_tflops" in specs)  # NVIDIA's FP4 tensor format
    mlx = "mlx-format" in runs or e.get("vendor") == "Apple"
    out = []
    for _label, bits in precisions:
        if bits == 16:
            out.append("16-bit (FP16/BF16)")
        elif bits == 8:
            out.append("FP8" if fp8 else "8-bit (INT8" + (", MLX 8-bit" if mlx else "") + ")")
        else:
            out.append("NVFP4" if nvfp4 else "4.5-bit (" + ("MLX 4-bit, " if mlx else "") + "GGUF Q4_0)")
    return out


SIZE_GROUPS = ((10, "up-to-10b", "Up to 10B"), (40, "10b-to-40b", "10B to 40B"), (150, "40b-to-150b", "40B to 150B"),
               (float("inf"), "over-150b", "Over 150B"))
"""A device page's fit table groups models by total parameters: a reader with a 24 GB card
looks among the small and mid-size ones, a rack's owner among the largest."""


@dataclass(frozen=True)
class _Group:
    """One tab of a fit table: its id, its label, the rows (entry and calculator figures),
    and how many the group has before the FIT_ROWS budget."""

    id: str
    label: str
    pairs: list[tuple[Entry, Any]]
    total: int


def _groups(named: list[tuple[str, str, list[Entry]]], spec) -> list[_Group]:
    """The non-empty groups, each with its share of the FIT_ROWS budget."""
    named = [g for g in named if g[2]]
    keep = _shares([len(entries) for _, _, entries in named])
    return [_Group(key, label, [(x, spec(x)) for x in _spread(entries, k)], len(entries))
            for (key, label, entries), k in zip(named, keep)]


@dataclass
class _FitPairs:
    """What every fit table of one build draws on, worked out once: the precision columns,
    the devices by segment (for model pages) and the models by size (for device pages),
    each with its calculator figures."""

    precisions: list[tuple[str, float]]
    devices: list[_Group]  # by segment, largest memory first
    models: list[_Group]  # by total parameters, smallest first
    reference: tuple[Entry, Any, float, str, str] | None = None  # device pages' cost line: model, spec, bits, format, source

    @classmethod
    def of(cls, atlas: Atlas) -> "_FitPairs":
        from generator.figures.charts import DECODE_FORMAT, DECODE_MODEL
        from generator.knowledge.calc import device_spec, formats, model_spec, precisions, sized_devices
        from generator.render.labels import SEGMENTS, VALUE_LABELS

        devices = sorted(sized_devices(atlas), key=lambda d: -d.get("specs")["memory_gb"]["value"])
        by_segment = _groups([(seg, VALUE_LABELS[seg], [d for d in devices if d.get("segment") == seg]) for seg in SEGMENTS],
                             device_spec)
        specs = {x.id: model_spec(x) for x in atlas.of_kind("model")}  # worked out once, for the order and the rows
        models = sorted((x for x in atlas.of_kind("model") if specs[x.id].params_b), key=lambda x: (specs[x.id].params_b, x.title))
        sized, low = [], 0.0
        for high, key, label in SIZE_GROUPS:
            sized.append((key, label, [x for x in models if low < specs[x.id].params_b <= high]))
            low = high
        by_size = _groups(sized, lambda x: specs[x.id])
        m, fmt = atlas.entries.get(DECODE_MODEL), formats(atlas).get(DECODE_FORMAT)
        # the reference model in its format part by part (Q4_K_M: the head at Q6_K), with the format's label and source
        exact = precisions(atlas).get(DECODE_FORMAT)
        return cls(_fit_precisions(atlas), by_segment, by_size,
                   (m, model_spec(m), exact, *fmt[1:]) if m is not None and fmt is not None else None)


def _fit_table(atlas: Atlas, page: Page, e: Entry, fit: _FitPairs) -> dict | None:
    """'What fits where' for a model page (over devices) or a device page (over models):
    4,096 tokens, one sequence, 16-bit KV cache."""
    from generator.knowledge.calc import CalcError, device_spec, estimate, model_spec

    if e.kind not in ("model", "hardware"):
        return None
    if e.kind == "model":
        m = model_spec(e)
        groups = [(g, [(d, m, spec) for d, spec in g.pairs]) for g in fit.devices]
    else:
        d = device_spec(e)
        if not d.memory_gb or e.get("class") in PER_DEVICE_EXCLUDED:
            return None
        groups = [(g, [(x, spec, d) for x, spec in g.pairs]) for g in fit.models]
    out = []
    for g, pairs in groups:
        rows = []
        for other, m, d in pairs:
            cells = []
            try:
                for _label, bits in fit.precisions:
                    est = estimate(m, d, bits, min(4096, m.context_length or 4096), 1)
                    cells.append({"total": est.total_gb, "fits": est.fits, "decode": est.decode_tps,
                                  "needed": est.devices_needed if est.can_split else None, "split": est.split_decode_tps,
                                  "expected": _expected_cell(atlas, m.id, d.id, bits, est.decode_tps) if est.fits else None})
            except CalcError:
                continue
            rows.append({"a": page.a(other.id), "cells": cells})
            _measured_cells(atlas, page, cells, fit, e.id if e.kind == "model" else other.id, other.id if e.kind == "model" else e.id)
        if rows:
            sampled = len(pairs) < g.total
            out.append({"id": g.id, "label": g.label, "rows": rows, "total": g.total, "sampled": sampled,
                        "count": f"{len(rows)} of {g.total}" if sampled else str(len(rows)),
                        "all": page.to("calculator.md") + f"?model={e.id}&where={g.id}&rows=all" if e.kind == "model" else None})
    if not out:
        return None
    labels = [p[0] for p in fit.precisions] if e.kind == "model" else device_labels(e, fit.precisions)
    return {"precisions": labels, "groups": out, "grouped_by": "where it runs" if e.kind == "model" else "total parameters",
            "sampled": [g for g in out if g["sampled"]],
            "calc": page.to("calculator.md"), "how": page.to("calculator/expected-speed.md"), "subject": "device" if e.kind == "model" else "model",
            "measured": any(c.get("measured") for g in out for r in g["rows"] for c in r["cells"])}


FIT_TOKENS = 4096


FORMAT_OF_WIDTH = {16.0: "fp16", 4.5: "gguf q4_0"}
"""The published format a fit column's expected speed is calibrated on where a family has
enough rows of it (calc.calibrate); the 8-bit column goes by its family's rows of any format."""


def _expected_cell(atlas: Atlas, model: str, device: str, bits: float, ceiling: float | None) -> dict | None:
    """What a reader can expect beside a fit cell's decode ceiling: 'expect 116 (77-155) c'."""
    from generator.knowledge.calc import expected

    x = expected(atlas, model, device, FORMAT_OF_WIDTH.get(bits), ceiling)
    if not x.tps:
        return None
    return {"tps": _tps(x.tps), "low": _tps(x.low), "high": _tps(x.high), "basis": x.basis, "mark": x.basis[0]}


"""The context of the fit tables (one sequence)."""


def _tps(x: float) -> str:
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def _ran(p) -> str:
    """How much of the model a measured point (decode or prefill) ran."""
    return f"{p.layers_built} of {p.layers} layers, scaled to {p.layers}" if p.slice else f"all {p.layers} layers"


def _prefill_row(p) -> dict:
    """A measured prefill (calc.MeasuredPrefill) as a table row's texts."""
    return {"prompt": f"{p.prompt:,}", "ttft": f"{p.ttft_s * 1000:,.1f} ms", "measured": f"{_tps(p.tokens_per_s)} tok/s",
            "ceiling": f"{_tps(p.ceiling_tps)} tok/s" if p.ceiling_tps else "—", "ratio": f"{p.ratio:.2f}" if p.ratio else "—"}


def _measured_cells(atlas: Atlas, page: Page, cells: list[dict], fit: "_FitPairs", model: str, device: str) -> None:
    """Put this project's measured single-sequence decode figure (bench/gpu/results) into
    the 16-bit cell of a fit-table row, beside the ceiling: the measured context nearest
    the table's, with its ratio to the ceiling at that context."""
    from generator.knowledge.calc import MEASURED_BITS, measured_for

    if not atlas.measurements:
        return
    for (_label, bits), cell in zip(fit.precisions, cells):
        if bits != MEASURED_BITS:
            continue
        got = measured_for(atlas, model, device, FIT_TOKENS)
        if got is not None:
            cell["measured"] = {"tps": _tps(got.tokens_per_s), "ratio": f"{got.ratio:.2f}" if got.ratio else None,
                                "context": f"{got.context:,}", "cite": page.cite(got.source),
                                "slice": f"{got.layers_built}/{got.layers} layers" if got.slice else ""}


def _measured_table(atlas: Atlas, page: Page, e: Entry) -> dict | None:
    """'Measured by this project' on a model or device page: every record's single-sequence
    decode at each context, and its larger batches at the context nearest 2,048 tokens,
    each beside the ceiling computed for the same batch and context, with the ratio."""
    from generator.knowledge.calc import (
        measured_points,
        measured_prefills,
        nearest_context,
    )

    if e.kind not in ("model", "hardware") or not atlas.measurements:
        return None
    points = measured_points(atlas, model=e.id) if e.kind == "model" else measured_points(atlas, device=e.id)
    if not points:
        return None
    mid = nearest_context({p.context for p in points}, 2048)
    rows = []
    for p in sorted(points, key=lambda p: (p.batch > 1, p.model, p.device, p.batch, p.context, p.source)):
        if p.batch > 1 and p.context != mid:
            continue
        rec = atlas.measurements[p.source]
        kernel = KERNEL_NAMES.get(p.kernel, p.kernel)
        rows.append({"other_a": page.a(p.device if e.kind == "model" else p.model),
                     "ran": f"{_ran(p)}; {kernel}" + ("" if rec.sdpa_backend == "auto" else " (forced)"),
                     "config": f"{p.batch} × {p.context:,}", "measured": f"{_tps(p.tokens_per_s)} tok/s", "cite": page.cite(p.source),
                     "ceiling": f"{_tps(p.ceiling_tps)} tok/s" if p.ceiling_tps else "—",
                     "ratio": f"{p.ratio:.2f}" if p.ratio else "—"})
    prefill = []
    for p in measured_prefills(atlas, model=e.id) if e.kind == "model" else measured_prefills(atlas, device=e.id):
        prefill.append(_prefill_row(p) | {"other_a": page.a(p.device if e.kind == "model" else p.model), "cite": page.cite(p.source),
                                          "ran": f"{_ran(p)}; {KERNEL_NAMES.get(p.kernel, p.kernel)}"})
    recs = list(dict.fromkeys(atlas.measurements[p.source] for p in points))
    copies = sorted(r.copy_gbs for r in recs if r.copy_gbs)
    sheets = sorted({atlas.entries[r.hardware].get("specs")["bandwidth_gbs"]["value"] for r in recs
                     if r.hardware in atlas.entries and "bandwidth_gbs" in (atlas.entries[r.hardware].get("specs") or {})})
    span = lambda xs: f"{xs[0]:,.0f}" if xs[0] == xs[-1] else f"{xs[0]:,.0f}-{xs[-1]:,.0f}"  # noqa: E731
    return {"rows": rows, "prefill": prefill, "subject": "Device" if e.kind == "model" else "Model",
            "any_slice": any(r.slice for r in recs), "moe": any(p.ceiling_tps is None for p in points if p.batch > 1),
            "copy_gbs": span(copies) if copies else None, "datasheet_gbs": span(sheets) if sheets else None}


REFERENCE_BATCH = 32


"""The largest batch of the reference model's cost line on a device page, beside one stream
alone (a smaller one where 32 sequences' caches do not fit)."""


def reference_cost(page: Page, e: Entry, fit: _FitPairs) -> dict | None:
    """Cost and energy of the decode chart's model (figures.charts.DECODE_MODEL, in its
    format and context: fit.reference) on a device page: tokens per joule at the board's TDP
    and, where the entry gives a cloud price, dollars per million tokens, for one stream and
    for a batch."""
    from generator.figures.charts import DECODE_FORMAT, DECODE_TOKENS
    from generator.knowledge.calc import CalcError, cost, device_spec, estimate

    if e.kind != "hardware" or e.get("class") in PER_DEVICE_EXCLUDED or fit.reference is None:
        return None
    d = device_spec(e)
    if not (d.tdp_w or d.hourly_usd) or not d.bandwidth_gbs:
        return None
    _, m, bits, label, bits_source = fit.reference
    try:
        one = estimate(m, d, bits, DECODE_TOKENS, 1)
        # the largest batch up to REFERENCE_BATCH whose caches fit beside the weights
        many = next((x for n in (32, 16, 8, 4, 2) if n <= REFERENCE_BATCH
                     for x in [estimate(m, d, bits, DECODE_TOKENS, n)] if x.fits), one)
    except CalcError:
        return None
    if one.fits is False:
        return None
    c = cost(many, d, single=one)
    specs = e.get("specs")
    money = lambda x: f"${x:,.3f}" if x < 1 else f"${x:,.2f}"  # noqa: E731
    return {"model": page.link(m.id), "format": label, "bits_cite": page.cite(bits_source), "tokens": f"{DECODE_TOKENS:,}",
            "batch": many.sequences if many.sequences > 1 else None, "one_tps": _tps(one.decode_tps) if one.decode_tps else None,
            "batch_tps": _tps(many.decode_total_tps) if many.sequences > 1 and many.decode_total_tps else None,
            "tdp": f"{d.tdp_w:,g}" if d.tdp_w else None, "tdp_cite": page.cite(specs["tdp_w"]["source"]) if d.tdp_w else "",
            "per_j": f"{c.tokens_per_joule:,.2f}" if c.tokens_per_joule else None,
            "batch_per_j": f"{c.batch_tokens_per_joule:,.2f}" if many.sequences > 1 and c.batch_tokens_per_joule else None,
            "price": f"{d.hourly_usd:,.2f}" if d.hourly_usd else None,
            "price_read": (specs.get("cloud_hourly_usd") or {}).get("checked"),
            "input": money(c.input_usd_per_m) if c.input_usd_per_m else None,
            "price_cite": page.cite(specs["cloud_hourly_usd"]["source"]) if d.hourly_usd else "",
            "out": money(c.output_usd_per_m) if c.output_usd_per_m else None,
            "batch_out": money(c.batch_output_usd_per_m) if many.sequences > 1 and c.batch_output_usd_per_m else None,
            "calc": page.to("calculator.md") + f"?model={m.id}&format={DECODE_FORMAT}&context={DECODE_TOKENS}"}


KERNEL_NAMES = {"cudnn_attention": "cuDNN attention", "flash_attention": "FlashAttention",
                "efficient_attention": "memory-efficient attention", "math": "PyTorch's math attention"}


PART_CONTEXTS = (4096, 32768, 65536, 131072)
"""Contexts of the model page's as-released table (those up to the model's own length)."""


def parts_table(atlas: Atlas, page: Page, e: Entry) -> dict | None:
    """'Sized part by part' on a model page: each part of the model (calc.parts) with its
    parameters and the bits its released checkpoint keeps it at (FP16 where the entry names
    no checkpoint format), the weights that makes, what one decoded token reads, and memory
    and the decode ceiling for one sequence at a few contexts on the first device the entry
    says it runs on."""
    from generator.knowledge.calc import PART_LABELS, CalcError, device_spec, estimate, model_spec, precision_for

    if e.kind != "model":
        return None
    m = model_spec(e)
    fact = (e.get("specs") or {}).get("checkpoint_format")
    try:
        p = precision_for(atlas, fact["value"] if fact else "bf16", None)
    except CalcError:
        return None
    try:
        base = estimate(m, None, p, 1, 1)
    except CalcError:
        return None
    rows = [{"part": PART_LABELS[x.name], "params": f"{x.params_b:,.3f}B", "bits": f"{p.of(x.name):g}",
             "gb": f"{x.params_b * p.of(x.name) / 8:,.2f}", "read": f"{x.active_b * p.of(x.name) / 8:,.3f}"}
            for x in (m.parts or ())]
    device = next((atlas.entries[x] for rel, x in e.relations if rel == "runs_on"
                   if x in atlas.entries and atlas.entries[x].kind == "hardware"
                   and "bandwidth_gbs" in (atlas.entries[x].get("specs") or {})), None)
    at = []
    if device is not None:
        d = device_spec(device)
        for t in PART_CONTEXTS:
            if m.context_length and t > m.context_length:
                continue
            try:
                x = estimate(m, d, p, t, 1)
            except CalcError:
                continue
            at.append({"tokens": f"{t:,}", "kv": f"{x.kv_per_sequence_gb:,.2f}", "total": f"{x.total_gb:,.1f}",
                       "fits": x.fits, "decode": f"{x.decode_tps:,.0f}" if x.decode_tps else None})
    return {"rows": rows, "format": p.label, "released": bool(fact), "cite": page.cite(fact["source"]) if fact else "",
            "note": p.note, "weights": f"{base.weights_gb:,.2f}", "read": f"{base.read_gb:,.2f}" if base.read_gb else None,
            "parts_note": m.parts_note, "device": page.a(device.id) if device is not None else None,
            "device_gb": f"{device_spec(device).memory_gb:g}" if device is not None else None, "at": at,
            "calc": page.to("calculator.md") + f"?model={e.id}"}


SIZES_FORMAT, SIZES_CONTEXT = "q4_k_m", 8192
"""The setting a device page's 'By memory size' table sizes models at: the common local
format (part by part: the head at Q6_K) and an 8K conversation, one sequence."""


def memory_sizes(atlas: Atlas, page: Page, e: Entry) -> dict | None:
    """'By memory size' on a device page sold in several memory sizes (its `configurations`):
    each size with what its GPU may use by default, and the largest dense model and the
    largest mixture-of-experts model that fit there at SIZES_FORMAT and SIZES_CONTEXT, with
    their memory and decode ceiling; the calculator's arithmetic, so the page and the
    calculator cannot disagree (issue 44)."""
    from generator.knowledge.calc import CalcError, configurations, estimate, model_spec, precision_for

    if e.kind != "hardware" or not e.get("configurations"):
        return None
    p = precision_for(atlas, SIZES_FORMAT, None)
    models = [(x, model_spec(x)) for x in atlas.of_kind("model")]
    rows = []
    for d, c in zip(configurations(e), e.get("configurations")):
        best: dict[str, tuple] = {}
        for x, m in models:
            if not m.params_b:
                continue
            try:
                est = estimate(m, d, p, min(SIZES_CONTEXT, m.context_length or SIZES_CONTEXT), 1)
            except CalcError:
                continue
            kind = "moe" if m.active_b < m.params_b else "dense"
            if est.fits and (kind not in best or (m.params_b, x.title) > (best[kind][1].params_b, best[kind][0].title)):
                best[kind] = (x, m, est)
        # the largest size's share is the entry's own figure; a smaller one's, the reading at that size
        top = (e.get("specs") or {}).get("memory_gb", {}).get("value") == c["memory_gb"]
        read = (e.get("specs") or {}).get("gpu_memory_default_gb") if top else c.get("gpu_memory_default_gb")
        rows.append({"memory": f"{d.memory_gb:g}", "cite": page.cite(c["source"]),
                     "gpu": f"{d.gpu_default_gb:g}" if d.gpu_default_gb else None,
                     "gpu_cite": page.cite(read["source"]) if read else "",
                     "best": [{"kind": k, "a": page.a(best[k][0].id), "total": f"{best[k][2].total_gb:,.1f}",
                               "decode": f"{best[k][2].decode_tps:,.0f}" if best[k][2].decode_tps else None} if k in best else None
                              for k in ("dense", "moe")]})
    return {"rows": rows, "format": p.label, "tokens": f"{SIZES_CONTEXT:,}",
            "calc": page.to("calculator.md") + f"?device={e.id}"}
