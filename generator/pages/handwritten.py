"""Handwritten pages (docs/**/*.md) speak the same link and citation language as entries.

`[[id]]` or `[[id|text]]` links an entry and `[@source-id]` cites a source; a page that
cites anything gets a numbered "Sources" list at its end, like an entry page.
`<!-- atlas:figure NAME -->` puts a diagram (generator/figures/diagrams.py) or a chart drawn from
the entries (figures.CHARTS) there; left unexpanded it is an HTML comment and shows nothing. Unknown ids
are errors with file:line:col, found by `atlas check` and before the build writes anything.
"""

from __future__ import annotations

import re
from pathlib import Path

from generator.figures import charts as figures
from generator.figures import diagrams
from generator.kb.findings import Finding, did_you_mean
from generator.kb.model import Atlas
from generator.kb.text import (
    CITE_RE,
    WIKILINK_RE,
    bad_urls,
    expand_wikilinks,
    split_code,
)
from generator.kb.values import date_problem
from generator.render.jsonld import SITE_URL
from generator.render.labels import long_date
from generator.render.page import Page, html_block, sources_md


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
            for m in DIRECTIVE_RE.finditer(piece):
                problem = _directive_problem(m.group(1), m.group(2).strip())
                if problem:
                    line, col = _where(text, offset + m.start())
                    out.append(Finding(path, line, col, problem))
        offset += len(piece)
    for offset, scheme in bad_urls(text):
        line, col = _where(text, offset)
        out.append(Finding(path, line, col, f"links may not use {scheme}: URLs; use an http, https or mailto link, "
                                            "or a relative one"))
    m = CHECKED_RE.match(text)
    if m and (problem := date_problem(_unquote(m.group(2)))):
        line, col = _where(text, m.start(2))
        out.append(Finding(path, line, col, f"checked: {problem}; write the date the facts were last checked as YYYY-MM-DD"))
    return out


CHECKED_RE = re.compile(r"---\n(?:.*\n)*?(checked:[ \t]*)(.*)\n(?:.*\n)*?---\n")
"""A handwritten page's front matter line `checked: YYYY-MM-DD`: when its facts were last checked."""


def checked_date(text: str) -> str | None:
    """The `checked:` value of a page's front matter, unquoted, or None."""
    m = CHECKED_RE.match(text)
    return _unquote(m.group(2)) if m else None


def _unquote(value: str) -> str:
    return value.strip().strip("'\"")


DIRECTIVE_RE = re.compile(r"<!--\s*atlas:([^\s>]*)([^>]*?)-->")
"""Any comment that starts like a directive, well-formed or not: each one is checked, so a
misspelt or path-like name is an error instead of a figure that silently never appears."""


def _directive_problem(kind: str, name: str) -> str | None:
    if kind != "figure":
        return f"unknown directive 'atlas:{kind}'; the only one is <!-- atlas:figure NAME -->"
    if not name:
        return "<!-- atlas:figure --> needs a figure name, like <!-- atlas:figure roofline -->"
    if not ID_RE.fullmatch(name):
        return (f"figure name '{name}' is not an id: a figure is named, never a path "
                f"(lowercase words joined by hyphens){did_you_mean(name, FIGURE_NAMES)}")
    if name not in FIGURE_NAMES:
        return f"figure '{name}' does not exist{did_you_mean(name, FIGURE_NAMES)}; figures: {', '.join(sorted(FIGURE_NAMES))}"
    return None


ID_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")

FIGURE_NAMES = {**{n: n for n in diagrams.DIAGRAMS}, **{n: n for n in figures.CHARTS}, "batching-simulator": "batching-simulator"}


def _figure(name: str, atlas: Atlas, page: Page) -> str:
    if name in diagrams.DIAGRAMS:
        return "\n" + html_block(diagrams.figure(name))
    if name == "batching-simulator":
        return "\n" + html_block(diagrams.simulator())
    return "\n\n" + figures.CHARTS[name](atlas, page) + "\n\n"


def expand(text: str, atlas: Atlas, src: str, checked: str | None = None) -> str:
    """The page's Markdown with links and citations expanded and a Sources list appended,
    after a line saying when its facts were last `checked` (its front matter) where given.
    `src` is the page's docs-relative path. Call `problems` first: unknown ids raise KeyError."""
    page = Page(atlas, src)
    text = text.replace("%SITE_URL%", SITE_URL)  # the site's public address (mkdocs.yml site_url), in code too
    out = []
    for is_code, piece in split_code(text):
        if not is_code:
            piece = diagrams.MARKER_RE.sub(lambda m: _figure(m.group(1), atlas, page), piece)
            piece = expand_wikilinks(piece, page.link)
            piece = CITE_RE.sub(lambda m: page.cite(m.group(1)), piece)
        out.append(piece)
    body = "".join(out)
    if checked and not date_problem(str(checked)):
        body = body.rstrip() + f"\n\n*Facts on this page last checked {long_date(str(checked))}.*\n{{: .atlas-checked }}\n"
    if page.sources:
        body = body.rstrip() + "\n\n" + sources_md(page, [atlas.sources[s] for s in page.sources])
    return body


def check_docs(root: Path, atlas: Atlas) -> list[Finding]:
    """Every unknown link or citation in the handwritten pages under docs/."""
    docs = Path(root) / "docs"
    out = []
    for path in sorted(docs.rglob("*.md")) if docs.is_dir() else []:
        text = path.read_text(encoding="utf-8")
        out += problems(text, atlas, str(path.relative_to(root)))
    return out
