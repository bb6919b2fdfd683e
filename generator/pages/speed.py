"""Speed measured by others: the 'Expected speed' page (every published row beside its
ceiling, the families calibrated from them with their leave-one-out check, and the method),
and the section of a model or device page that shows its own rows and what its expected
figures rest on (calc.calibrate)."""

from __future__ import annotations

from generator.kb.model import Atlas, Entry
from generator.kb.text import esc_html
from generator.pages.site import Site
from generator.render.labels import wait, wait_band
from generator.render.page import Page, front_matter, html_block, html_table

SRC = "calculator/expected-speed.md"

REFERENCE_PROMPT = 1024
"""The prompt of the time to the first token a device page states."""


def _tps(x: float | None) -> str:
    return "—" if not x else f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def _engine(atlas: Atlas, page: Page, r) -> str:
    from generator.knowledge.calc.calibrate import BACKENDS

    return f"{page.a(r.engine)} ({BACKENDS.get(r.backend, r.backend)})<br><span class='atlas-sub'>{esc_html(r.version)}</span>"


def _row_cells(atlas: Atlas, page: Page, p, subject: str | None) -> list[str]:
    """A published row as table cells: [model or device,] format, engine, test, measured, ceiling, ratio."""
    r = p.row
    what = {"model": page.a(r.model), "device": page.a(r.device) + (f" × {r.devices}" if r.devices > 1 else "")}
    test = (esc_html(r.test) + (f", batch {r.batch}" if r.batch > 1 else "")
            + (f", over {r.devices}" if r.devices > 1 and subject == "model" else ""))  # a device page: how many of it ran
    ratio = f"{p.ratio:.2f}" if p.ratio else "—"
    if p.ratio and p.ratio > 1:
        ratio += ("<br><span class='atlas-sub' title='Above the ceiling: the file it ran is smaller than the format as "
                  "the calculator sizes it, or the engine used a faster unit than the ceiling counts. It calibrates nothing.'>above the ceiling</span>")
    elif r.excluded:
        ratio += f"<br><span class='atlas-sub' title='{esc_html(r.excluded)}'>set aside</span>"
    measured = f"{_tps(r.tps)}{page.cite(r.source)}"
    if r.url:
        measured = f'<a href="{esc_html(r.url)}">{_tps(r.tps)}</a>{page.cite(r.source)}'
    cells = [what[subject]] if subject else [what["device"], what["model"]]
    return cells + [f"{esc_html(p.format_label)}<br><span class='atlas-sub'>{esc_html(r.checkpoint)}</span>", _engine(atlas, page, r), test,
                    measured, _tps(p.ceiling), ratio]


HEAD = ["Format", "Engine", "Test", "Measured tok/s", "Ceiling", "Ratio"]


def published(atlas: Atlas, page: Page, e: Entry) -> dict | None:
    """'Speed you can expect' on a model or device page: what its expected figures rest on
    and the published rows of it, each beside its ceiling."""
    from generator.figures.charts import DECODE_FORMAT, DECODE_MODEL
    from generator.knowledge.calc import CalcError, device_spec, estimate, model_spec, points, precision_for, speeds

    if e.kind not in ("model", "hardware"):
        return None
    mine = [p for p in points(atlas) if (p.row.model if e.kind == "model" else p.row.device) == e.id]
    subject = "device" if e.kind == "model" else "model"
    rows = [_row_cells(atlas, page, p, subject) for p in sorted(
        mine, key=lambda p: (p.kind, atlas.entries[getattr(p.row, subject)].title, p.format_label, p.row.test, -p.row.tps))]
    basis = None
    sized = e.kind == "hardware" and (e.get("specs") or {}).get("memory_gb") and e.get("class") not in ("cluster", "family")
    if sized and not (e.get("specs") or {}).get("bandwidth_gbs"):
        basis = {"missing": "no memory-bandwidth figure yet, so no decode ceiling and nothing to expect beside it"}
    elif sized and DECODE_MODEL in atlas.entries:
        d = device_spec(e)
        # a data-centre accelerator serves the release as it is (vLLM, SGLang), not a llama.cpp file
        fmt = "bf16" if e.get("segment") == "data-centre" else DECODE_FORMAT
        try:
            prec = precision_for(atlas, fmt, None)
            est = estimate(model_spec(atlas.entries[DECODE_MODEL]), d, prec, 4096, 1)
        except CalcError:
            est = None
        if est is not None and est.decode_tps:
            x = speeds(atlas, DECODE_MODEL, e.id, fmt, est.decode_tps, est.prefill_tps, REFERENCE_PROMPT)
            ttft, fast, slow = x.ttft_s
            basis = {"model": page.a(DECODE_MODEL), "format": prec.label, "ceiling": _tps(est.decode_tps),
                     "tps": _tps(x.decode.tps), "low": _tps(x.decode.low), "high": _tps(x.decode.high),
                     "decode_basis": x.decode.basis, "decode_from": x.decode.basis_text,
                     "prefill_basis": x.prefill.basis, "prefill_from": x.prefill.basis_text,
                     "prompt": f"{REFERENCE_PROMPT:,}", "ttft_ceiling": wait(x.ttft_ceiling_s) if x.ttft_ceiling_s else None,
                     "ttft": wait_band(ttft, fast, slow) if ttft else None}
    if not rows and basis is None:
        return None
    head = [subject.capitalize()] + HEAD
    return {"basis": basis, "table": html_table(head, rows, right=frozenset({4, 5, 6})) if rows else None,
            "n": len(rows), "method": page.to(SRC)}


def pages(site: Site) -> dict[str, str]:
    from generator.knowledge.calc import families, points
    from generator.knowledge.calc.calibrate import MIN_ROWS, WIDEN
    from generator.knowledge.calc.measured import measured_points

    atlas = site.atlas
    page = Page(atlas, SRC)
    pts = points(atlas)
    def family_table(at_scale: bool) -> str:
        rows = []
        for kind in ("decode", "prefill"):
            for f in families(atlas, kind, at_scale=at_scale):
                loo = (f"{f.loo_error:.0%}" if f.loo_error is not None else "—")
                inside = f"{f.loo_inside} of {f.loo_n}" if f.loo_n else "—"
                rows.append([kind, esc_html(f.label), str(f.band.n), f"{f.band.ratio:.2f}",
                             f"{f.band.low:.2f}–{f.band.high:.2f}" + (" (thin)" if f.band.thin else ""), loo, inside])
        return html_table(["Kind", "Engine on devices", "Rows", "Median ratio", "Band", "Held-out error", "Held-out inside band"],
                          rows, right=frozenset({2, 3, 4, 5, 6}))

    fam_table, scale_table = family_table(False), family_table(True)
    order = sorted(pts, key=lambda p: (atlas.entries[p.row.device].title, atlas.entries[p.row.model].title, p.kind,
                                       p.format_label, p.row.test))
    all_rows = html_table(["Device", "Model"] + HEAD, [_row_cells(atlas, page, p, None) for p in order],
                          right=frozenset({5, 6, 7}))
    own = [p for p in measured_points(atlas, batches=(1,))]
    own_rows = html_table(["Device", "Model", "Context", "Measured tok/s", "Ceiling", "Ratio"],
                          [[page.a(p.device), page.a(p.model), f"{p.context:,}", f"{_tps(p.tokens_per_s)}{page.cite(p.source)}",
                            _tps(p.ceiling_tps), f"{p.ratio:.2f}" if p.ratio else "—"] for p in own],
                          right=frozenset({2, 3, 4, 5}))
    devices = {p.row.device for p in pts}
    engines = sorted({atlas.entries[p.row.engine].title for p in pts})
    files = sorted({p.row.source for p in pts})
    lines = [
        "# Expected speed", "",
        f"A ceiling says what a device cannot beat; engines reach a share of it, and the share depends on the engine, its "
        f"backend, the kind of device and the model. This page holds {len(pts)} speeds that others measured and "
        f"published, on {len(devices)} devices, with {', '.join(engines)}, read in {len(files)} sources, each beside "
        "the ceiling the calculator computes for the same model, format, device and context. From their ratios the "
        "calculator, the fit tables and `atlas fit` give what a reader can expect, with a band.", "",
        "## How expected speed is worked out { #method }", "",
        "1. **Ratio.** For each row, the measured tokens per second over the ceiling: for decoding (a *tg* test, one "
        "token after another) the bandwidth ceiling at the middle of the test's context; for a prompt (a *pp* test) "
        "the dense 16-bit tensor ceiling, 2 FLOP per active parameter per token.",
        "2. **Family.** Rows of one engine and backend on one kind of device: Apple chips by tier (Max, Ultra), other "
        "devices by vendor and memory (GPUs with GDDR memory, GPUs with HBM, systems with LPDDR memory), since an "
        "engine's fixed costs per token weigh more against HBM's bandwidth. Only rows of one sequence on one device "
        "calibrate; a row set aside by its file (an outlier in its own table, a speculative-decoding run) is shown, "
        "not used, and so is a row above its ceiling (the file it ran was smaller than the format as the calculator "
        "sizes it, or the engine used a faster unit than the ceiling counts, such as INT8 tensor cores for a "
        "quantized prompt).",
        "3. **Expected.** For a model, format and device, the first of: *measured*, rows of that device, model and "
        "format; *calibrated*, its family's rows (those of the same format where there are at least "
        f"{MIN_ROWS}, otherwise all of them). Where that kind of device has no row of one sequence on one device "
        "(every published run on TPUs, Trainium and Gaudi is split over several chips or serves many requests at "
        "once), its own rows at scale calibrate, with the band widened a further third each way and the basis saying "
        "so; failing those, the same engine on the vendor's other kinds of device, with a wider band; otherwise "
        "*ceiling only*. An engine measured on one vendor's hardware calibrates nothing on another's. Named an engine, the "
        "figure is that engine's; otherwise it is the engine with most rows there.",
        f"4. **Band.** The lowest to the highest ratio of those rows; with fewer than {MIN_ROWS}, or all from one "
        f"source (one table's runs share its machine, build and method), widened by {WIDEN:.0%} each way. The expected figure is the median ratio. None of them may pass the ceiling: a "
        "ratio is capped at 1.",
        "5. **Checked on held-back rows.** Each row is predicted, by its own engine, from all the other rows; the "
        "table gives the median error of those predictions and how many fell inside the band made without them.", "",
        "## Families { #families }", "", html_block(fam_table),
        "## Families calibrated from runs at scale { #families-at-scale }", "",
        "Every published run on these devices is split over several chips or serves many requests at once (step 3 of "
        "the method): their bands are widened a further third each way, and each row is checked against the others "
        "of its kind of device in the same way.", "", html_block(scale_table),
        "## Every published row { #rows }", "",
        "Measured as the source printed it (the mean of its runs where it ran several); the test as llama-bench names it "
        "(pp512: a 512-token prompt; tg128: 128 tokens generated; @d4096: after 4,096 tokens already in the cache).", "",
        html_block(all_rows),
        "## Measured by this project { #own }", "",
        "This project's own GPU suite runs plain PyTorch with unfused kernels and random weights: not a serving engine. "
        "Its figures stand here as what they are, and calibrate nothing.", "",
        html_block(own_rows),
    ]
    from generator.render.page import sources_md

    text = "\n".join(lines) + "\n" + sources_md(page, [atlas.sources[s] for s in page.sources])
    return {SRC: front_matter(title="Expected speed", atlas_nolink=True, hide=["navigation"],
                              description="Speeds others published beside the calculator's ceilings, and the expected speed calibrated from them.")
            + text}
