"""The index pages: the A-Z glossary (split into parts past AZ_PAGE_SIZE) and one per kind."""

from __future__ import annotations

from typing import Any

from generator.figures import charts as figures
from generator.kb.kinds import KIND_URLS
from generator.kb.model import Atlas, Entry
from generator.pages.site import Site
from generator.render.labels import KIND_TITLES, fmt_value, segment_rank
from generator.render.page import Page, front_matter
from generator.render.templates import env

AZ_PAGE_SIZE = 500


"""At most this many entries on one A-Z page: a larger glossary is split into consecutive
alphabetical parts, so no index page grows with the corpus."""


def _glossary_pages(atlas: Atlas) -> dict[str, str]:
    """The A-Z index: one page, or an overview of alphabetical parts of AZ_PAGE_SIZE."""
    entries = sorted(atlas.entries.values(), key=lambda e: (e.title.casefold(), e.id))
    if len(entries) <= AZ_PAGE_SIZE:
        return {"glossary/index.md": _index_page(atlas, "term", entries)}
    chunks = [entries[i:i + AZ_PAGE_SIZE] for i in range(0, len(entries), AZ_PAGE_SIZE)]
    out: dict[str, str] = {}
    parts = [{"src": f"glossary/az/{n}.md", "first": c[0].title, "last": c[-1].title, "count": len(c)}
             for n, c in enumerate(chunks, 1)]
    for n, chunk in enumerate(chunks, 1):
        part = parts[n - 1]
        page = Page(atlas, part["src"])
        nav = {"n": n, "total": len(chunks), "index": page.to("glossary/index.md"),
               "prev": page.to(parts[n - 2]["src"]) if n > 1 else None,
               "next": page.to(parts[n]["src"]) if n < len(chunks) else None}
        title = f"Glossary: {part['first']} to {part['last']}"
        out[part["src"]] = front_matter(title=title, atlas_nolink=True, description=f"Part {n} of the A-Z glossary of Inference Atlas.") + \
            _index_text(atlas, page, "term", chunk, "../../../", part=nav, heading=title)
    page = Page(atlas, "glossary/index.md")
    text = env().get_template("index_term_parts.md.j2").render(
        page=page, total=len(entries), size=AZ_PAGE_SIZE, parts=[dict(p, href=page.url(p["src"])) for p in parts])
    out["glossary/index.md"] = front_matter(title=KIND_TITLES["term"], atlas_nolink=True,
                                            description="All glossary entries of Inference Atlas, A to Z.") + text
    return out


def _counts(entries: list[Entry]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.category] = counts.get(e.category, 0) + 1
    return counts


def _index_text(atlas: Atlas, page: Page, kind: str, entries: list[Entry], up: str, **extra: Any) -> str:
    site_href = lambda e: up + e.url.strip("/") + "/"  # noqa: E731
    return env().get_template(f"index_{kind}.md.j2").render(page=page, entries=entries, atlas=atlas, fmt=fmt_value,
                                                           counts=_counts(entries), site_href=site_href, **extra)


def _index_page(atlas: Atlas, kind: str, entries: list[Entry] | None = None) -> str:
    """The index page of one kind: its entries by title, or `entries` (the A-Z glossary
    lists every entry, whatever its kind)."""
    page = Page(atlas, f"{KIND_URLS[kind]}/index.md")
    entries = atlas.of_kind(kind) if entries is None else entries
    if kind == "hardware":  # grouped by where a reader meets the device, then by title
        entries = sorted(entries, key=segment_rank)
    text = _index_text(atlas, page, kind, entries, "../")  # index pages sit one level down
    text += figures.index_figures(atlas, page, kind)  # the hardware index: the roofline, with its sources
    # The hardware index is a wide table: it gets the width the navigation and the table of
    # contents would take (the phone's menu keeps the navigation), as entry and tool pages do.
    hide = {"hide": ["navigation", "toc"]} if kind == "hardware" else {}
    return front_matter(title=KIND_TITLES[kind], atlas_nolink=True, description=f"All {KIND_TITLES[kind].lower()} in Inference Atlas.",
                        **hide) + text


def pages(site: Site) -> dict[str, str]:
    """The A-Z glossary and the index page of every other kind."""
    out = _glossary_pages(site.atlas)
    for kind in KIND_TITLES:
        if kind != "term":
            out[f"{KIND_URLS[kind]}/index.md"] = _index_page(site.atlas, kind)
    return out
