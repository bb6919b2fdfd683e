"""Handwritten pages (docs/**/*.md) speak the same link and citation language as entries.

`[[id]]` or `[[id|text]]` links an entry and `[@source-id]` cites a source; a page that
cites anything gets a numbered "Sources" list at its end, like an entry page.
`<!-- atlas:figure NAME -->` puts a diagram (generator/diagrams.py) or a chart drawn from
the entries (figures.CHARTS) there; left unexpanded it is an HTML comment and shows nothing. Unknown ids
are errors with file:line:col, found by `atlas check` and before the build writes anything.
"""

from __future__ import annotations

from pathlib import Path

from . import diagrams, figures
from .emit import Page, sources_md
from .findings import Finding, did_you_mean
from .model import Atlas
from .text import CITE_RE, WIKILINK_RE, expand_wikilinks, split_code


def _where(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def problems(text: str, atlas: Atlas, path: str) -> list[Finding]:
    out = []
    offset = 0
    for is_code, piece in split_code(text):
        if not is_code:
            for m in WIKILINK_RE.finditer(piece):
                eid = m.group(1).strip()
                if eid not in atlas.entries:
                    line, col = _where(text, offset + m.start())
                    out.append(Finding(path, line, col, f"[[{eid}]] names no entry{did_you_mean(eid, atlas.entries)}"))
            for m in CITE_RE.finditer(piece):
                sid = m.group(1)
                if sid not in atlas.sources:
                    line, col = _where(text, offset + m.start())
                    out.append(Finding(path, line, col, f"[@{sid}] names no source{did_you_mean(sid, atlas.sources)}"))
            for m in diagrams.MARKER_RE.finditer(piece):
                if m.group(1) not in FIGURE_NAMES:
                    line, col = _where(text, offset + m.start())
                    out.append(Finding(path, line, col, f"figure '{m.group(1)}' does not exist"
                                       f"{did_you_mean(m.group(1), FIGURE_NAMES)}"))
        offset += len(piece)
    return out


FIGURE_NAMES = {**{n: n for n in diagrams.DIAGRAMS}, **{n: n for n in figures.CHARTS}, "batching-simulator": "batching-simulator"}


def _figure(name: str, atlas: Atlas, page: Page) -> str:
    if name in diagrams.DIAGRAMS:
        return "\n\n" + diagrams.figure(name) + "\n\n"
    if name == "batching-simulator":
        return "\n\n" + diagrams.simulator() + "\n\n"
    return "\n\n" + figures.CHARTS[name](atlas, page) + "\n\n"


def expand(text: str, atlas: Atlas, src: str) -> str:
    """The page's Markdown with links and citations expanded and a Sources list appended.
    `src` is the page's docs-relative path. Call `problems` first: unknown ids raise KeyError."""
    page = Page(atlas, src)
    out = []
    for is_code, piece in split_code(text):
        if not is_code:
            piece = diagrams.MARKER_RE.sub(lambda m: _figure(m.group(1), atlas, page), piece)
            piece = expand_wikilinks(piece, page.link)
            piece = CITE_RE.sub(lambda m: page.cite(m.group(1)), piece)
        out.append(piece)
    body = "".join(out)
    if page.sources:
        body = body.rstrip() + "\n\n" + sources_md(page, [atlas.sources[s] for s in page.sources])
    return body


def check_docs(root: Path, atlas: Atlas) -> list[Finding]:
    """Every unknown link or citation in the handwritten pages under docs/."""
    docs = Path(root) / "docs"
    out = []
    for path in sorted(docs.rglob("*.md")) if docs.is_dir() else []:
        text = path.read_text(encoding="utf-8")
        if "[[" in text or "[@" in text:
            out += problems(text, atlas, str(path.relative_to(root)))
    return out
