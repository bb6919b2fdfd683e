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


class Page:
    """Link and citation helpers for one page being rendered."""

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

    def maybe_link(self, entry_id: str, text: str) -> str:
        """A link when the entry exists, plain text otherwise (for handwritten prose in templates)."""
        return self.link(entry_id, text) if entry_id in self.atlas.entries else esc(text)

    def to(self, src: str) -> str:
        return relpath(src, self.src)

    def _number(self, source_id: str) -> str:
        n = self.sources.setdefault(source_id, len(self.sources) + 1)
        return f"[{n}]{_cite_target(source_id, self.atlas.sources[source_id].title)}"

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
def _cite_target(source_id: str, title: str) -> str:
    """What follows a citation's number: the anchor of its source and the title shown on hover."""
    return f'(#src-{source_id} "{esc(title)}")'


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
    items = "".join(f"[{n}] {source_line(s)}. [About this source]({page.to(f'sources/{s.id}.md')})\n"
                    f"{{: #src-{s.id} .atlas-source }}\n\n" for n, s in enumerate(sources, 1))
    return (NO_LINKS_BELOW + "\n\n" if fenced else "") + "## Sources { #sources data-search-exclude }\n\n" + items


def _data_attr(value: Any) -> str:
    """JSON for a data-* attribute, HTML-escaped. Not a <script type=application/json>:
    Material's instant navigation re-creates script elements in swapped content and runs
    them as JavaScript."""
    return esc(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


def source_line(s: Source) -> str:
    bits = [f"[{esc(s.title)}]({esc(s.url)})" if s.url else esc(s.title), esc(s.publisher)]
    if s.author:
        bits.append(esc(s.author))
    if s.date:
        bits.append(esc(s.date))
    return " — ".join(bits)


MARKDOWN_NAME = "index.md.txt"

def markdown_path(e: Entry) -> str:
    """Where an entry's Markdown is published, inside the docs tree and the site."""
    return f"{KIND_URLS[e.kind]}/{e.id}/{MARKDOWN_NAME}"
