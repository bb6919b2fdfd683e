"""The knowledge base's change log: every entry's dated `changes`, gathered and ordered,
for the Recent changes page (pages/changes.py) and the Atom feed (exports/feed.py)."""

from __future__ import annotations

from dataclasses import dataclass

from generator.kb.model import Atlas, Entry

RECENT_LIMIT = 100
"""Changes on the Recent changes page and in the feed: the newest this many."""


@dataclass(frozen=True)
class Change:
    date: str  # YYYY-MM-DD
    entry: Entry
    what: str
    source: str | None
    n: int  # its place in the entry's list, so two changes of a day stay apart


def all_changes(atlas: Atlas) -> list[Change]:
    """Every change of every entry, newest first (then by entry title, then as listed)."""
    out = [Change(str(c["date"]), e, c["what"], c.get("source"), i)
           for e in atlas.entries.values() for i, c in enumerate(e.get("changes") or ())]
    return sorted(out, key=lambda c: (c.date, c.entry.title.casefold(), -c.n), reverse=True)


def recent(atlas: Atlas, limit: int = RECENT_LIMIT) -> list[Change]:
    return all_changes(atlas)[:limit]


def last_change(e: Entry) -> dict | None:
    """An entry's newest change, for its own page."""
    changes = list(e.get("changes") or ())
    return max(changes, key=lambda c: (str(c["date"]), changes.index(c))) if changes else None  # of a day, the last listed


def releases(atlas: Atlas) -> dict[str, str]:
    """Source id -> the release it is ("vLLM 0.34.0"): each engine's as_of source, so a change
    citing it (on the engine or on a term the release changed) names what prompted it."""
    out = {}
    for e in atlas.of_kind("engine"):
        as_of = e.get("as_of") or {}
        if as_of.get("source") and as_of.get("version"):
            out[as_of["source"]] = f"{e.title} {as_of['version']}"
    return out


def week_of(date: str) -> str:
    """The Monday of a YYYY-MM-DD date's ISO week, as YYYY-MM-DD."""
    import datetime as dt

    d = dt.date.fromisoformat(date[:10])
    return (d - dt.timedelta(days=d.weekday())).isoformat()

