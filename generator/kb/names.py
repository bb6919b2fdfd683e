"""The names a reader types for an entry: case, spaces, hyphens and underscores ignored, and
a name's words enough when they point at one entry. `atlas define` and the calculator's
`atlas fit --device/--model` both resolve names here, so the same words reach the same entry."""

from __future__ import annotations

import re
from collections.abc import Iterable

from generator.kb.model import Entry


def norm(name: str) -> str:
    return " ".join(re.split(r"[\s_-]+", name.casefold())).strip()


def by_words(entries: Iterable[Entry], query: str) -> list[Entry]:
    """The entries one of whose names (id, title, alias) holds every word of `query` (case,
    spaces, hyphens and underscores ignored): 'H100 SXM' is NVIDIA H100 SXM, '4090' the RTX
    4090. Fewest-word names first, so the caller can take a single match or list the closest."""
    words = set(norm(query).split())
    fits: dict[str, tuple[int, Entry]] = {}
    for e in entries:
        for n in (e.id, e.title, *e.aliases):
            tokens = norm(n).split()
            if words and words <= set(tokens) and len(tokens) < fits.get(e.id, (1 << 30,))[0]:
                fits[e.id] = (len(tokens), e)
    return [e for _, e in sorted(fits.values(), key=lambda t: (t[0], t[1].title))]
