"""changes.xml: the Recent changes as an Atom feed, written with feedgen (a well-kept
feed library) so that the XML, the dates and the escaping are right for every reader."""

from __future__ import annotations

from feedgen.feed import FeedGenerator

from generator.kb.model import Atlas
from generator.knowledge.changes import recent, releases
from generator.render.jsonld import SITE_URL, absolute

PATH = "changes.xml"


def atom(atlas: Atlas) -> str:
    fg = FeedGenerator()
    fg.id(SITE_URL + PATH)
    fg.title("Inference Atlas: recent changes")
    fg.subtitle("What changed in the knowledge base, newest first, with the source that shows each change.")
    fg.link(href=SITE_URL + "changes/", rel="alternate")
    fg.link(href=SITE_URL + PATH, rel="self")
    fg.language("en")
    items = recent(atlas)
    named = releases(atlas)
    newest = items[0].date if items else "2026-01-01"
    fg.updated(f"{newest}T00:00:00+00:00")
    for c in reversed(items):  # feedgen lists the last added first
        fe = fg.add_entry()
        url = absolute(c.entry.url)
        fe.id(f"{url}#change-{c.date}-{c.n}")
        fe.title(f"{c.entry.title}: {c.what}")
        if c.source in named:
            fe.category(term=named[c.source], label=f"Prompted by {named[c.source]}")
        fe.link(href=url)
        summary = c.what
        if c.source and c.source in atlas.sources:
            s = atlas.sources[c.source]
            summary += f" Source: {s.title}" + (f" ({s.url})" if s.url else "") + "."
        fe.summary(summary)
        fe.updated(f"{c.date}T00:00:00+00:00")
    return fg.atom_str(pretty=True).decode("utf-8")


def jobs(atlas: Atlas) -> list:
    return [lambda: {PATH: atom(atlas)}]
