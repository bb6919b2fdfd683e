"""Term linking: find mentions of entry titles and aliases in text, in one pass.

Names are indexed by their word sequence (hyphens and spaces count alike), so matching
walks the text once and, at each word, extends a candidate only while some name still
begins with the words read so far (a set of every name's word prefixes): the cost grows
with the text, not with the size of the glossary. The longest name
wins ("prefix caching" over "caching"). Words written with capitals inside them (TTFT,
MoE, H100, vLLM) must match exactly; ordinary words (decode, Prefill) match in any case.
A trailing plural -s / -es is accepted.

`link_html` applies this to rendered HTML, skipping code, headings, existing links,
scripts and anything marked `data-atlas-nolink`.
"""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

WORD_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.+/']*[A-Za-z0-9+])?")
SPLIT_RE = re.compile(r"[\s\-]+")


def _words(name: str) -> list[str]:
    return WORD_RE.findall(name)


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


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    target: Target


class Linker:
    def __init__(self, names: Iterable[tuple[str, Target]]):
        # Names by their case-folded words; each with the words that must match exactly
        # (position, spelling), worked out once here rather than at every candidate.
        self.index: dict[tuple[str, ...], list[tuple[tuple[tuple[int, str], ...], Target]]] = {}
        for name, target in names:
            words = _words(name)
            if not words or (len(words) == 1 and len(words[0]) < 2):
                continue
            key = tuple(w.casefold() for w in words)
            strict = tuple((k, w) for k, w in enumerate(words) if _strict(w))
            self.index.setdefault(key, []).append((strict, target))
        # Every proper word prefix of a name: reading on from a word is worth it only while
        # the words so far begin some name.
        self.prefixes: set[tuple[str, ...]] = {key[:k] for key in self.index for k in range(1, len(key))}
        self.first_words: set[str] = {key[0] for key in self.index}  # every prefix starts with one of these

    @classmethod
    def from_atlas(cls, atlas) -> "Linker":
        names = []
        for e in atlas.entries.values():
            cat = atlas.categories.get(e.category)
            t = Target(e.id, e.url, e.title, e.short, cat.title if cat else e.category)
            names += [(e.title, t)] + [(a, t) for a in e.aliases]
        return cls(names)

    def _accept(self, key: tuple[str, ...], found: list[str]) -> Target | None:
        for strict, target in self.index.get(key, ()):
            if all(found[k] == w for k, w in strict):
                return target
        return None

    def _match_at(self, i: int, spans, folded, text: str) -> tuple[int, Target] | None:
        """The longest name starting at word i, as (words used, target)."""
        n = len(spans)
        best = None
        key: tuple[str, ...] = ()
        j = i
        while j < n:
            key += (folded[j],)
            target = None
            if key in self.index:
                target = self._accept(key, [spans[k].group() for k in range(i, j + 1)])
            if target is None and key[-1].endswith("s"):  # a plural of the last word
                found = [spans[k].group() for k in range(i, j + 1)]
                for stem in _stems(key[-1]):
                    cut = len(key[-1]) - len(stem)
                    target = self._accept(key[:-1] + (stem,), found[:-1] + [found[-1][:-cut]])
                    if target is not None:
                        break
            if target is not None:
                best = (j - i + 1, target)
            # Read on only while the words so far begin a name and the next word is joined
            # to this one by spaces or hyphens alone.
            if key not in self.prefixes or j + 1 >= n or not SPLIT_RE.fullmatch(text, spans[j].end(), spans[j + 1].start()):
                break
            j += 1
        return best

    def find(self, text: str) -> Iterator[Match]:
        """Non-overlapping mentions in `text`, left to right, longest first at each word."""
        spans = list(WORD_RE.finditer(text))
        folded = [m.group().casefold() for m in spans]
        n = len(spans)
        firsts = self.first_words
        i = 0
        while i < n:
            w = folded[i]
            hit = None
            if w in firsts or (w[-1] == "s" and any(st in firsts for st in _stems(w))):
                hit = self._match_at(i, spans, folded, text)
            if hit:
                size, target = hit
                yield Match(spans[i].start(), spans[i + size - 1].end(), target)
                i += size
            else:
                i += 1


def _stems(word: str) -> list[str]:
    """Singular candidates of a plural: 'caches' -> ['cach', 'cache'], 'GPUs' -> ['GPU']."""
    return [word[: -len(sfx)] for sfx in ("es", "s") if len(word) > len(sfx) + 2 and word.endswith(sfx)]


SKIP_TAGS = {"a", "code", "pre", "kbd", "script", "style", "h1", "h2", "h3", "h4", "h5", "h6", "svg", "button",
             "label", "select", "option", "textarea", "summary", "title"}
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
TAG_RE = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>", re.S)


def relative_url(target: str, page_url: str) -> str:
    """Link from page `page_url` (e.g. 'glossary/kv-cache/') to site path `target`."""
    base = "/" + page_url.lstrip("/")
    if not base.endswith("/"):
        base = posixpath.dirname(base) + "/"
    rel = posixpath.relpath(target, base)
    return rel + "/" if target.endswith("/") and not rel.endswith("/") else rel


def link_html(text: str, linker: Linker, page_url: str, skip_id: str | None = None, per_section: bool = False) -> tuple[str, list[str]]:
    """Link the first mention of each entry in rendered HTML. Returns (html, linked ids).

    With `per_section`, each <h2> starts a fresh set, so long pages link again per section."""
    out: list[str] = []
    linked: list[str] = []
    seen: set[str] = {skip_id} if skip_id else set()
    skip_depth = 0
    stack: list[tuple[str, bool]] = []  # open elements, and whether each stops linking
    pos = 0
    for m in TAG_RE.finditer(text):
        if m.start() > pos:
            chunk = text[pos:m.start()]
            out.append(chunk if skip_depth else _link_text(chunk, linker, page_url, seen, linked))
        pos = m.end()
        out.append(m.group(0))
        closing, tag, attrs = m.group(1), (m.group(2) or "").lower(), m.group(3) or ""
        if not tag:  # a comment
            continue
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
        stops = tag in SKIP_TAGS or "data-atlas-nolink" in attrs
        stack.append((tag, stops))
        skip_depth += stops
        if per_section and tag == "h2":
            seen = {skip_id} if skip_id else set()
    if pos < len(text):
        chunk = text[pos:]
        out.append(chunk if skip_depth else _link_text(chunk, linker, page_url, seen, linked))
    return "".join(out), linked


def _link_text(chunk: str, linker: Linker, page_url: str, seen: set[str], linked: list[str]) -> str:
    plain = html.unescape(chunk)
    if plain != chunk:  # entities: match on the unescaped text, re-escape the pieces
        return _link_plain(plain, linker, page_url, seen, linked, escape=True)
    return _link_plain(chunk, linker, page_url, seen, linked, escape=False)


def _link_plain(text: str, linker: Linker, page_url: str, seen: set[str], linked: list[str], escape: bool) -> str:
    out: list[str] = []
    pos = 0
    for m in linker.find(text):
        t = m.target
        if t.id in seen:
            continue
        seen.add(t.id)
        linked.append(t.id)
        before = text[pos:m.start]
        out.append(html.escape(before, quote=False) if escape else before)
        word = text[m.start:m.end]
        out.append(
            f'<a class="atlas-term" href="{relative_url(t.url, page_url)}" data-atlas-id="{html.escape(t.id)}"'
            f' data-atlas-cat="{html.escape(t.category)}" data-atlas-short="{html.escape(t.short)}">'
            f"{html.escape(word, quote=False) if escape else word}</a>"
        )
        pos = m.end
    rest = text[pos:]
    out.append(html.escape(rest, quote=False) if escape else rest)
    return "".join(out)
