"""A source is what shipped (issue 45 item 3). A GitHub pull request cited as a source
records its fate (`pull`: merged, closed or open, the date, and where known the first
release that carries it), and a fact may not rest on a change that never landed:

- a pull request source without `pull` is an error (say whether it was merged);
- an engine's matrix cell (other than a "no"), or a body sentence, whose only sources are pull
  requests that were not merged is an error, unless the source says it is cited for its
  discussion (a log or a measurement a user posted there), not for its code;
- an engine fact resting only on merged pull requests that the entry's pinned release cannot
  carry (merged after the release's date, or first released in a later version) is a warning.

Part of validate (stage 2), apart so validate.py stays one screen of checks a kind."""

from __future__ import annotations

import re
from typing import Any, Iterator

from generator.kb.findings import Finding
from generator.kb.load import Document
from generator.kb.text import CITE_RE

PULL_RE = re.compile(r"^https://github\.com/[^/]+/[^/]+/pull/\d+")
CELL_GROUPS = ("features", "backends", "formats", "api")


def is_pull(source: Any) -> bool:
    return isinstance(source, dict) and isinstance(source.get("url"), str) and bool(PULL_RE.match(source["url"]))


def check_source_pulls(doc: Document) -> list[Finding]:
    """Every pull request among a sources file's entries says what became of it."""
    out = []
    for sid, s in doc.data.items() if isinstance(doc.data, dict) else ():
        if is_pull(s) and not isinstance(s.get("pull"), dict):
            line, col = doc.loc(sid, key=True)
            out.append(Finding(doc.path, line, col, f"source '{sid}' is a pull request: add pull: {{state: merged|closed|open, "
                                                    f"date: YYYY-MM-DD}} (and released_in where known), so a fact cannot rest on a change that never shipped"))
    return out


def _sentences(body: str) -> Iterator[tuple[int, str]]:
    """(offset, sentence) pairs of a body: paragraphs and list items apart, then full stops."""
    for para in re.finditer(r"(?:[^\n]|\n(?!\s*\n|\s*[-*] |\s*#))+", body):
        start = para.start()
        for m in re.finditer(r".+?(?:[.!?](?=\s|$)|$)", para.group(0), re.S):
            if m.group(0).strip():
                yield start + m.start(), m.group(0)


def _verdict(sids: list[str], sources: dict[str, dict], pinned: tuple[str | None, str | None] | None) -> tuple[str, str] | None:
    """'error' when every source is an unmerged pull request cited for its code; 'warning'
    when every source is a merged pull request the pinned release cannot carry."""
    if not sids or not all(is_pull(sources.get(s)) and isinstance(sources[s].get("pull"), dict) for s in sids):
        return None
    pulls = {s: sources[s]["pull"] for s in sids}
    if any(p.get("cited_for") == "discussion" for p in pulls.values()):
        return None
    if all(p.get("state") != "merged" for p in pulls.values()):
        names = ", ".join(f"'{s}' ({p.get('state', 'unknown')})" for s, p in pulls.items())
        return "error", f"rests only on {names}: a change that was not merged is not a fact of any release; cite what shipped"
    if pinned is None:
        return None
    version, date = pinned
    late = []
    for s, p in pulls.items():
        released = p.get("released_in")
        if released and version and _newer(released, version):
            late.append(f"'{s}' (first in {released}, after {version})")
        elif not released and date and p.get("date") and p["date"] > date:
            late.append(f"'{s}' (merged {p['date']}, after the pinned release of {date})")
    if len(late) == len(pulls):
        return "warning", f"rests on {', '.join(late)}: the pinned release does not carry it yet"
    return None


def _newer(a: str, b: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(a.lstrip("vb")) > Version(b.lstrip("vb"))
    except InvalidVersion:
        return False


def check_shipped(doc: Document, sources: dict[str, dict]) -> list[Finding]:
    """An entry's cells and body sentences against the fate of the pull requests they cite."""
    d = doc.data
    out: list[Finding] = []
    as_of = d.get("as_of") if doc.kind == "engine" and isinstance(d.get("as_of"), dict) else None
    pinned = (as_of.get("version"), as_of.get("date")) if as_of else None

    def add(verdict, line, col, what):
        level, text = verdict
        out.append(Finding(doc.path, line, col, f"{what} {text}", level))

    for group in CELL_GROUPS if doc.kind == "engine" else ():
        cells = d.get(group)
        for key, cell in (cells.items() if isinstance(cells, dict) else ()):
            # a "no" may rest on a change that was turned down: that is what shows it is absent
            if isinstance(cell, dict) and isinstance(cell.get("source"), str) and cell.get("status") != "no":
                v = _verdict([cell["source"]], sources, pinned)
                if v:
                    line, col = doc.loc(group, key, "source")
                    add(v, line, col, f"{group}.{key}")
    body = d.get("body")
    if isinstance(body, str):
        for offset, sentence in _sentences(body):
            sids = CITE_RE.findall(sentence)
            v = _verdict(sids, sources, pinned)
            if v:
                line, col = doc.loc("body")
                line += body.count("\n", 0, offset) + 1  # a block scalar's text starts on the line after 'body: |'
                add(v, line, 1, "a body sentence")
    return out
