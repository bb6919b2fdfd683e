"""Terms the prose uses but the knowledge base does not define.

A term here is a word that looks like a name: an acronym or a CamelCase word (NIXL, SRAM,
TabbyAPI, MXFP8), outside code, that no entry's title or alias contains. One used by a few
entries is a hole in the glossary, a reader meets it and has nowhere to click. Common words
of the trade that need no entry (units such as GiB, vendors such as NVIDIA) are listed with
a reason under `undefined:` in graph/allowed.yaml.
"""

from __future__ import annotations

import re
from collections import defaultdict

from generator.kb.model import Atlas
from generator.kb.text import split_code, strip_markup

# Two or more capitals somewhere in a word that starts with a capital: GPU, SMs, DeepEP, MXFP8.
TERM_RE = re.compile(r"(?<![\w/.\-])([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)(?![\w/\-])")
MIN_ENTRIES = 3  # used by this many entries before it counts as a glossary hole


def covered_names(atlas: Atlas) -> set[str]:
    """Lowercased names and every word inside a name: 'SXM' is covered by 'NVIDIA H100 SXM'."""
    out: set[str] = set()
    for e in atlas.entries.values():
        for name in (e.title, *e.aliases):
            out.add(name.lower())
            out.update(w.lower() for w in re.split(r"[\s/()\-,]+", name) if w)
    return out


def _plain(text: str) -> str:
    return "".join(piece for is_code, piece in split_code(strip_markup(text)) if not is_code)


def used_terms(body: str, covered: set[str]) -> set[str]:
    """The terms a body uses that no name covers (`covered`: covered_names(atlas))."""
    out = set()
    for m in TERM_RE.finditer(_plain(body)):
        word = m.group(1)
        if word.lower() in covered or (word.endswith("s") and word[:-1].lower() in covered):
            continue
        out.add(word[:-1] if word.endswith("s") and word[:-1].isupper() else word)  # CPUs -> CPU
    return out


def undefined_terms(atlas: Atlas, min_entries: int = MIN_ENTRIES,
                    used: dict[str, set[str]] | None = None) -> dict[str, list[str]]:
    """{term: [ids of the entries whose prose uses it]} for terms used by at least
    `min_entries` entries and defined by none, in a stable order. `used`: each entry's
    used_terms, when the caller has read the bodies already (pipeline.scan_bodies)."""
    from generator.speed.workers import fork_map

    entries = list(atlas.entries.values())
    if used is None:
        covered = covered_names(atlas)
        found = fork_map(lambda e: used_terms(e.body, covered), entries, min_items=2000, here=True)  # any core
    else:
        found = [used[e.id] for e in entries]
    users: dict[str, set[str]] = defaultdict(set)
    for e, words in zip(entries, found):
        for word in words:
            users[word].add(e.id)
    return {t: sorted(ids) for t, ids in sorted(users.items()) if len(ids) >= min_entries}


def first_line(path_text: str, term: str) -> tuple[int, int]:
    """Line and column of the term's first use in a file (1, 1 when not found)."""
    pat = re.compile(rf"(?<![\w/.\-]){re.escape(term)}s?(?![\w/\-])")
    for n, line in enumerate(path_text.splitlines(), 1):
        m = pat.search(line)
        if m:
            return n, m.start() + 1
    return 1, 1
