"""A page per source (what cites it) and per GPU measurement record, and the sources index."""

from __future__ import annotations

from typing import Any

from generator.kb.model import Atlas, Entry
from generator.kb.text import esc
from generator.pages.fit import _prefill_row, _tps
from generator.pages.site import Site
from generator.render.page import Page, front_matter
from generator.render.templates import env


def _source_pages(atlas: Atlas) -> dict[str, str]:
    out = {}
    citing: dict[str, list[Entry]] = {s: [] for s in atlas.sources}
    for e in sorted(atlas.entries.values(), key=lambda e: e.title.casefold()):
        for s in e.sources:
            citing[s].append(e)
        if e.kind in ("model", "hardware"):  # their pages cite each record of theirs (Measured by this project)
            for rec in atlas.measured(**{e.kind: e.id}):
                if e not in citing[rec.source]:
                    citing[rec.source].append(e)
    for sid, s in atlas.sources.items():
        src = f"sources/{sid}.md"
        page = Page(atlas, src)
        rec = atlas.measurements.get(sid)
        if rec is not None:  # the record itself, as committed, beside its page
            out[f"{MEASURED_FOLDER}/{rec.id}.yaml"] = rec.text
        text = env().get_template("source.md.j2").render(page=page, s=s, entries=citing[sid],
                                                           record=_record_facts(atlas, page, rec) if rec else None)
        out[src] = front_matter(title=s.title, atlas_nolink=True, description=f"Source: {s.title} ({s.publisher}).",
                                search={"boost": 0.2}) + text  # entries rank above the pages of what they cite
    page = Page(atlas, "sources/index.md")
    ordered = sorted(atlas.sources.values(), key=lambda s: (s.kind != "seed", s.title.casefold()))
    out["sources/index.md"] = front_matter(title="Sources", atlas_nolink=True, description="Every document and page the knowledge base cites.") + \
        env().get_template("sources.md.j2").render(page=page, sources=ordered, citing=citing)
    return out


MEASURED_FOLDER = "measurements"


"""Where the site serves each GPU suite record as committed (bench/gpu/results/<id>.yaml)."""


def _record_facts(atlas: Atlas, page: Page, rec: Any) -> dict:
    """A measurement source's page: the record's file and its decode and prefill figures
    against the ceilings."""
    from generator.knowledge.calc import measured_points, measured_prefills

    points = [p for p in measured_points(atlas, rec.model) if p.source == rec.source]
    rows = [{"config": f"{p.batch} × {p.context:,}", "measured": f"{_tps(p.tokens_per_s)} tok/s",
             "spread": f"{_tps(p.min)}-{_tps(p.max)}", "ceiling": f"{_tps(p.ceiling_tps)} tok/s" if p.ceiling_tps else "—",
             "ratio": f"{p.ratio:.2f}" if p.ratio else "—"} for p in sorted(points, key=lambda p: (p.batch, p.context))]
    return {"path": rec.path, "href": page.url(f"{MEASURED_FOLDER}/{rec.id}.yaml"), "rows": rows,
            "prefill": [_prefill_row(p) | {"spread": f"{p.min_s * 1000:,.1f}-{p.max_s * 1000:,.1f} ms"}
                        for p in measured_prefills(atlas, rec.model) if p.source == rec.source],
            "model": page.a(rec.model) if rec.model in atlas.entries else esc(rec.model),
            "device": page.a(rec.hardware) if rec.hardware in atlas.entries else esc(rec.device_name),
            "commit": rec.git_commit, "slice": rec.slice, "scaling": rec.scaling}


def pages(site: Site) -> dict[str, str]:
    return _source_pages(site.atlas)
