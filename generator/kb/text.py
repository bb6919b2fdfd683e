"""Turning authored text into safe Markdown.

Entry text comes from YAML that anyone can send a pull request for, so nothing in it may
reach the page as live HTML: plain fields (titles, definitions, notes) are escaped
outright, and in Markdown bodies every `<` outside code is escaped so a tag can only ever
show as text. Code spans and fences are left alone: Markdown already escapes them.
"""

from __future__ import annotations

import html
import posixpath
import re
from functools import lru_cache
from typing import Callable

import orjson

# [[id]] or [[id|text]]; inside a Markdown table the bar is written \| and accepted as well.
# Both patterns are bounded (an id is short, a link's words are a phrase): a `[[` or `[@`
# that is never closed costs a few hundred steps, not a scan to the end of the text.
WIKILINK_RE = re.compile(r"\[\[([^\]|\\\n]{1,200})(?:\\?\|([^\]]{0,400}))?\]\]")
CITE_RE = re.compile(r"\[@([^\]\s]{1,200})\]")
# Where a URL starts in Markdown: an inline link or image `](`, a reference definition
# `[name]: `, an autolink `<scheme:`. Entities are decoded before the scheme is read
# (`java&#115;cript:` is javascript:), and so are the characters browsers skip.
_URL_START_RE = re.compile(r"\]\(\s{0,20}<?|^[ ]{0,3}\[[^\]\n]{1,200}\]:[ \t]{0,20}<?|<(?=[A-Za-z][A-Za-z0-9+.-]{0,30}:)", re.M)
_SCHEME_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,30}):")
ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})


def bad_urls(text: str) -> list[tuple[int, str]]:
    """(offset, scheme) of each link in Markdown `text` whose URL has a scheme other than
    http, https or mailto (relative links and #anchors have none)."""
    out = []
    for m in _URL_START_RE.finditer(text):
        raw = html.unescape(text[m.end():m.end() + 200])
        raw = "".join(ch for ch in raw if ch > " " and ch not in "\x7f")  # browsers skip controls and spaces
        scheme = _SCHEME_RE.match(raw)
        if scheme and scheme.group(1).lower() not in ALLOWED_SCHEMES:
            out.append((m.start(), scheme.group(1).lower()))
    return out


_FENCE_RE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_BACKTICKS_RE = re.compile(r"\\*`+")

MAX_MARKDOWN_CHARS = 20_000  # the longest body today is about 3,500 characters
MAX_LEFT_OPEN = 20  # '[' never closed, or backtick runs never matched, in one text
MAX_DEPTH = 8  # brackets inside brackets; list levels or quotes inside each other


def compact_json(value: object) -> str:
    """Compact JSON with sorted keys, characters as themselves (not \\u escapes), by
    orjson: a fraction of the json module's cost for the many small objects the
    generator writes (graph exports, front matter)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


# Plain text inside Markdown: HTML's special characters, and every character that starts
# Markdown syntax inline (emphasis, code, links and images, attribute lists, table cells,
# heading ids, escapes), as numeric entities. An entity means the same in a paragraph, a
# table cell, a heading, link text, a link title and an HTML attribute, and Markdown never
# reads it as syntax: `{: onclick=... }` in a definition stays those characters.
_PLAIN_TEXT = str.maketrans({c: f"&#{ord(c)};" for c in "\\`*_{}[]|~#!"} | {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def esc(value: object) -> str:
    """A plain-text field as text in Markdown that is rendered to HTML: nothing in it can
    become a tag, an attribute or Markdown syntax."""
    return _esc_str(value if type(value) is str else str(value))


@lru_cache(maxsize=100_000)
def _esc_str(value: str) -> str:
    # The same titles and definitions are escaped on page after page: once each is enough.
    return value.translate(_PLAIN_TEXT)


def esc_html(value: object) -> str:
    """Text for a place that is HTML but never Markdown (front matter the theme prints)."""
    return html.escape(str(value), quote=True)


def _fences(text: str) -> tuple[list[tuple[int, int]], int | None]:
    """The fenced code blocks of `text` as (start, end) offsets, found line by line as
    Markdown does (a fence closes at a line of the same character, at least as long), and
    the offset of a fence left open at the end, if any. Linear in the text."""
    blocks: list[tuple[int, int]] = []
    pos, opened, fence = 0, 0, ""
    for line in text.splitlines(keepends=True):
        m = _FENCE_RE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end():].strip():
                blocks.append((opened, pos + len(line)))
                fence = ""
        elif m:
            opened, fence = pos, m.group(1)
        pos += len(line)
    return blocks, (opened if fence else None)


def _code_spans(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    """Code spans in text[start:end] (no fences in it), as Python-Markdown finds them: a run
    of backticks not escaped by a backslash opens a span that the next run of the same
    length closes, within a paragraph. Linear: each run is looked at once."""
    para_end = start
    while para_end < end:
        para_start = para_end
        blank = text.find("\n\n", para_start, end)
        para_end = end if blank < 0 else blank + 2
        open_at, open_len = -1, 0  # the span opened and not yet closed, if any
        for m in _BACKTICKS_RE.finditer(text, para_start, para_end):
            slashes = len(m.group()) - len(m.group().lstrip("\\"))
            run_start, n = m.start() + slashes, m.end() - m.start() - slashes
            if open_at < 0:
                if slashes % 2 == 0:  # backslashes in pairs escape each other, not the run
                    open_at, open_len = run_start, n
            elif n == open_len:  # a run of the same length closes it, escaped or not
                out.append((open_at, m.end()))
                open_at = -1


def split_code(text: str) -> list[tuple[bool, str]]:
    """[(is_code, piece)] covering `text` in order: fenced blocks and code spans are code."""
    if "`" not in text and "~~~" not in text:  # no code at all, the usual case: skip the scan
        return [(False, text)] if text else []
    fences, _ = _fences(text)
    spans: list[tuple[int, int]] = []
    pos = 0
    for a, b in fences + [(len(text), len(text))]:
        _code_spans(text, pos, a, spans)
        pos = b
    code = sorted(fences + spans)
    out: list[tuple[bool, str]] = []
    pos = 0
    for a, b in code:
        if a > pos:
            out.append((False, text[pos:a]))
        out.append((True, text[a:b]))
        pos = b
    if pos < len(text):
        out.append((False, text[pos:]))
    return out


_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t]*\n")
_QUOTES_RE = re.compile(r"[ \t]*((?:>[ \t]*)+)")


def markdown_problems(text: str) -> list[tuple[int, str]]:
    """What in an author's Markdown would make Python-Markdown slow or crash it (it is
    quadratic in brackets left open, and recurses once per level of nested lists), as
    (offset, message) pairs. `atlas check` refuses these before any renderer sees the text.
    Linear in the text."""
    if len(text) > MAX_MARKDOWN_CHARS:
        return [(MAX_MARKDOWN_CHARS, f"text is {len(text):,} characters long; at most {MAX_MARKDOWN_CHARS:,} "
                                     f"(split it into entries that link each other)")]
    out: list[tuple[int, str]] = []
    fences, left_open = _fences(text)
    if left_open is not None:
        out.append((left_open, "this code fence is never closed; end it with a line of the same backticks or tildes"))
    prose, pos = [], 0
    for a, b in fences + [(len(text), len(text))]:
        if a > pos:
            prose.append((pos, a))
        pos = b
    left, first_left, deep = 0, None, None
    for a, b in prose:
        starts = [a] + [m.end() for m in _PARAGRAPH_BREAK_RE.finditer(text, a, b)]
        for p0, p1 in zip(starts, starts[1:] + [b]):
            depth = 0
            for i in range(p0, p1):
                ch = text[i]
                if ch == "[":
                    depth += 1
                    if depth > MAX_DEPTH:
                        return out + [(i, f"brackets nested more than {MAX_DEPTH} deep; write a literal bracket as \\[")]
                elif ch == "]" and depth:
                    depth -= 1
            if depth:
                left += depth
                first_left = p0 if first_left is None else first_left
        line = a
        while line < b and deep is None:
            end = text.find("\n", line, b)
            end = b if end < 0 else end
            row = text[line:end].expandtabs(4)
            quotes = _QUOTES_RE.match(row)
            if len(row) - len(row.lstrip(" ")) > 4 * MAX_DEPTH or (quotes and quotes.group(1).count(">") > MAX_DEPTH):
                deep = line
            line = end + 1
    if left > MAX_LEFT_OPEN:
        out.append((first_left or 0, f"{left} '[' are never closed with ']'; at most {MAX_LEFT_OPEN} "
                                     f"(write a literal bracket as \\[)"))
    if deep is not None:
        out.append((deep, f"lists, quotes or indentation nested more than {MAX_DEPTH} levels deep"))
    runs: dict[int, int] = {}
    for m in _BACKTICKS_RE.finditer(text):
        n = len(m.group().lstrip("\\"))
        runs[n] = runs.get(n, 0) + 1
    unmatched = sum(c % 2 for c in runs.values())
    if unmatched > MAX_LEFT_OPEN:
        out.append((0, f"{unmatched} runs of backticks are never matched; at most {MAX_LEFT_OPEN}"))
    return out


@lru_cache(maxsize=200_000)
def relpath(target_src: str, from_src: str) -> str:
    """Relative link from one docs page to another (both docs-relative .md paths)."""
    if ".." in target_src or ".." in from_src or target_src.startswith("/") or from_src.startswith("/"):
        return posixpath.relpath(target_src, posixpath.dirname(from_src) or ".")
    folder, _, name = target_src.rpartition("/")
    if folder == from_src.rpartition("/")[0] and name:  # the same folder, the usual case
        return name
    # Both are plain paths under docs/: drop the shared folders, climb out of the rest.
    # (posixpath.relpath gets the same answer through abspath and getcwd, at 10x the cost.)
    to, here = target_src.split("/"), from_src.split("/")[:-1]
    return climb(to, here, shared=min(len(here), len(to) - 1))  # the target's last part is a file


def climb(to: list[str], here: list[str], shared: int) -> str:
    """The relative path from folder `here` to `to`, both given as path parts: out of
    what they do not share (at most their first `shared` parts), then down into `to`."""
    common = 0
    while common < shared and here[common] == to[common]:
        common += 1
    return "/".join([".."] * (len(here) - common) + to[common:])


_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*\n\s*|\n\s*(?:[-*+]|\d+\.)\s+|\|\s*|#+\s+)$")


def expand_wikilinks(piece: str, link: Callable[[str, str | None, bool], str]) -> str:
    """Replace [[id]] and [[id|text]] in `piece`; `link(id, text, mid_sentence)`."""
    def one(m: re.Match) -> str:
        mid = m.group(2) is None and not _SENTENCE_START.search(piece[max(0, m.start() - 40):m.start()])
        return link(m.group(1).strip(), m.group(2), mid)
    return WIKILINK_RE.sub(one, piece)


def render_markdown(text: str, link: Callable[[str, str | None, bool], str], cite: Callable[[str], str]) -> str:
    """Escape raw HTML and attribute lists outside code and expand [[id|text]] links and
    [@source] citations. (The sanitizer catches anything else, after Markdown.)"""
    out = []
    for is_code, piece in split_code(text):
        if is_code:
            out.append(piece)
            continue
        # No raw HTML and no attribute lists: '<' and '{' outside code show as themselves.
        piece = piece.replace("<", "&lt;").replace("{", "&#123;")
        piece = expand_wikilinks(piece, link)
        piece = CITE_RE.sub(lambda m: cite(m.group(1)), piece)
        out.append(piece)
    return "".join(out)


def strip_markup(text: str) -> str:
    """Plain text of a body for search snippets and data files: links keep their words."""
    text = WIKILINK_RE.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    return CITE_RE.sub("", text)
