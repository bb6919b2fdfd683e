"""The Recent changes page: the newest dated changes of every entry, each linked to its
entry and, where it has one, to the source that shows it; the Atom feed carries the same."""

from __future__ import annotations

from generator.knowledge.changes import RECENT_LIMIT, recent, releases, week_of
from generator.pages.site import Site
from generator.render.labels import long_date
from generator.render.page import Page, front_matter
from generator.kb.text import esc

SRC = "changes.md"


def pages(site: Site) -> dict[str, str]:
    atlas = site.atlas
    page = Page(atlas, SRC)
    items = recent(atlas)
    lines = ["# Recent changes", "",
             f"What changed in the knowledge base, newest first (the {RECENT_LIMIT} most recent) and by week, with the "
             "source that shows each change where there is one, and the engine release that prompted it where one did. Every entry also says on its own page when its facts were "
             "last checked. The same list is an [Atom feed](changes.xml) for a feed reader.", ""]
    week = None
    named = releases(atlas)
    for c in items:  # grouped by the week (from Monday) they were made in
        if week_of(c.date) != week:
            week = week_of(c.date)
            lines += ["", f"## Week of {long_date(week)} {{ #w-{week} }}", ""]
        cite = page.cite(c.source) if c.source else ""
        prompted = f" *Prompted by {esc(named[c.source])}.*" if c.source in named else ""
        lines.append(f"- {long_date(c.date)}, {page.link(c.entry.id)}: {esc(c.what)}{cite}{prompted}")
    if not items:
        lines.append("No entry records a change yet.")
    text = "\n".join(lines) + "\n"
    if page.sources:
        from generator.render.page import sources_md

        text += "\n" + sources_md(page, [atlas.sources[s] for s in page.sources])
    return {SRC: front_matter(title="Recent changes", description="What changed in Inference Atlas, newest first.",
                              search={"boost": 0.5}) + text}
