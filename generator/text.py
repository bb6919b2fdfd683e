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

# A fenced block (``` or ~~~, up to the same fence) or an inline code span.
_CODE_RE = re.compile(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$|(`+)(?!`).+?(?<!`)\2(?!`)")
# [[id]] or [[id|text]]; inside a Markdown table the bar is written \| and accepted as well.
WIKILINK_RE = re.compile(r"\[\[([^\]|\\]+)(?:\\?\|([^\]]*))?\]\]")
CITE_RE = re.compile(r"\[@([^\]\s]+)\]")


def compact_json(value: object) -> str:
    """Compact JSON with sorted keys, characters as themselves (not \\u escapes), by
    orjson: a fraction of the json module's cost for the many small objects the
    generator writes (graph exports, front matter)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def esc(value: object) -> str:
    """Escape a plain-text field for Markdown that is rendered to HTML."""
    if type(value) is str:
        return _esc_str(value)
    return html.escape(str(value), quote=True)


@lru_cache(maxsize=100_000)
def _esc_str(value: str) -> str:
    # The same titles and definitions are escaped on page after page: once each is enough.
    return html.escape(value, quote=True)


def split_code(text: str) -> list[tuple[bool, str]]:
    """[(is_code, piece)] covering `text` in order."""
    if "`" not in text and "~~~" not in text:  # no code at all, the usual case: skip the scan
        return [(False, text)] if text else []
    out: list[tuple[bool, str]] = []
    pos = 0
    for m in _CODE_RE.finditer(text):
        if m.start() > pos:
            out.append((False, text[pos:m.start()]))
        out.append((True, m.group(0)))
        pos = m.end()
    if pos < len(text):
        out.append((False, text[pos:]))
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
    """Escape raw HTML outside code and expand [[id|text]] links and [@source] citations."""
    out = []
    for is_code, piece in split_code(text):
        if is_code:
            out.append(piece)
            continue
        piece = piece.replace("<", "&lt;")
        piece = expand_wikilinks(piece, link)
        piece = CITE_RE.sub(lambda m: cite(m.group(1)), piece)
        out.append(piece)
    return "".join(out)


def strip_markup(text: str) -> str:
    """Plain text of a body for search snippets and data files: links keep their words."""
    text = WIKILINK_RE.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    return CITE_RE.sub("", text)
