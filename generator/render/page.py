"""What every generated page shares: Page (links and numbered citations relative to the page
being written), YAML front matter, the Sources list, a source's one-line citation, data
attributes for widgets, the title as prose writes it, and where an entry's Markdown copy lives."""

from __future__ import annotations

import json
import posixpath
import re
from functools import lru_cache
from typing import Any

from generator.kb.kinds import KIND_URLS
from generator.kb.model import Atlas, Entry, Source
from generator.kb.text import (
    compact_json,
    esc,
    esc_html,
    relpath,
    render_markdown,
    split_code,
    strip_markup,
)
from generator.knowledge.link import NO_LINKS_BELOW


def front_matter(**fields: Any) -> str:
    """YAML front matter. The theme prints title and description into the page head
    without escaping them, so they are escaped here."""
    for key in ("title", "description"):
        if key in fields:
            fields[key] = esc_html(fields[key])
    # JSON is a subset of the YAML that MkDocs reads, and much faster to write (orjson:
    # compact, characters as themselves; a quarter of a second of emit at 10,000 entries
    # with the json module).
    return "---\n" + compact_json(fields) + "\n---\n"


_FIRST_WORD = re.compile(r"[A-Z][a-z]+(?=[\s-]|$)")


_BEFORE_SPACE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789,;)'’")


@lru_cache(maxsize=None)
def _prose_title(title: str, body: str) -> str:
    first = _FIRST_WORD.match(title)
    if not first:
        return title  # an acronym or a CamelCase name (TTFT, PagedAttention) keeps its case
    plain = " ".join(p for is_code, p in split_code(strip_markup(body)) if not is_code)
    # A name is written capitalised inside its own sentences (on Kubernetes, Apple's Metal)
    # more often than in lower case; an ordinary word the other way round.
    word = first.group(0)
    return title if _mid_sentence_capitals(plain, word) > _lower_uses(plain, word.lower()) else title[0].lower() + title[1:]


def _word_ends(text: str, j: int) -> bool:
    return j >= len(text) or not (text[j].isalnum() or text[j] == "_")


def _mid_sentence_capitals(plain: str, word: str) -> int:
    """`word` after whitespace that follows a lowercase letter, digit, comma, semicolon,
    bracket or apostrophe; matches do not overlap (a match takes the character before its
    whitespace)."""
    count, taken, at = 0, 0, plain.find(word)
    while at >= 0:
        k = at
        while k > taken and plain[k - 1].isspace():
            k -= 1
        if k < at and k > taken and plain[k - 1] in _BEFORE_SPACE and _word_ends(plain, at + len(word)):
            count, taken = count + 1, at + len(word)
        at = plain.find(word, at + 1)
    return count


def _lower_uses(plain: str, word: str) -> int:
    """`word` as a whole word, not after a letter, digit, underscore, slash, dot or hyphen."""
    count, at = 0, plain.find(word)
    while at >= 0:
        if (at == 0 or not (plain[at - 1].isalnum() or plain[at - 1] in "_/.-")) and _word_ends(plain, at + len(word)):
            count += 1
            at = plain.find(word, at + len(word))
        else:
            at = plain.find(word, at + 1)
    return count


def prose_title(e: Entry) -> str:
    """The title as a sentence would write it: a term's title lowercased (prefill, memory
    bandwidth) unless its own body capitalises it mid-sentence, as names are (Kubernetes,
    Metal, Blackwell); engines, hardware and models are names and keep their titles."""
    return _prose_title(e.title, e.body) if e.kind == "term" else e.title


# Structure the generator already knows (tables, lists, the sources) is written as HTML
# between these two lines: the plugin hands it past Python-Markdown, which would only
# parse it again (generator/plugin.py, on_page_markdown), and any other Markdown reader
# (`atlas markdown`, plain MkDocs, Zensical) takes it as the raw HTML block it is.
HTML_OPEN, HTML_CLOSE = "<!--atlas-html-->", "<!--/atlas-html-->"


def html_block(html: str) -> str:
    """HTML as a block of a generated Markdown page (see HTML_OPEN)."""
    return f"\n{HTML_OPEN}\n{html}\n{HTML_CLOSE}\n\n"


def html_table(head: list[str], rows: list[list[str]], right: frozenset[int] = frozenset()) -> str:
    """A table as HTML: `head` and each row's cells are HTML already; columns whose index is
    in `right` are right-aligned (numbers), as a Markdown table's ---: would make them."""
    def row(cells: list[str], tag: str) -> str:
        return "<tr>" + "".join(f'<{tag} style="text-align:right">{c}</{tag}>' if i in right else f"<{tag}>{c}</{tag}>"
                                for i, c in enumerate(cells)) + "</tr>"
    return ("<table>\n<thead>\n" + row(head, "th") + "\n</thead>\n<tbody>\n"
            + "\n".join(row(r, "td") for r in rows) + "\n</tbody>\n</table>")


def site_url(src: str) -> str:
    """A docs file's address under MkDocs's directory URLs, site-relative: a/b.md and
    a/b/index.md are a/b/, index.md is '', any other file keeps its path."""
    if not src.endswith(".md"):
        return src
    stem = src[:-3]
    if stem == "index" or stem.endswith("/index"):
        return stem[:-5]
    return stem + "/"


@lru_cache(maxsize=200_000)
def url_between(target_src: str, from_src: str) -> str:
    """The relative address of one docs file from a page, both given as docs paths, as MkDocs
    writes a Markdown link between them: models/x.md from glossary/kv-cache.md is ../../models/x/."""
    to, here = site_url(target_src), site_url(from_src)
    rel = posixpath.relpath("/" + to, "/" + here)
    if not to.endswith("/") and to:
        return rel
    return "./" if rel == "." else rel + "/"


class Page:
    """Link and citation helpers for one page being rendered: Markdown for prose (link, md),
    HTML for the structure written as HTML (a, url, cite)."""

    def __init__(self, atlas: Atlas, src: str):
        self.atlas = atlas
        self.src = src
        self.folder = src.rpartition("/")[0]
        self.sources: dict[str, int] = {}  # source id -> its number: the order they are first cited

    def href(self, entry_id: str) -> str:
        return relpath(self.atlas.entries[entry_id].src_path, self.src)

    def link(self, entry_id: str, text: str | None = None, mid_sentence: bool = False) -> str:
        """A Markdown link to the entry. A bare [[id]] inside a sentence shows the title as
        the entry's own prose writes it: "memory bandwidth", but "Kubernetes"."""
        e = self.atlas.entries[entry_id]
        if text is None and mid_sentence:
            text = prose_title(e)
        if not text:  # the usual case (every related entry and backlink): made once per folder
            return _title_link(e.title, e.src_path, self.folder)
        return f"[{esc(text)}]({self.href(entry_id)})"

    def url(self, src: str) -> str:
        """The relative address of another docs page, for HTML."""
        return url_between(src, self.src)

    def a(self, entry_id: str, text: str | None = None) -> str:
        """An HTML link to the entry, with its title unless `text` is given."""
        e = self.atlas.entries[entry_id]
        if text is None:
            return _title_a(e.title, e.src_path, self.src)
        return f'<a href="{url_between(e.src_path, self.src)}">{esc(text)}</a>'

    def maybe_link(self, entry_id: str, text: str) -> str:
        """A link when the entry exists, plain text otherwise (for handwritten prose in templates)."""
        return self.link(entry_id, text) if entry_id in self.atlas.entries else esc(text)

    def to(self, src: str) -> str:
        return relpath(src, self.src)

    def _number(self, source_id: str) -> str:
        n = self.sources.setdefault(source_id, len(self.sources) + 1)
        return _cite_link(n, source_id, self.atlas.sources[source_id].title)

    def cite(self, source_id: str) -> str:
        return f'<sup class="atlas-cite">{self._number(source_id)}</sup>'

    def cites(self, source_ids: Any) -> str:
        """Several citations as one superscript: [1, 2, 4]."""
        if not source_ids:
            return ""
        return f'<sup class="atlas-cite">{", ".join(self._number(s) for s in source_ids)}</sup>'


    def md(self, text: str) -> str:
        return render_markdown(text, self.link, self.cite)


@lru_cache(maxsize=100_000)
def _cite_link(n: int, source_id: str, title: str) -> str:
    """A citation's number, linked to its source's anchor, its title shown on hover. HTML, so
    that it reads the same in prose (inline HTML to Markdown) and in HTML structure."""
    return f'<a href="#src-{source_id}" title="{esc(title)}">{n}</a>'


@lru_cache(maxsize=200_000)
def _title_a(title: str, target: str, src: str) -> str:
    return f'<a href="{url_between(target, src)}">{esc(title)}</a>'


@lru_cache(maxsize=200_000)
def _title_link(title: str, target: str, folder: str) -> str:
    """[title](relative path), made once per target and folder linked from: a relative path
    depends only on the folder of the page it is written on."""
    return f"[{esc(title)}]({relpath(target, posixpath.join(folder, 'index.md'))})"


def sources_md(page: Page, sources: list[Source], fenced: bool = True) -> str:
    """The numbered source list that ends an entry or comparison page; each item carries the
    anchor its citations point at. `fenced`: preceded by the marker below which terms are
    not linked (a source's title is the name of another thing, not a mention); an entry
    page has the marker already."""
    items = "\n".join(f'<p class="atlas-source" id="src-{s.id}">[{n}] {source_line(s, html=True)}. '
                      f'<a href="{page.url(f"sources/{s.id}.md")}">About this source</a></p>'
                      for n, s in enumerate(sources, 1))
    return ((NO_LINKS_BELOW + "\n\n" if fenced else "") + "## Sources { #sources data-search-exclude }\n"
            + (html_block(items) if items else "\n"))


def _data_attr(value: Any) -> str:
    """JSON for a data-* attribute, HTML-escaped. Not a <script type=application/json>:
    Material's instant navigation re-creates script elements in swapped content and runs
    them as JavaScript."""
    return esc(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


def source_line(s: Source, html: bool = False) -> str:
    """Title (linked to the source), publisher, author, date: in Markdown, or in HTML."""
    title = esc(s.title)
    if s.url:
        title = f'<a href="{esc(s.url)}">{title}</a>' if html else f"[{title}]({esc(s.url)})"
    return " — ".join([title, esc(s.publisher)] + [esc(x) for x in (s.author, s.date) if x])


MARKDOWN_NAME = "index.md.txt"

def markdown_path(e: Entry) -> str:
    """Where an entry's Markdown is published, inside the docs tree and the site."""
    return f"{KIND_URLS[e.kind]}/{e.id}/{MARKDOWN_NAME}"
