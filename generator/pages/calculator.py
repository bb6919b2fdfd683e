"""The memory and speed calculator page and the data its script reads (models, devices,
formats by family, this project's measurements)."""

from __future__ import annotations

import re

from generator.kb.model import Atlas
from generator.pages.fit import PER_DEVICE_EXCLUDED
from generator.pages.site import Site
from generator.render.labels import SEGMENTS, label
from generator.render.page import Page, _data_attr, front_matter
from generator.render.templates import env


def calculator_data(atlas: Atlas) -> dict:
    """What the calculator page needs: model and device figures, and formats' bits."""
    from generator.knowledge.calc import (
        HOST_BANDWIDTH_GBS,
        LIMITS,
        OVERHEAD_FRACTION,
        UNIFIED_SHARE,
        configurations,
        device_spec,
        model_spec,
    )

    from generator.knowledge.launch import ollama_tag, released_label, repo_of

    models = []
    ids = {o["label"].casefold(): o["id"] for g in format_groups(atlas) for o in g["options"]}
    ids.update({n.casefold(): ids[e.title.casefold()] for e in atlas.of_kind("term") if e.title.casefold() in ids for n in (e.id, *e.aliases)})
    for e in atlas.of_kind("model"):
        m = model_spec(e)
        models.append({"id": m.id, "title": m.title, "params_b": m.params_b, "active_b": m.active_b, "layers": m.layers,
                       "kv_heads": m.kv_heads, "head_dim": m.head_dim, "attention": m.attention,
                       "kv_lora_rank": m.kv_lora_rank, "rope_head_dim": m.rope_head_dim,
                       "full_attention_layers": m.full_attention_layers, "context_length": m.context_length,
                       "kv_bytes_16": m.kv_bytes_16, "sliding_window": m.sliding_window, "sliding_layers": m.sliding_layers,
                       "linear_heads": m.linear_heads, "linear_key_dim": m.linear_key_dim, "linear_value_dim": m.linear_value_dim,
                       "experts_total": m.experts_total, "experts_active": m.experts_active,
                       "linear_key_heads": m.linear_key_heads, "linear_conv": m.linear_conv, "linear_layers": m.linear_layers,
                       "parts": [[x.name, x.params_b, x.active_b] for x in m.parts] if m.parts else None,
                       "parts_note": m.parts_note, "checkpoint_format": _released(e, ids),
                       "developer": e.get("developer") or "Other", "aliases": list(e.aliases),
                       "repo": repo_of(atlas, e), "ollama_tag": ollama_tag(e), "released_label": released_label(e),
                       "url": "../" + e.url.strip("/") + "/"})
    devices = []
    for e in atlas.of_kind("hardware"):
        if e.get("class") in PER_DEVICE_EXCLUDED:
            continue
        # the device as its entry gives it, then each smaller memory size it is sold with (a 64 GB M2 Max)
        top = device_spec(e)
        for d in [top] + [c for c in configurations(e) if c.memory_gb != top.memory_gb]:
            if d.memory_gb or d.bandwidth_gbs:
                devices.append({"id": d.id, "title": d.title, "memory_gb": d.memory_gb, "bandwidth_gbs": d.bandwidth_gbs,
                                "tflops": d.tflops, "tdp_w": d.tdp_w, "segment": e.get("segment"), "gpu_default_gb": d.gpu_default_gb, "max_devices": d.max_devices, "hourly_usd": d.hourly_usd, "hourly_note": d.hourly_note, "hourly_checked": d.hourly_checked,
                                "platform": d.platform, "url": "../" + e.url.strip("/") + "/"})
    from generator.knowledge.compare import PLATFORMS

    return {"models": models, "devices": devices, "segments": [[s, label(s)] for s in SEGMENTS], "platforms": PLATFORMS, "formats": format_groups(atlas), "overhead": OVERHEAD_FRACTION,
            "host_bandwidth_gbs": HOST_BANDWIDTH_GBS, "measured": _calculator_measured(atlas),
            "expected": _calculator_expected(atlas), "launch": _launch_data(atlas),
            "default": {"model": "llama-3-1-8b", "format": "q4_k_m"},
            "unified_share": UNIFIED_SHARE,
            "limits": {"tokens": list(LIMITS["tokens"]), "sequences": list(LIMITS["sequences"]), "bits": [1, 32], "kv_bits": [2, 32],
                       "devices": list(LIMITS["devices"])}}


def _released(e, ids: dict[str, str]) -> str | None:
    """The format option of the model's released checkpoint (its checkpoint_format), if the calculator lists it."""
    name = ((e.get("specs") or {}).get("checkpoint_format") or {}).get("value")
    return ids.get(name.casefold()) if name else None


def _calculator_measured(atlas: Atlas) -> dict:
    """This project's single-sequence decode measurements for the calculator: the bits and
    KV bits they were measured at, and every point with the ceiling calc.py computes for it
    (the page picks the context nearest the reader's, as calc.measured_for does)."""
    from generator.knowledge.calc import (
        MEASURED_BITS,
        measured_points,
        measured_prefills,
    )

    points = []
    for p in measured_points(atlas, batches=(1,)):
        rec = atlas.measurements[p.source]
        points.append({"model": p.model, "device": p.device, "context": p.context, "tokens_per_s": round(p.tokens_per_s, 2),
                       "ceiling_tps": round(p.ceiling_tps, 2) if p.ceiling_tps else None,
                       "ratio": round(p.ratio, 3) if p.ratio else None, "slice": p.slice, "layers_built": p.layers_built,
                       "layers": p.layers, "source": p.source, "title": atlas.sources[p.source].title,
                       "url": f"../{SOURCES_URL}/{p.source}/", "record": rec.path})
    prefill = [{"model": p.model, "device": p.device, "prompt": p.prompt, "tokens_per_s": round(p.tokens_per_s, 1),
                "ttft_ms": round(p.ttft_s * 1000, 2), "slice": p.slice, "layers_built": p.layers_built, "layers": p.layers,
                "source": p.source, "title": atlas.sources[p.source].title, "url": f"../{SOURCES_URL}/{p.source}/"}
               for p in measured_prefills(atlas)]
    return {"bits": MEASURED_BITS, "kv_bits": MEASURED_BITS, "points": points, "prefill": prefill}


def _calculator_expected(atlas: Atlas) -> dict:
    """What the page needs to work out expected speed as calc.calibrate.predict does: every
    calibrating row's ratio with its device, model, format and family, and each device's
    family, vendor and the backends its platform runs."""
    from generator.knowledge.calc import device_family, device_spec, points
    from generator.knowledge.calc.calibrate import BACKENDS, MIN_ROWS, PLATFORM_BACKENDS, WIDEN, _usable, _usable_at_scale, format_key

    rows, scale = {"decode": [], "prefill": []}, {"decode": [], "prefill": []}
    sources: dict[str, int] = {}  # a row's source as a small number: the band counts how many sources it rests on
    for p in points(atlas):
        if _usable(p) or _usable_at_scale(p):  # the second: only for a kind of device with nothing of the first (calibrate.expected)
            (rows if _usable(p) else scale)[p.kind].append([p.row.device, p.row.model, format_key(p.format_label), p.row.engine,
                                                            p.row.backend, p.family[2], round(p.ratio, 9),
                                                            sources.setdefault(p.row.source, len(sources))])
    devices = {}
    for e in atlas.of_kind("hardware"):
        d = device_spec(e)
        devices[e.id] = {"family": device_family(e), "vendor": e.get("vendor") or "",
                         "backends": list(PLATFORM_BACKENDS[d.platform]) if d.platform in PLATFORM_BACKENDS else None}
    engines = sorted({p.row.engine for p in points(atlas)})
    return {"rows": rows, "scale": scale, "devices": devices, "engines": {x: atlas.entries[x].title for x in engines},
            "backends": BACKENDS, "min_rows": MIN_ROWS, "widen": WIDEN}


def _launch_data(atlas: Atlas) -> dict:
    from generator.knowledge.launch import page_data

    return page_data(atlas)


SOURCES_URL = "sources"


def format_groups(atlas: Atlas) -> list[dict]:
    """Weight formats for the calculator, one group per format family (the term that
    defines it: GGUF, EXL2, NVFP4, ...), each option once (names compared without case),
    with its bits per weight and a line saying what it is; families by bits, widest first."""
    groups = []
    # A format that is a term of its own is listed under that term, not again as another
    # family's variant of the same name (MLX's mode "nvfp4" is NVFP4, the MX variant MXFP4 is MXFP4).
    own = {e.title.casefold() for e in atlas.of_kind("term") if e.get("bits_per_weight")}
    for e in atlas.of_kind("term"):
        options, seen = [], set(own - {e.title.casefold()})
        if e.get("bits_per_weight"):
            pb = e.get("part_bits") or {}
            options.append({"id": e.id, "label": e.title, "bits": float(e.get("bits_per_weight")["value"]), "meaning": e.short,
                            "parts": dict(pb["value"]) if pb.get("value") else None, "parts_note": pb.get("note")})
            seen.add(e.title.casefold())
        for var in e.get("variants") or ():
            if var.get("scope", "model") != "model":  # a level for one part (EXL2's output head) is no whole-model format
                continue
            key = var["name"].casefold()
            if key in seen:
                continue
            seen.add(key)
            options.append({"id": re.sub(r"[^a-z0-9]+", "_", key).strip("_"), "label": var["name"],
                            "bits": float(var["bits_per_weight"]), "meaning": f"a {e.title} variant",
                            "parts": dict(var["parts"]) if var.get("parts") else None, "parts_note": var.get("parts_note")})
        if options:
            groups.append({"family": e.title, "options": sorted(options, key=lambda o: -o["bits"]),
                           "runs_on": list((e.get("runs_on") or {}).get("value") or ()) or None})  # as calc.format_platforms
    # Each name once across families: "GGUF Q8_0" is Q8_0; of "mxfp8" (an MLX mode) and
    # "MXFP8" (a microscaling variant) the one written as the format is written wins.
    key = lambda o: re.sub(r"^gguf\s+", "", o["label"].casefold())  # noqa: E731
    ordered = sorted(groups, key=lambda g: -max(o["bits"] for o in g["options"]))
    candidates: dict[str, list[dict]] = {}
    for o in (o for g in ordered for o in g["options"]):
        candidates.setdefault(key(o), []).append(o)
    winner = {k: next((o for o in os if o["label"] != o["label"].lower()), os[0]) for k, os in candidates.items()}
    for g in ordered:
        g["options"] = [o for o in g["options"] if winner[key(o)] is o]
    return [g for g in sorted(groups, key=lambda g: -max(o["bits"] for o in g["options"] or [{"bits": 0}])) if g["options"]]


def _calculator_page(atlas: Atlas) -> str:
    from generator.knowledge.calc import OVERHEAD_FRACTION

    page = Page(atlas, "calculator.md")
    text = env().get_template("calculator.md.j2").render(page=page, data_attr=_data_attr(calculator_data(atlas)),
                                                          overhead=OVERHEAD_FRACTION)
    # A tool page: its five-column table gets the width the left navigation and the table of
    # contents (one heading) would take; the phone's menu still has the navigation.
    return front_matter(title="Memory and speed calculator", atlas_nolink=True, hide=["navigation", "toc"],
                        description="Will a model fit on a device, and how fast can it decode? Computed from sourced figures.") + text


def pages(site: Site) -> dict[str, str]:
    return {"calculator.md": _calculator_page(site.atlas)}
