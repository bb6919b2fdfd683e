"""Term linking: find mentions of entry titles and aliases in text, in one pass.

Names are indexed by their word sequence (hyphens and spaces count alike), so matching
walks the text once and, at each word, extends a candidate only while some name still
begins with the words read so far (a set of every name's word prefixes): the cost grows
with the text, not with the size of the glossary. The longest name
wins ("prefix caching" over "caching"). Words written with capitals inside them (TTFT,
MoE, H100, vLLM) must match exactly; ordinary words (decode, Prefill) match in any case.
A trailing plural -s / -es is accepted.

`link_html` applies this to rendered HTML, skipping code, headings and the titles of
admonitions, existing links, scripts and anything marked `data-atlas-nolink`;
`link_markdown` to Markdown before it is rendered, skipping the same.
"""

from __future__ import annotations

import html
import posixpath
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Iterable, Iterator

from generator.kb.text import climb
from generator.speed import timing

WORD_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.+/']*[A-Za-z0-9+])?")


SPLIT_RE = re.compile(r"[\s\-]+")


def _words(name: str) -> list[str]:
    return WORD_RE.findall(name)


@lru_cache(maxsize=65536)
def _strict(word: str) -> bool:
    """A word that must match case-exactly: a capital after its first character (TTFT,
    MoE, vLLM, H100) or a digit mixed with letters (FP8, Q4)."""
    return any(c.isupper() for c in word[1:]) or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word))


@dataclass(frozen=True)
class Target:
    id: str
    url: str  # site-relative, e.g. /glossary/kv-cache/
    title: str
    short: str
    category: str  # the category's title, shown on the hover card


@dataclass(frozen=True, slots=True)
class Match:
    start: int
    end: int
    target: Target


_PREFERENCE = {0: 0, 2: 1, 1: 2}


"""Which reading of a word a trie node tries first: by how many plural letters it cuts."""


_END = ""  # the key under which a trie node keeps the names that end there (no word is empty)


class Linker:
    def __init__(self, names: Iterable[tuple[str, Target]]):
        names = tuple(names)
        self.names = names  # what every link it makes depends on: a changed name changes links anywhere
        # Names by their case-folded words; each with the words that must match exactly
        # (position, spelling), worked out once here rather than at every candidate.
        index: dict[tuple[str, ...], list[tuple[tuple[tuple[int, str], ...], Target]]] = {}
        self.targets: dict[str, Target] = {}  # by id, for resolve_marks
        self.by_url: dict[str, Target] = {}  # by site-relative URL, for add_cards
        for name, target in names:
            self.targets.setdefault(target.id, target)
            self.by_url.setdefault(target.url, target)
            words = _words(name)
            if not words or (len(words) == 1 and len(words[0]) < 2):
                continue
            strict = tuple((k, w) for k, w in enumerate(words) if _strict(w))
            index.setdefault(tuple(w.casefold() for w in words), []).append((strict, target))
        # A trie of words: matching reads on from a word only while the words so far begin
        # some name, one dictionary step per word. A node's _END entry lists what a name
        # ending there may match: the name itself, then (for a last word of three letters or
        # more) the plurals, -es before -s ('caches' tries 'cach' + es before 'cache' + s).
        self.trie: dict = {}
        ends: list[list] = []  # every node's _END list, put in order of preference below
        for key, named in index.items():
            node = self.trie
            for w in key[:-1]:
                node = node.setdefault(w, {})
            last = key[-1]
            for cut in (0, 2, 1) if len(last) >= 3 else (0,):
                end = node.setdefault(last + ("", "s", "es")[cut], {})
                if _END not in end:
                    ends.append(end.setdefault(_END, []))
                end[_END].append((named, cut))
        for end in ends:  # names as written first, then -es plurals, then -s; else in index order
            if len(end) > 1:
                end.sort(key=lambda ending: _PREFERENCE[ending[1]])

    @classmethod
    def from_atlas(cls, atlas) -> "Linker":
        names = []
        for e in atlas.entries.values():
            cat = atlas.categories.get(e.category)
            t = Target(e.id, e.url, e.title, e.short, cat.title if cat else e.category)
            quiet = set(e.get("unlinked_aliases") or ())  # everyday words: searchable, not linked in prose
            names += [(e.title, t)] + [(a, t) for a in e.aliases if a not in quiet]
        return cls(names)

    @staticmethod
    def _accept(named: list, words: "_Words", i: int, last: int, cut: int) -> Target | None:
        """The first of `named` whose exact-case words match the text's words from index i
        (word `last` of the name without its plural ending of `cut` letters)."""
        for strict, target in named:
            if all((words[i + k][:-cut] if cut and k == last else words[i + k]) == w for k, w in strict):
                return target
        return None

    def _match_at(self, i: int, node: dict, words: "_Words", folded: list[str], gaps: list[str]) -> tuple[int, Target] | None:
        """The longest name starting at word i (whose trie node is `node`), as (words used,
        target). gaps[j] is the text between word j - 1 and word j."""
        n = len(folded)
        best = None
        j = i
        while True:
            ending = node.get(_END)
            if ending is not None:
                for named, cut in ending:
                    if not cut and not named[0][0]:  # the usual case: one name, no exact-case words
                        best = (j - i + 1, named[0][1])
                        break
                    target = self._accept(named, words, i, j - i, cut)
                    if target is not None:
                        best = (j - i + 1, target)
                        break
            # Read on only while the next word is joined to this one by spaces or hyphens
            # alone and the words so far begin a longer name.
            if j + 1 >= n or len(node) == (ending is not None):
                break
            gap = gaps[j + 1]
            if gap != " " and not _joins(gap):
                break
            j += 1
            node = node.get(folded[j])
            if node is None:
                break
        return best

    def find(self, text: str) -> Iterator[Match]:
        """Non-overlapping mentions in `text`, left to right, longest first at each word."""
        ascii = text.isascii()
        # gap, word, gap, word, ..., gap; for ASCII text, lower() keeps every character in place
        parts = TOKEN_RE.split(text.lower() if ascii else text)
        folded = parts[1::2] if ascii else [w.lower() for w in parts[1::2]]  # words are ASCII: lower() is casefold()
        trie = self.trie
        candidates = [i for i, w in enumerate(folded) if w in trie]
        if not candidates:
            return
        gaps = parts[0::2]
        words = _Words(text, parts) if ascii else parts[1::2]
        ends = None
        after = 0  # the first word not yet inside a match
        for i in candidates:
            if i < after:
                continue
            hit = self._match_at(i, trie[folded[i]], words, folded, gaps)
            if hit:
                if ends is None:
                    ends = list(accumulate(map(len, parts)))  # ends[k]: where parts[k] ends in text
                size, target = hit
                start, end = ends[2 * i], ends[2 * (i + size) - 1]
                if _inside_compound(text, start, end):
                    continue  # 'inference' in tpu-inference, 'Metal' in vLLM-Metal: part of another name
                after = i + size
                yield Match(start, end, target)


class _Words:
    """The text's words as written, cut out only when an exact-case name needs them."""

    __slots__ = ("text", "parts", "ends")

    def __init__(self, text: str, parts: list[str]):
        self.text, self.parts, self.ends = text, parts, None

    def __getitem__(self, k: int) -> str:
        if self.ends is None:
            self.ends = list(accumulate(map(len, self.parts)))
        return self.text[self.ends[2 * k]:self.ends[2 * k + 1]]


TOKEN_RE = re.compile(f"({WORD_RE.pattern})")


def _inside_compound(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is joined to a word before or after it by a hyphen, an
    underscore or a dot (a compound or a file name), rather than standing as a word."""
    if start > 0 and text[start - 1] in "-_" and start >= 2 and text[start - 2].isalnum():
        return True
    if start >= 2 and text[start - 1] == "." and text[start - 2].isalnum():
        return True
    return end + 1 < len(text) and text[end] in "-_." and text[end + 1].isalnum()


@lru_cache(maxsize=4096)
def _joins(gap: str) -> bool:
    """Whether two words with `gap` between them may be read as one name."""
    return SPLIT_RE.fullmatch(gap) is not None


SKIP_TAGS = {"a", "code", "pre", "kbd", "script", "style", "h1", "h2", "h3", "h4", "h5", "h6", "svg", "button",
             "label", "select", "option", "textarea", "summary", "title"}


VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


TAG_RE = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>", re.S)


NO_LINKS_BELOW = "<!-- atlas:no-term-links -->"


"""Where a generated page's prose ends: link_html links nothing after it, and removes it."""


def relative_url(target: str, page_url: str) -> str:
    """Link from page `page_url` (e.g. 'glossary/kv-cache/') to site path `target`."""
    base = "/" + page_url.lstrip("/")
    if not base.endswith("/"):
        base = posixpath.dirname(base) + "/"
    if "." in base or "/." in target or "//" in target:  # anything to normalise: the library does it
        rel = posixpath.relpath(target, base)
    else:  # plain paths: drop the shared folders, climb out of the rest (posixpath would call getcwd)
        to, here = [p for p in target.split("/") if p], [p for p in base.split("/") if p]
        rel = climb(to, here, shared=min(len(to), len(here))) or "."
    return rel + "/" if target.endswith("/") and not rel.endswith("/") else rel


def link_html(text: str, linker: Linker, page_url: str, skip_id: str | None = None, per_section: bool = False) -> tuple[str, list[str]]:
    """Link the first mention of each entry in rendered HTML. Returns (html, linked ids).

    With `per_section`, each <h2> starts a fresh set, so long pages link again per section."""
    started = time.process_time()
    try:
        # Below the marker (an entry page's graph, relation lists and sources: links and
        # citations already) nothing is linked, or even read.
        cut = text.find(NO_LINKS_BELOW)
        if cut < 0:
            return _link_html(text, linker, page_url, skip_id, per_section)
        linked, ids = _link_html(text[:cut], linker, page_url, skip_id, per_section)
        return linked + text[cut + len(NO_LINKS_BELOW):], ids
    finally:
        timing.link_cpu += time.process_time() - started


def _link_html(text: str, linker: Linker, page_url: str, skip_id: str | None, per_section: bool) -> tuple[str, list[str]]:
    out: list[str] = []
    slots: list[tuple[int, int]] = []  # text between tags that may be linked: (index in out, section)
    section = 0
    skip_depth = 0
    stack: list[tuple[str, bool]] = []  # open elements, and whether each stops linking
    pos = 0
    search = TAG_RE.search
    while (m := search(text, pos)) is not None:
        start, end = m.span()
        if start > pos:
            if not skip_depth:
                slots.append((len(out), section))
            out.append(text[pos:start])
        pos = end
        whole, closing, tag, attrs = m.group(0, 1, 2, 3)
        out.append(whole)
        if not tag:  # a comment
            continue
        tag = tag.lower()
        if closing:
            if any(t == tag for t, _ in stack):
                while stack:
                    t, stops = stack.pop()
                    skip_depth -= stops
                    if t == tag:
                        break
            continue
        if tag in VOID_TAGS or attrs.rstrip().endswith("/"):
            continue
        if per_section and tag == "h2":
            section += 1
        if tag in SKIP_TAGS and (close := _closing(text, tag, end)) is not None:
            # A code block, a link, an SVG: copied whole up to its own closing tag, rather
            # than walked tag by tag.
            out.append(text[end:close])
            pos = close
            continue
        stops = tag in SKIP_TAGS or "data-atlas-nolink" in attrs or "admonition-title" in attrs
        stack.append((tag, stops))
        skip_depth += stops
    if pos < len(text):
        if not skip_depth:
            slots.append((len(out), section))
        out.append(text[pos:])
    linked = _link_slots(out, slots, linker, page_url, skip_id) if slots else []
    return "".join(out), linked


def _link_slots(out: list[str], slots: list[tuple[int, int]], linker: Linker, page_url: str,
                skip_id: str | None) -> list[str]:
    """Link the first mention of each entry (per section) in the text pieces out[i] named
    by `slots`, in place. The pieces are searched as one text, joined by a character no
    name can span, so the page costs one pass rather than one per piece between tags.
    Pieces with character references are matched on their unescaped text and re-escaped."""
    plains: list[str] = []
    escaped: list[bool] = []
    for i, _ in slots:
        chunk = out[i]
        plain = html.unescape(chunk) if "&" in chunk else chunk
        plains.append(plain)
        escaped.append(plain != chunk)
    linked, hits = _first_mentions(_in_pieces(linker, plains), slots, skip_id)
    for k, (i, _) in enumerate(slots):
        found = hits.get(k)
        if found:
            out[i] = _linked(plains[k], [Match(s, e, t) for s, e, t in found], page_url, escaped[k])
        elif escaped[k]:
            out[i] = html.escape(plains[k], quote=False)
    return linked


_SEP = "\x00"  # joins the pieces of a page: not a word character, and no name spans it


def _in_pieces(linker: Linker, pieces: list[str]) -> Iterator[tuple[int, int, int, Target]]:
    """The mentions in several pieces of text, searched as one: (piece number, start,
    end, target), places counted from the start of the piece."""
    k, piece_end = 0, len(pieces[0])
    offset = 0  # where piece k starts in the joined text
    for m in linker.find(_SEP.join(pieces)):
        while m.start >= piece_end:  # a match lies inside one piece: move on to it
            offset = piece_end + 1
            k += 1
            piece_end = offset + len(pieces[k])
        yield k, m.start - offset, m.end - offset, m.target


def _first_mentions(mentions: Iterable[tuple[int, int, int, Target]], slots: list[tuple],
                    skip_id: str | None) -> tuple[list[str], dict[int, list[tuple[int, int, Target]]]]:
    """Of mentions in document order, the first of each entry (in each section: a slot's
    second field): (their ids, {piece number: [(start, end, target)]})."""
    linked: list[str] = []
    seen: set[str] = set()
    current = -1  # the section whose first mentions `seen` holds
    hits: dict[int, list[tuple[int, int, Target]]] = {}
    for k, start, end, t in mentions:
        sec = slots[k][1]
        if sec != current:
            seen, current = ({skip_id} if skip_id else set()), sec
        if t.id in seen:
            continue
        seen.add(t.id)
        linked.append(t.id)
        hits.setdefault(k, []).append((start, end, t))
    return linked, hits


@lru_cache(maxsize=100_000)
def _anchor_attrs(t: Target) -> str:
    """What follows the href of a term link: the hover card's data, escaped once per target."""
    return _card_attrs(t) + ">"


def _card_attrs(t: Target) -> str:
    return (f' data-atlas-id="{html.escape(t.id)}" data-atlas-title="{html.escape(t.title)}"'
            f' data-atlas-cat="{html.escape(t.category)}" data-atlas-short="{html.escape(t.short)}"')


_ANCHOR_RE = re.compile(r'<a ([^>]{0,2000}?)href="([^"<>]{1,1000})"([^>]{0,2000})>')


def add_cards(text: str, linker: Linker, page_url: str) -> str:
    """Give every link to an entry the hover card's data, wherever it was written (a
    [[link]] in a body, a related list, a learn page, a hand-written Markdown link), not
    only the mentions the linker made. `page_url`: the page's URL, site-relative."""
    by_url = linker.by_url
    base = "/" + page_url.lstrip("/")

    def one(m: re.Match) -> str:
        before, href, after = m.groups()
        if "data-atlas-id" in before or "data-atlas-id" in after or "headerlink" in before + after:
            return m.group(0)
        if "://" in href or href.startswith(("#", "mailto:")):
            return m.group(0)
        path = posixpath.normpath(posixpath.join(posixpath.dirname(base.rstrip("/") + "/x"), html.unescape(href).split("#")[0]))
        target = by_url.get(path.rstrip("/") + "/")
        if target is None:
            return m.group(0)
        return f'<a {before}href="{href}"{after.rstrip()}{_card_attrs(target)}>'
    return _ANCHOR_RE.sub(one, text) if "<a " in text else text


def _linked(text: str, matches: list[Match], page_url: str, escape: bool) -> str:
    out: list[str] = []
    pos = 0
    for m in matches:
        t = m.target
        before, word = text[pos:m.start], text[m.start:m.end]
        if escape:
            before, word = html.escape(before, quote=False), html.escape(word, quote=False)
        out += (before, '<a class="atlas-term" href="', relative_url(t.url, page_url), '"', _anchor_attrs(t), word, "</a>")
        pos = m.end
    rest = text[pos:]
    out.append(html.escape(rest, quote=False) if escape else rest)
    return "".join(out)


@lru_cache(maxsize=64)
def _same_tag_re(tag: str) -> re.Pattern:
    return re.compile(rf"<!--.*?-->|<(/?){tag}(?![a-zA-Z0-9-])[^>]*>", re.S | re.I)


def _closing(text: str, tag: str, pos: int) -> int | None:
    """Where the element `tag` opened just before `pos` ends (after its closing tag),
    counting nested elements of the same name; None if it is never closed."""
    depth = 0
    for m in _same_tag_re(tag).finditer(text, pos):
        if m.group(0).startswith("<!--"):
            continue
        if m.group(1):
            if depth == 0:
                return m.end()
            depth -= 1
        elif not m.group(0).rstrip(">").rstrip().endswith("/"):
            depth += 1
    return None
