"""Figures drawn at build time from the entries' own figures: a roofline of every device
and the KV-cache size of every model against context length.

Each figure is hand-written SVG (no plotting library: a log-log chart is a few lines of
arithmetic) followed by a Markdown table of the very numbers it plots, with the entries'
citations, so that a screen reader, a search engine or a sceptical reader gets the data
and where it comes from. Change a bandwidth in a YAML file and the ridge point moves on
the next build.

The SVG keeps within the sanitizer's allow-list (generator/render/sanitize.py): shapes, text and
classes only. Colours and sizes come from docs/assets/atlas.css (`.atlas-fig`), through
Material's CSS variables and currentColor, so the charts read in light and dark mode. The
viewBox is 760 user units wide and the SVG never renders narrower than 680 px (a phone
scrolls it sideways inside its own box), so 14-unit text is never below 12.5 px on screen.
"""

from __future__ import annotations

import math
import re
from typing import Callable, Iterable

from generator.figures import diagrams
from generator.kb.model import Atlas, Entry
from generator.kb.text import esc
from generator.knowledge.calc import NOT_ONE_DEVICE as EXCLUDED_CLASSES  # racks and product families
from generator.knowledge.calc import CalcError, device_spec, estimate, formats, model_spec, precisions
from generator.knowledge.link import NO_LINKS_BELOW
from generator.render.page import html_block, html_table

ROOFLINE_TERMS = ("memory-bandwidth", "arithmetic-intensity", "roofline-model")
KV_TERMS = ("kv-cache",)
DECODE_TERMS = ("memory-bound", "tokens-per-second")

WIDTH, HEIGHT = 760, 470
LEFT, RIGHT, TOP, BOTTOM = 72, 222, 34, 62  # margins: tick labels left, line labels right
FONT = 14  # user units; rendered at >= 680/760 of this (see atlas.css), i.e. >= 12.5 px
LABEL_GAP = 17  # vertical distance between two line labels
INTENSITY = (0.5, 2000.0)  # FLOP per byte, the roofline's x axis
DECODE_BAND = (1.0, 2.0)  # FLOP per byte of a batch-1 decode step (2 FLOP per 16-bit weight read)
KV_TOKENS = (1000.0, 1.2e6)  # the KV chart's x axis
KV_TABLE_TOKENS = 8192
KV_SAMPLES = 24  # points per line on the KV chart (log-spaced): enough for a window's bend


# --- data -----------------------------------------------------------------------------

def _fact(e: Entry, key: str) -> dict | None:
    return (e.get("specs") or {}).get(key)


def roofline_devices(atlas: Atlas) -> list[dict]:
    """Every single device with a memory bandwidth and a dense 16-bit tensor figure (FP16,
    else BF16): its ridge point is where compute, not memory, becomes the limit."""
    out = []
    for e in atlas.of_kind("hardware"):
        bw = _fact(e, "bandwidth_gbs")
        fl = _fact(e, "fp16_tflops") or _fact(e, "bf16_tflops")
        if not (bw and fl) or e.get("class") in EXCLUDED_CLASSES or bw["value"] <= 0 or fl["value"] <= 0:
            continue
        gbs, tflops = float(bw["value"]), float(fl["value"])
        out.append({"entry": e, "bandwidth_gbs": gbs, "tflops": tflops, "ridge": tflops * 1e12 / (gbs * 1e9),
                    "bw_source": bw["source"], "tflops_source": fl["source"]})
    return out


def _kv_fields(spec) -> tuple[str, ...]:
    """The spec fields the per-token figure is computed from (calc.ModelSpec.kv_bytes_per_token)."""
    if spec.kv_bytes_16:
        return ("kv_bytes_per_token",)
    if spec.attention == "mla":
        return ("layers", "kv_lora_rank", "rope_head_dim")
    window = ("sliding_window", "sliding_layers") if spec.sliding_window else ()
    if spec.attention == "hybrid-linear" and spec.full_attention_layers:
        return ("full_attention_layers", "kv_heads", "head_dim", "linear_heads", "linear_key_dim", "linear_value_dim") + window
    return ("layers", "kv_heads", "head_dim") + window


def kv_models(atlas: Atlas) -> list[dict]:
    """Every model whose 16-bit KV cache per token the calculator can work out (calc.py's
    formula: 2 x layers x KV heads x head dim x 2 bytes for MHA/GQA, the latent and RoPE
    widths for MLA, a published figure for other designs); the others are left out."""
    out = []
    for e in atlas.of_kind("model"):
        try:
            spec = model_spec(e)
            per_token = spec.kv_bytes_per_token(16)
        except (CalcError, TypeError, ValueError, KeyError):
            continue
        if not per_token or per_token <= 0:
            continue
        sources = list(dict.fromkeys(_fact(e, k)["source"] for k in _kv_fields(spec) if _fact(e, k)))
        out.append({"entry": e, "bytes_per_token": per_token, "attention": spec.attention, "spec": spec,
                    "gb": lambda t, spec=spec: spec.kv_bytes(t, 16) / 1e9,  # windows capped, recurrent state fixed
                    "context": int(spec.context_length) if spec.context_length else None, "sources": sources})
    return out


# --- drawing --------------------------------------------------------------------------

def _log_scale(lo: float, hi: float, a: float, b: float) -> Callable[[float], float]:
    llo, lhi = math.log10(lo), math.log10(hi)
    return lambda v: a + (math.log10(v) - llo) / (lhi - llo) * (b - a)


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _tick_label(v: float, unit: str = "") -> str:
    if unit == "tokens":
        return f"{v / 1e6:g}M" if v >= 1e6 else f"{v / 1e3:g}K" if v >= 1e3 else f"{v:g}"
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


def _spread(wanted: list[float], lo: float, hi: float) -> list[float]:
    """Label positions near `wanted` (any order), at least LABEL_GAP apart, within lo..hi
    (as far as they fit)."""
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    placed = [0.0] * len(wanted)
    last = lo - LABEL_GAP
    for i in order:  # top down, each below the one before
        last = placed[i] = max(wanted[i], last + LABEL_GAP)
    below = hi + LABEL_GAP
    for i in reversed(order):  # pushed off the bottom: slide the run back up
        below = placed[i] = min(placed[i], below - LABEL_GAP)
    return placed


def _frame(x: Callable[[float], float], y: Callable[[float], float], xs: Iterable[float], ys: Iterable[float],
           xunit: str, xtitle: str, ytitle: str) -> list[str]:
    """Grid lines, tick labels and axis titles."""
    x0, x1, y0, y1 = LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, TOP
    out = ['<g class="atlas-fig__grid">']
    for v in xs:
        out.append(f'<line x1="{_n(x(v))}" y1="{y1}" x2="{_n(x(v))}" y2="{y0}"/>')
    for v in ys:
        out.append(f'<line x1="{x0}" y1="{_n(y(v))}" x2="{x1}" y2="{_n(y(v))}"/>')
    out.append("</g>")
    out.append(f'<g class="atlas-fig__axis"><line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}"/>'
               f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}"/></g>')
    for v in xs:
        out.append(f'<text x="{_n(x(v))}" y="{y0 + 20}" text-anchor="middle">{_tick_label(v, xunit)}</text>')
    for v in ys:
        out.append(f'<text x="{x0 - 8}" y="{_n(y(v) + 5)}" text-anchor="end">{_tick_label(v)}</text>')
    out.append(f'<text x="{_n((x0 + x1) / 2)}" y="{HEIGHT - 14}" text-anchor="middle">{esc(xtitle)}</text>')
    out.append(f'<text x="{x0 - 8}" y="{TOP - 14}" text-anchor="start">{esc(ytitle)}</text>')
    return out


def _labels(points: list[tuple[float, float, str, bool]]) -> list[str]:
    """Each line's name to the right of where it ends, spread apart, with a leader line."""
    ys = _spread([p[1] for p in points], TOP + 5, HEIGHT - BOTTOM)
    out = []
    for (px, py, text, hi), ly in zip(points, ys):
        cls = "atlas-fig__label atlas-fig__label--hi" if hi else "atlas-fig__label"
        out.append(f'<polyline class="atlas-fig__leader" points="{_n(px + 2)},{_n(py)} {_n(px + 8)},{_n(ly)} {_n(px + 12)},{_n(ly)}"/>')
        out.append(f'<text class="{cls}" x="{_n(px + 14)}" y="{_n(ly + 5)}">{esc(text)}</text>')
    return out


def _svg(label: str, parts: list[str], cls: str) -> str:
    return (f'<div class="atlas-fig {cls}"><p class="atlas-fig__hint">Scroll sideways for the whole chart; '
            f'the table under it has every figure.</p><svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-label="{esc(label)}" focusable="false">' + "".join(parts) + "</svg></div>")


def _decades(lo: float, hi: float) -> list[float]:
    return [10.0 ** k for k in range(math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9) + 1)]


def _short(e: Entry) -> str:
    vendor = e.get("vendor") or ""
    return e.title[len(vendor) + 1:] if vendor and e.title.startswith(vendor + " ") else e.title


LABEL_CHARS = 22
"""The longest name a chart's right margin holds beside its figure."""

ROOFLINE_LABEL_CHARS = 16
"""The roofline's names are followed by their ridge point ('· ridge 281'): a shorter name."""


def _label_name(e: Entry, limit: int = LABEL_CHARS) -> str:
    """A line's name in a chart's right margin: without the vendor or a parenthetical
    codename ("Cloud TPU7x (Ironwood)" is "Cloud TPU7x"), so it fits the margin; a name
    still too long gives way to the shortest of its aliases written with spaces that fits
    ("Nemotron Super 49B"), else it is cut."""
    name = re.sub(r"\s*\([^)]*\)", "", _short(e))
    if len(name) <= limit:
        return name
    vendor = (e.get("vendor") or "") + " "
    fits = sorted((a for a in e.aliases if " " in a and "/" not in a and len(a) <= limit),
                  key=lambda a: (a.startswith(vendor), -len(a), a))  # the vendor is the name the label drops first
    return fits[0] if fits else name[:limit - 1].rstrip() + "…"


def roofline_svg(devices: list[dict]) -> str:
    xlo, xhi = INTENSITY
    ylo = 10.0 ** math.floor(math.log10(min(d["bandwidth_gbs"] * xlo / 1000 for d in devices)))
    yhi = 10.0 ** math.ceil(math.log10(max(d["tflops"] for d in devices)))
    x = _log_scale(xlo, xhi, LEFT, WIDTH - RIGHT)
    y = _log_scale(ylo, yhi, HEIGHT - BOTTOM, TOP)
    parts = _frame(x, y, _decades(xlo, xhi), _decades(ylo, yhi), "", "Arithmetic intensity (FLOP per byte)",
                   "Attainable dense 16-bit TFLOPS")
    a, b = DECODE_BAND
    parts.append(f'<rect class="atlas-fig__band" x="{_n(x(a))}" y="{TOP}" width="{_n(x(b) - x(a))}" height="{HEIGHT - BOTTOM - TOP}"/>')
    parts.append(f'<text class="atlas-fig__note" x="{_n(x(a) + 4)}" y="{TOP + 18}">decode at batch 1</text>')
    labels = []
    for d in sorted(devices, key=lambda d: -d["tflops"]):
        r, t = d["ridge"], d["tflops"]
        start = max(xlo, 1000 * ylo / d["bandwidth_gbs"])
        pts = [(start, d["bandwidth_gbs"] * start / 1000), (r, t), (xhi, t)] if r < xhi else \
            [(start, d["bandwidth_gbs"] * start / 1000), (xhi, d["bandwidth_gbs"] * xhi / 1000)]
        did = esc(d["entry"].id)
        parts.append(f'<polyline class="atlas-fig__line" data-id="{did}" points="' + " ".join(f"{_n(x(px))},{_n(y(py))}" for px, py in pts) + '"/>')
        if r < xhi:
            parts.append(f'<circle class="atlas-fig__ridge" data-id="{did}" cx="{_n(x(r))}" cy="{_n(y(t))}" r="4.5"/>')
        labels.append((x(xhi), y(min(t, d["bandwidth_gbs"] * xhi / 1000)), f"{_label_name(d['entry'], ROOFLINE_LABEL_CHARS)} · ridge {r:,.0f}", False))
    parts += _labels(labels)
    names = ", ".join(f"{d['entry'].title} ridge at {d['ridge']:,.0f} FLOP per byte" for d in devices)
    return _svg(f"Roofline chart, log-log: attainable dense 16-bit TFLOPS against arithmetic intensity for "
                f"{len(devices)} devices; {names}. The table below gives the figures.", parts, "atlas-fig--roofline")


KV_CHART_LIMIT = 12
"""Lines on one KV chart: past a dozen they cannot be told apart. The chart draws the
highlighted one and others spread over the range of sizes; on the KV-cache page the table
under it lists every model, on a model page the ones drawn."""


def chart_models(models: list[dict], highlight: str | None = None) -> list[dict]:
    if len(models) <= KV_CHART_LIMIT:
        return models
    ranked = sorted(models, key=lambda m: (m["gb"](min(m["context"] or KV_TOKENS[1], KV_TOKENS[1])), m["entry"].id))
    picks = {round(i * (len(ranked) - 1) / (KV_CHART_LIMIT - 2)) for i in range(KV_CHART_LIMIT - 1)}
    chosen = {ranked[i]["entry"].id for i in picks} | ({highlight} if highlight else set())
    return [m for m in models if m["entry"].id in chosen]


def kv_svg(models: list[dict], highlight: str | None = None) -> str:
    models = chart_models(models, highlight)
    xlo, xhi = KV_TOKENS
    ends = [(m, min(m["context"] or xhi, xhi)) for m in models]
    ylo = 10.0 ** math.floor(math.log10(min(m["gb"](xlo) for m in models)) + 0.05)
    yhi = 10.0 ** math.ceil(math.log10(max(m["gb"](end) for m, end in ends)))
    x = _log_scale(xlo, xhi, LEFT, WIDTH - RIGHT)
    y = _log_scale(ylo, yhi, HEIGHT - BOTTOM, TOP)
    parts = _frame(x, y, _decades(xlo, xhi), _decades(ylo, yhi), "tokens", "Context length (tokens, one sequence)",
                   "KV cache, 16-bit (GB)")
    labels, last = [], []
    for m, end in sorted(ends, key=lambda p: p[0]["entry"].id == highlight):  # the highlighted line on top
        hi = m["entry"].id == highlight
        cls = "atlas-fig__line atlas-fig__line--hi" if hi else "atlas-fig__line"
        gb = m["gb"]
        # Sampled in log space: a straight line for a cache that grows with every token, a bend
        # where local layers stop at their window; a line that starts below the axis starts on it.
        steps = [xlo * (end / xlo) ** (i / KV_SAMPLES) for i in range(KV_SAMPLES + 1)]
        points = " ".join(f"{_n(x(t))},{_n(y(gb(t)))}" for t in steps if gb(t) >= ylo)
        parts.append(f'<polyline class="{cls}" data-id="{esc(m["entry"].id)}" points="{points}"/>')
        parts.append(f'<circle class="atlas-fig__ridge{" atlas-fig__ridge--hi" if hi else ""}" data-id="{esc(m["entry"].id)}" cx="{_n(x(end))}" cy="{_n(y(gb(end)))}" r="4"/>')
        labels.append((x(xhi), y(gb(end)), f"{_label_name(m['entry'])} · {gb(end):,.1f} GB", hi))
        last.append((x(end), y(gb(end))))
    # Every label in the right margin, level with where its line ends, joined to that end.
    parts += [f'<line class="atlas-fig__leader" x1="{_n(px + 5)}" y1="{_n(py)}" x2="{_n(x(xhi))}" y2="{_n(py)}"/>'
              for px, py in last if x(xhi) - px > 8]
    parts += _labels(labels)
    names = ", ".join(f"{m['entry'].title} {m['bytes_per_token']:,.0f} bytes per token" for m in models)
    what = f"; {models_title(models, highlight)} highlighted" if highlight else ""
    return _svg(f"KV-cache size against context length, log-log, for {len(models)} models{what}: {names}. "
                f"The table below gives the figures.", parts, "atlas-fig--kv")


def models_title(models: list[dict], mid: str | None) -> str:
    return next((m["entry"].title for m in models if m["entry"].id == mid), "")


# --- Markdown -------------------------------------------------------------------------

def roofline_md(atlas: Atlas, page, level: int = 2) -> str:
    devices = roofline_devices(atlas)
    if not devices:
        return ""
    rows = [[page.a(d['entry'].id), f"{d['bandwidth_gbs']:,g}{page.cite(d['bw_source'])}",
             f"{d['tflops']:,g}{page.cite(d['tflops_source'])}", f"{d['ridge']:,.0f}", f"{d['bandwidth_gbs'] / 1000:,.3g}"]
            for d in sorted(devices, key=lambda d: d["ridge"])]
    h = "#" * level
    return (f"{h} Roofline of every device {{ #fig-roofline data-search-exclude }}\n"
            + html_block(roofline_svg(devices)) +
            "Each line is one device: below its ridge point a kernel is limited by memory bandwidth "
            "(attainable TFLOPS = bandwidth × FLOP per byte), above it by dense 16-bit tensor compute. "
            "The ridge point is compute ÷ bandwidth. The shaded band is decode at batch 1, which does "
            "about 2 FLOP per 2-byte weight read (1 to 2 FLOP per byte): every device sits far left of its ridge "
            "there, which is why decode speed follows bandwidth. Drawn at build time from the figures below; "
            "racks and product families are left out.\n"
            "{: .atlas-note }\n"
            + html_block(html_table(["Device", "Memory bandwidth (GB/s)", "Dense FP16/BF16 (TFLOPS)", "Ridge point (FLOP/byte)",
                                     "Attainable at 1 FLOP/byte (TFLOPS)"], rows, frozenset({1, 2, 3, 4}))))


def kv_md(atlas: Atlas, page, highlight: str | None = None, level: int = 2) -> str:
    models = kv_models(atlas)
    if not models or (highlight and highlight not in {m["entry"].id for m in models}):
        return ""
    # A model page lists the models its chart draws; the KV-cache page lists every one, so a
    # model page weighs the same whatever the size of the catalogue (issue 48).
    every = next((t for t in KV_TERMS if t in atlas.entries), None)
    listed = chart_models(models, highlight) if highlight else models
    rows = []
    for m in listed:
        e = m["entry"]
        name = f"<strong>{esc(e.title)}</strong>" if e.id == highlight else page.a(e.id)
        full = f"{m['context']:,} → {m['gb'](m['context']):,.2f}" if m["context"] else ""
        rows.append([name, esc(_attention(m['attention'], m['spec'])), f"{m['bytes_per_token']:,.0f}{page.cites(m['sources'])}",
                     f"{m['gb'](KV_TABLE_TOKENS):,.2f}", full])
    h = "#" * level
    lead = (f"{esc(models_title(models, highlight))}'s line is highlighted among the other models'. " if highlight else "")
    if len(listed) < len(models):
        where = (f"[the KV-cache page]({page.to(atlas.entries[every].src_path)}#fig-kv-cache) lists them all" if every
                 else f"the [calculator]({page.to('calculator.md')}) sizes any of them")
        lead += f"The chart and the table show {len(listed)} of the {len(models)} models, spread over the range of sizes; {where}. "
    elif len(models) > KV_CHART_LIMIT:
        lead += (f"The chart draws {len(chart_models(models, highlight))} of the {len(models)} models, spread over the range "
                 "of sizes; the table lists them all. ")
    return (f"{h} KV cache against context length {{ #fig-kv-cache data-search-exclude }}\n"
            + html_block(kv_svg(models, highlight))
            + lead + "Memory of the KV cache for one sequence at 16 bits, up to each model's context length. "
            "Bytes per token = 2 (keys and values) × layers × KV heads × head dimension × 2 bytes; for "
            "multi-head latent attention, layers × (latent width + RoPE key width) × 2 bytes; for other "
            "designs, the published figure. Layers with a sliding window (or a chunk) add at most the window's "
            "tokens, so their lines bend and the per-token column counts only the layers that keep every token; "
            "hybrid models add their recurrent state once. The same formula as the [calculator]("
            + page.to("calculator.md") + "); models without the figures it needs are left out.\n"
            "{: .atlas-note }\n"
            + html_block(html_table(["Model", "Attention", "KV cache per token, 16-bit (bytes)", f"At {KV_TABLE_TOKENS:,} tokens (GB)",
                                     "Full context (tokens → GB)"], rows, frozenset({2, 3, 4}))))


# --- decode ceiling per device ---------------------------------------------------------

DECODE_MODEL, DECODE_FORMAT, DECODE_TOKENS = "llama-3-1-8b", "q4_k_m", 4096
"""The calculator's opening example: one 8B model in the 4-bit format most local users run,
at a 4,096-token context, one sequence."""


def decode_devices(atlas: Atlas, model: str = DECODE_MODEL, fmt: str = DECODE_FORMAT,
                   tokens: int = DECODE_TOKENS) -> tuple[dict, list[dict]]:
    """Every single device with a memory bandwidth, and the model's batch-1 decode ceiling on
    it (calc.estimate: bandwidth / bytes one token reads), or why there is none."""
    m = atlas.entries.get(model)
    table = formats(atlas)
    if m is None or fmt not in table:
        return {}, []
    spec = model_spec(m)
    bits, label, bits_source = table[fmt]
    precision = precisions(atlas)[fmt]  # each part at the bits the format keeps it at (Q4_K_M: the head at Q6_K)
    out = []
    for e in atlas.of_kind("hardware"):
        bw = _fact(e, "bandwidth_gbs")
        if not bw or bw["value"] <= 0 or e.get("class") in EXCLUDED_CLASSES:
            continue
        est = estimate(spec, device_spec(e), precision, min(tokens, spec.context_length or tokens))
        mem = _fact(e, "memory_gb")
        out.append({"entry": e, "bandwidth_gbs": float(bw["value"]), "bw_source": bw["source"],
                    "memory_gb": float(mem["value"]) if mem else None, "mem_source": mem["source"] if mem else None,
                    "fits": est.fits, "tps": est.decode_tps, "gb": est.total_gb})
    out.sort(key=lambda d: (d["tps"] is None, -(d["tps"] or 0), d["entry"].title))
    params = _fact(m, "params_total_b")
    what = {"model": m, "label": label, "bits": bits, "tokens": tokens, "bits_source": bits_source,
            "params_source": params["source"] if params else None,
            "read_gb": spec.bytes_read(precision, 1) / 1e9 + spec.kv_bytes(tokens, 16) / 1e9}
    return what, out


def _decode_canvas(w: int, what: dict, devices: list[dict]) -> diagrams.Canvas:
    c = diagrams.Canvas(w)
    narrow = w < diagrams.WIDE
    top = max(d["tps"] or 0 for d in devices) or 1
    name_w = 0 if narrow else 200
    x0, x1 = 4 + name_w, w - (70 if not narrow else 64)
    row = 26 if not narrow else 40
    y = 8
    c.text(x0, y + 10, "tokens per second, one sequence →", "small", "start")
    y += 22
    for d in devices:
        name = _short(d["entry"])
        by = y + (18 if narrow else 0)
        if narrow:
            c.text(4, y + 13, name, "small", "start")
        else:
            c.text(x0 - 8, y + 15, name, "small", "end")
        if d["tps"] is not None:
            bw = max(2.0, (x1 - x0) * d["tps"] / top)
            c.parts.append(f'<rect class="atlas-dg__tok--p" data-id="{esc(d["entry"].id)}" x="{_n(x0)}" y="{_n(by + 2)}" '
                           f'width="{_n(bw)}" height="18" rx="2"/>')
            c.text(x0 + bw + 6, by + 16, f"{d['tps']:,.0f}", "small", "start")
        else:
            why = f"does not fit in {d['memory_gb']:g} GB" if d["fits"] is False and d["memory_gb"] else "no figure"
            c.rect(x0, by + 2, 18, 18, "free", 2)
            c.text(x0 + 24, by + 16, why, "small", "start")
        y += row
    return c


def decode_md(atlas: Atlas, page, level: int | None = 2) -> str:
    """A bar per device: the batch-1 decode ceiling of one model in one format, with the table
    of its numbers and their citations. Drawn twice like the diagrams (wide and narrow)."""
    what, devices = decode_devices(atlas)
    if not devices:
        return ""
    m = what["model"]
    title = f"Decode ceiling of {m.title} at {what['label']} on every device"
    names = "; ".join(f"{d['entry'].title} {d['tps']:,.0f} tokens per second" if d["tps"] is not None else
                      f"{d['entry'].title} does not fit" for d in devices)
    alt = (f"Bar chart: {title}, one sequence at a {what['tokens']:,}-token context, tokens per second: {names}. "
           "The table below gives the figures.")
    svg = (_decode_canvas(diagrams.WIDE, what, devices).svg(alt, "atlas-dg__wide")
           + _decode_canvas(diagrams.NARROW, what, devices).svg(alt, "atlas-dg__narrow"))
    caption = (f"<strong>{esc(title)}.</strong> Tokens per second for one sequence = memory bandwidth ÷ bytes read per "
               f"token ({what['read_gb']:,.1f} GB: the weights a token reads, each part at its {esc(what['label'])} bits, plus a {what['tokens']:,}-token KV cache). "
               "A ceiling, not a measurement; drawn at build time from the entries.")
    fig = (f'<figure class="atlas-dg atlas-dg--chart" id="fig-decode-ceiling-chart" data-chart="decode-ceiling">'
           f"{svg}<figcaption>{caption}</figcaption></figure>")
    rows = [[page.a(d['entry'].id), f"{d['bandwidth_gbs']:,g}{page.cite(d['bw_source'])}",
             f"{d['memory_gb']:,g}{page.cite(d['mem_source'])}" if d["memory_gb"] else "unknown",
             f"{d['tps']:,.0f}" if d["tps"] is not None else
             f"does not fit ({d['gb']:,.1f} GB needed)" if d["fits"] is False else "—"]
            for d in devices]
    head = (f"{'#' * level} Decode ceiling per device {{ #fig-decode-ceiling data-search-exclude }}\n\n" if level else "")
    cite = page.cite(what["params_source"]) if what["params_source"] else ""
    return (head + html_block(fig) +
            f"{page.link(m.id)} ({_n(float(m.get('specs')['params_total_b']['value']))} billion parameters{cite}) at "
            f"{esc(what['label'])}, {what['bits']:g} bits per weight{page.cite(what['bits_source'])}, "
            f"batch 1, {what['tokens']:,} tokens of context: the same estimate as the "
            f"[calculator]({page.to('calculator.md')}). Real engines reach a fraction of it.\n"
            "{: .atlas-note }\n"
            + html_block(html_table(["Device", "Memory bandwidth (GB/s)", "Memory (GB)", "Decode ceiling (tokens/s)"], rows,
                                    frozenset({1, 2, 3}))))


CHARTS = {"decode-ceiling": lambda atlas, page: decode_md(atlas, page, level=None),
          "roofline": lambda atlas, page: roofline_md(atlas, page, level=3)}
"""Data-drawn charts a handwritten page may ask for with `<!-- atlas:figure NAME -->`."""


def _attention(value: str | None, spec=None) -> str:
    from generator.render.labels import VALUE_LABELS

    label = VALUE_LABELS.get(value or "", value or "")
    if spec is not None and spec.sliding_window and spec.sliding_layers:
        label += f", {spec.sliding_layers} of {spec.layers} layers windowed ({spec.sliding_window:,})"
    return label


# --- where they go --------------------------------------------------------------------

def entry_figures(atlas: Atlas, page, e: Entry) -> str:
    """The figures an entry's page shows, as Markdown ('' for most entries): the diagram of
    the idea it names (diagrams.FOR_ENTRY, by id), then any chart drawn from the data."""
    out = diagrams.for_entry(e.id) if e.kind == "term" else ""
    if e.kind == "term" and e.id in ROOFLINE_TERMS:
        out += roofline_md(atlas, page)
    if e.kind == "term" and e.id in KV_TERMS:
        out += kv_md(atlas, page)
    if e.kind == "term" and e.id in DECODE_TERMS:
        out += decode_md(atlas, page)
    if e.kind == "model":
        out += kv_md(atlas, page, highlight=e.id)
    return out


def place(text: str, atlas: Atlas, page, e: Entry) -> str:
    """An entry page with its figures put where its prose ends (after the body, the tables
    and the disputes; before the neighbourhood), out of reach of the term linker."""
    fig = entry_figures(atlas, page, e)
    if not fig:
        return text
    at = text.find(NO_LINKS_BELOW)
    if at < 0:
        return text + "\n" + fig
    at += len(NO_LINKS_BELOW)
    return text[:at] + "\n\n" + fig + text[at:]


def index_figures(atlas: Atlas, page, kind: str) -> str:
    """What an index page adds below its list: the hardware index gets the roofline and the
    decode ceiling per device, with their own numbered sources."""
    if kind != "hardware":
        return ""
    from generator.render.page import sources_md

    fig = roofline_md(atlas, page) + decode_md(atlas, page)
    return "\n" + fig + sources_md(page, [atlas.sources[s] for s in page.sources]) if fig else ""
