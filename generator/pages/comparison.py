"""The engine comparison matrix (the compare view) and a page per compared pair."""

from __future__ import annotations

from typing import Any

from generator.kb.model import Atlas, Entry
from generator.knowledge.compare import PLATFORMS, differences
from generator.pages.site import Site
from generator.render.labels import STATUS_WORD
from generator.render.page import Page, _data_attr, front_matter, sources_md
from generator.render.templates import env

CELL_GROUPS = (("features", "Features"), ("backends", "Hardware backends"), ("formats", "Weight formats"), ("api", "API surface"))


def _cell(page: Page, cell: Any) -> dict:
    s = page.atlas.sources[cell["source"]]
    return {"status": cell["status"], "note": cell.get("note", ""), "title": f"Source: {s.title}",
            "href": page.url(f"sources/{s.id}.md")}


def _groups(page: Page, engines: list[Entry], keep_empty_engines: bool = False) -> list[dict]:
    out = []
    for key, title in CELL_GROUPS:
        ids = sorted({k for e in engines for k in (e.get(key) or {})}, key=lambda i: page.atlas.entries[i].title.casefold())
        if not ids:
            continue
        cols = engines if keep_empty_engines else [e for e in engines if e.get(key)]
        rows = [{"id": i, "cells": [_cell(page, (e.get(key) or {})[i]) if i in (e.get(key) or {}) else None for e in cols]}
                for i in ids]
        out.append({"key": key, "title": title, "engines": cols, "rows": rows})
    return out


MATRIX_LIMIT = 24


"""At most this many engines (columns) in the comparison matrix, the most connected by
PageRank: a matrix is read across, and its size would otherwise grow with engines × features."""


def _comparison_pages(atlas: Atlas, rank: dict[str, float]) -> dict[str, str]:
    out: dict[str, str] = {}
    pairs = []
    for a, b, summary in atlas.comparisons:
        pid = f"{a}-vs-{b}"
        src = f"engines/compare/{pid}.md"
        page = Page(atlas, src)
        ea, eb = atlas.entries[a], atlas.entries[b]
        disputes = [(ea, d) for d in ea.disputes] + [(eb, d) for d in eb.disputes]
        text = env().get_template("pair.md.j2").render(page=page, a=ea, b=eb, summary=page.md(summary),
                                                      differ=differences(atlas, [ea, eb]), status_word=STATUS_WORD,
                                                      groups=_groups(page, [ea, eb], keep_empty_engines=True),
                                                      disputes=disputes)
        text += sources_md(page, [atlas.sources[s] for s in page.sources])
        out[src] = front_matter(title=f"{ea.title} vs {eb.title}", description=f"{ea.title} and {eb.title} side by side, with sources.") + text
        pairs.append({"id": pid, "a": ea, "b": eb})
    page = Page(atlas, "engines/compare/index.md")
    engines = atlas.of_kind("engine")
    shown = engines
    if len(engines) > MATRIX_LIMIT:  # the most connected engines, in the usual order
        keep = set(sorted((e.id for e in engines), key=lambda i: (-rank.get(i, 0), i))[:MATRIX_LIMIT])
        shown = [e for e in engines if e.id in keep]
    licences = [_cell(page, {"status": lic["value"], "source": lic["source"]}) if (lic := e.get("license")) else None
                for e in shown]
    text = env().get_template("matrix.md.j2").render(page=page, groups=_groups(page, shown), pairs=pairs,
                                                      engines=shown, licences=licences,
                                                      shown=len(shown), total=len(engines),
                                                      engine_index=page.to("engines/index.md"),
                                                      platforms=_data_attr(_platforms(atlas, shown)))
    out["engines/compare/index.md"] = front_matter(title="Engine comparison matrix", atlas_nolink=True,
                                                   description="Which engine supports which feature, backend, format and API, with a source for every cell.") + text
    return out


def _platforms(atlas: Atlas, engines: list[Entry]) -> dict:
    """For the compare view's platform choice: the platforms' names, and for each matrix row
    tied to some hardware (a term with `platforms`) the platforms it matters on."""
    rows = {k for e in engines for key, _ in CELL_GROUPS for k in (e.get(key) or {})}
    return {"labels": PLATFORMS, "rows": {r: atlas.entries[r].get("platforms") for r in sorted(rows) if atlas.entries[r].get("platforms")}}


def pages(site: Site) -> dict[str, str]:
    return _comparison_pages(site.atlas, site.rank)
