"""Term linking in Markdown: mentions marked before a page is rendered (link_markdown), the
marks turned into links in the HTML or in the Markdown `atlas markdown` writes
(resolve_marks), where raw HTML blocks are (raw_html_blocks), and a body's mentions found
once in the graph stage (scan_body, mark_candidates). The matching itself is link.Linker."""

from __future__ import annotations

import bisect
import html
import re
import time
from functools import lru_cache

from generator.knowledge.link import (
    NO_LINKS_BELOW,
    SKIP_TAGS,
    VOID_TAGS,
    Linker,
    Target,
    _anchor_attrs,
    _card_attrs,
    _closing,
    _first_mentions,
    _in_pieces,
    relative_url,
)
from generator.speed import timing

MARK_OPEN, MARK_MID, MARK_CLOSE = "\ufdd0", "\ufdd1", "\ufdd2"


_MARK_RE = re.compile(f"{MARK_OPEN}([^{MARK_OPEN}-{MARK_CLOSE}]*){MARK_MID}([^{MARK_OPEN}-{MARK_CLOSE}]*){MARK_CLOSE}")


_MD_SKIP = "|".join(sorted(SKIP_TAGS - {f"h{i}" for i in range(1, 7)}))


# What Markdown makes of a line's start, or of a piece of a line, whether the text is a
# page (_MD_RE) or a body as written (_BODY_RE). Every alternative begins with a literal
# character, so the regex engine skips ahead to those alone; what starts a line is read
# with the line's newline (the text is given a leading one).
_MD_BLOCKS = r"""
    \n(?:
        [ \t]*(?P<f>`{3,}|~{3,})[^\n]*\n.*?\n[ \t]*(?P=f)[ \t]*(?=\n|\Z)  # a fenced block
      | (?P<head>[ \t]*(?P<h>\#{1,6})(?:[ \t][^\n]*)?)(?=\n|\Z)  # a heading
      | (?P<title>[ \t]*(?:!!!|\?\?\?\+?)[^\n]*)  # an admonition's title
      | [ \t]*(?:[-*+]|\d+[.)])[ \t]+  # a list item's marker
      | [ \t]*(?=\n|\Z)  # a blank line
      | (?<=[ ][ ]\n)  # a hard line break
    )
  | `(?P<bt>`*)(?!`).+?(?<!`)`(?P=bt)(?!`)  # a code span
  | \[(?P<ltext>(?:[^\[\]]|\[[^\[\]]*\])*)\]\((?:[^)"\n]|"[^"\n]*")*\)  # a link
  | !\[(?:[^\[\]]|\[[^\[\]]*\])*\]\((?:[^)"\n]|"[^"\n]*")*\)  # an image
  | \{:?[ \t]*[:\#.][^}\n]*\}  # an attribute list
"""


_MD_RE = re.compile(_MD_BLOCKS + rf"""
  | <sup\ class="atlas-cite">.*?</sup>  # a citation: links only (Page.cite)
  | <(?P<st>{_MD_SKIP})(?![A-Za-z0-9-])[^>]*>.*?</(?P=st)[ \t]*>  # an element link_html skips whole
  | <!--.*?-->|</?[A-Za-z][^>\n]*>  # a comment, a tag or an autolink
""", re.S | re.X)


# Character references and backslash escapes: matched as the character they stand for.
_MD_ESC_RE = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);|\\[!-/:-@\[-`{-~]")


def link_markdown(text: str, linker: Linker, page_url: str, skip_id: str | None = None,
                  per_section: bool = False, body: tuple[int, int] | None = None) -> tuple[str, list[str]]:
    """Mark the first mention of each entry in Markdown (see MARK_OPEN), as link_html
    links them in the HTML it renders to. Returns (markdown, marked ids). With
    `per_section`, each `##` heading starts a fresh set. `body`, the span of a body whose
    mentions are marked as candidates already (mark_candidates), is neither scanned nor
    searched again: its candidates take their turn in document order. (Its time is the
    emit stage's, which calls it: not link_cpu.)"""
    out: list[str] = []
    slots: list[tuple[int, int, bool]] = []  # text that may be linked: (index in out, section, the body)
    if body and not per_section:  # (a long page reads its body's headings with the rest)
        section = _scan(text[:body[0]], out, slots, per_section, 0)
        slots.append((len(out), section, True))
        out.append(text[body[0]:body[1]])
        _scan(text[body[1]:], out, slots, per_section, section)
    else:
        _scan(text, out, slots, per_section, 0)
    linked = _link_md_slots(out, slots, linker, page_url, skip_id) if slots else []
    result = "".join(out)
    if CAND_OPEN in result:  # a candidate left unread (a long page's body): its words only
        result = _CAND_RE.sub(r"\2", result)
    return _without(result, CAND_OPEN + CAND_MID + CAND_CLOSE), linked


def _without(text: str, marks: str) -> str:
    """`text` with none of the characters `marks` left in it."""
    for mark in marks:
        if mark in text:
            text = text.replace(mark, "")
    return text


def _scan(text: str, out: list[str], slots: list[tuple[int, int, bool]], per_section: bool, section: int) -> int:
    """Cut `text` into what may be linked (a slot) and what may not, onto `out`. Returns
    the section it ends in."""
    if not text:
        return section
    pos = 1
    text = "\n" + text  # each line's alternatives begin with its newline (not copied out)
    for m in _MD_RE.finditer(text):
        start, end = m.span()
        if start > pos:
            slots.append((len(out), section, False))
            out.append(text[pos:start])
        out.append(m.group(0)[1 if start == 0 else 0:])
        pos = max(end, 1)
        if per_section and m.group("h") == "##":
            section += 1
    if pos < len(text):
        slots.append((len(out), section, False))
        out.append(text[pos:])
    return section


def _md_plain(chunk: str) -> tuple[str, list[tuple[int, int]] | None]:
    """The text `chunk` renders to, for matching, and where its escapes are: (place in
    the plain text, length in the Markdown) of each."""
    if "&" not in chunk and "\\" not in chunk:
        return chunk, None
    plain: list[str] = []
    escapes: list[tuple[int, int]] = []
    pos = size = 0
    for m in _MD_ESC_RE.finditer(chunk):
        s, e = m.span()
        char = m.group(0)[1] if m.group(0)[0] == "\\" else html.unescape(m.group(0))
        if len(char) != 1:  # not a reference html knows: text like any other
            continue
        plain.append(chunk[pos:s])
        size += s - pos
        escapes.append((size, e - s))
        plain.append(char)
        size += 1
        pos = e
    if not escapes:
        return chunk, None
    plain.append(chunk[pos:])
    return "".join(plain), escapes


def _md_offset(q: int, escapes: list[tuple[int, int]] | None) -> int:
    """Where plain offset q (a word's edge) is in the Markdown."""
    if not escapes:
        return q
    shift = 0
    for at, length in escapes:
        if at >= q:
            break
        shift += length - 1
    return q + shift


def resolve_marks(text: str, linker: Linker, page_url: str, markdown: bool = False) -> str:
    """Turn link_markdown's marks into term links, in the page's HTML (or, with
    `markdown`, in Markdown), and drop the NO_LINKS_BELOW marker, as link_html does. A
    mark with an id the linker does not know leaves its words alone, and no mark
    survives: text from anywhere cannot make a link of its own.

    Markdown (`atlas markdown`, generator/exports/markdown.py) is written for a source laid out as
    every page's URL + index.md, so a link relative to the page's URL is relative to its
    source file too: a mark in Markdown text becomes a Markdown link to the entry's
    index.md with the card's data as an attribute list, which MkDocs and Zensical both
    resolve; one inside a raw HTML block (no Markdown there) stays an <a> tag."""
    started = time.process_time()
    try:
        text = text.replace(NO_LINKS_BELOW, "", 1)  # where an entry page's prose ended: done with
        if MARK_OPEN not in text and MARK_MID not in text and MARK_CLOSE not in text:
            return text
        attrs = _md_anchor_attrs if markdown else _anchor_attrs
        targets = linker.targets
        raw = raw_html_blocks(text) if markdown else []
        starts = [a for a, _ in raw]

        def link(m: re.Match) -> str:
            t = targets.get(m.group(1))
            if t is None:
                return m.group(2)
            href = relative_url(t.url, page_url)
            if markdown and not _in_spans(m.start(), raw, starts) and not text.startswith("!", m.start() - 1):
                return f"[{m.group(2)}]({href}index.md){md_card_attrs(t)}"  # (after a '!', an image)
            return f'<a class="atlas-term" href="{href}"{attrs(t)}{m.group(2)}</a>'

        return _without(_MARK_RE.sub(link, text), MARK_OPEN + MARK_MID + MARK_CLOSE)  # what no well-formed mark held
    finally:
        timing.link_cpu += time.process_time() - started


_MD_ATTR_ESC = str.maketrans({"|": "&#124;", "`": "&#96;", "\\": "&#92;", "[": "&#91;", "]": "&#93;"})


@lru_cache(maxsize=100_000)
def _md_anchor_attrs(t: Target) -> str:
    """_anchor_attrs, safe inside Markdown: no character a table, code span, escape or
    link would read before the tag is taken as HTML."""
    return _anchor_attrs(t).translate(_MD_ATTR_ESC)


@lru_cache(maxsize=100_000)
def md_card_attrs(t: Target) -> str:
    """A Markdown term link's attribute list (attr_list): its class and the card's data.
    Character references stand for what the list or a table would read (quotes, braces:
    ' {' in a cell would start the cell's own list, bars); Python-Markdown writes them out
    as they are, so the browser reads the text."""
    card = _card_attrs(t).replace("{", "&#123;").replace("}", "&#125;").translate(_MD_ATTR_ESC)
    return "{ .atlas-term" + card + " }"


# Python-Markdown's block-level elements: a line that starts with one of these tags (after
# at most three spaces) opens a raw HTML block, which runs to the tag's end and is not
# read as Markdown (markdown.Markdown().block_level_elements, 3.x).
BLOCK_TAGS = frozenset("""address article aside blockquote body canvas center colgroup dd details div dl dt fieldset
    figcaption figure footer form group h1 h2 h3 h4 h5 h6 header hgroup hr html iframe legend li main map math menu nav
    noscript object ol option output p pre progress script section style summary table tbody td textarea tfoot th thead
    tr ul video""".split())


_RAW_START_RE = re.compile(r"^ {0,3}(?:<(?P<tag>[A-Za-z][A-Za-z0-9-]*)(?=[\s/>])|(?P<com><!--)|(?P<fence>`{3,}|~{3,}))",
                           re.M)


_MARKDOWN_ATTR_RE = re.compile(r"""\smarkdown(?:\s*=\s*["']?(?:1|block|span)["']?)?(?=[\s/>])""")


def raw_html_blocks(text: str) -> list[tuple[int, int]]:
    """Where `text` (Markdown) has raw HTML blocks, as (start, end), in order: from a
    line that opens a block-level element to the end of the line that closes it."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := _RAW_START_RE.search(text, pos)) is not None:
        if m.group("fence"):  # a code block: nothing in it is HTML
            close = re.compile(rf"^[ \t]*{m.group('fence')[0]}{{{len(m.group('fence'))},}}[ \t]*$", re.M).search(text, m.end())
            pos = close.end() if close else len(text)
            continue
        if m.group("com"):
            end = text.find("-->", m.end())
            end = len(text) if end < 0 else end + 3
        else:
            tag = m.group("tag").lower()
            if tag not in BLOCK_TAGS:
                pos = m.end()
                continue
            opened = text.find(">", m.end())
            opened = len(text) if opened < 0 else opened + 1
            if _MARKDOWN_ATTR_RE.search(text, m.end(), opened):  # md_in_html: Markdown inside, HTML blocks in it raw
                pos = opened
                continue
            end = opened if tag in VOID_TAGS or text[:opened].endswith("/>") else (_closing(text, tag, opened) or len(text))
        line_end = text.find("\n", end)
        end = len(text) if line_end < 0 else line_end
        spans.append((m.start(), end))
        pos = end
    return spans


def _in_spans(at: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    k = bisect.bisect_right(starts, at) - 1
    return k >= 0 and at < spans[k][1]


def _link_md_slots(out: list[str], slots: list[tuple[int, int, bool]], linker: Linker, page_url: str,
                   skip_id: str | None) -> list[str]:
    plains: list[str] = []
    maps: list = []
    events: list[tuple[int, int, int, Target]] = []  # (piece, start, end, target), the body's candidates
    targets = linker.targets
    for k, (i, _, in_body) in enumerate(slots):
        chunk = out[i]
        if in_body:  # read from its candidates, not searched
            if CAND_OPEN in chunk:
                events += [(k, c.start(), c.end(), t) for c in _CAND_RE.finditer(chunk)
                           if (t := targets.get(c.group(1))) is not None]
            plains.append("")
            maps.append(None)
            continue
        if CAND_OPEN in chunk:  # a candidate outside the body: its words only
            chunk = out[i] = _CAND_RE.sub(r"\2", chunk)
        plain, escapes = _md_plain(chunk)
        plains.append(plain)
        maps.append(escapes)
    events += _in_pieces(linker, plains)
    if not events:
        return []
    events.sort(key=lambda ev: (ev[0], ev[1]))
    linked, hits = _first_mentions(events, slots, skip_id)
    for k, (i, _, in_body) in enumerate(slots):
        found = hits.get(k)
        if in_body:
            if CAND_OPEN in out[i]:
                chosen = {start for start, _, _ in found} if found else set()
                out[i] = _CAND_RE.sub(lambda c: f"{MARK_OPEN}{c.group(1)}{MARK_MID}{c.group(2)}{MARK_CLOSE}"
                                      if c.start() in chosen else c.group(2), out[i])
            continue
        if not found:
            continue
        chunk, escapes = out[i], maps[k]
        parts: list[str] = []
        pos = 0
        for start, end, t in found:
            s, e = _md_offset(start, escapes), _md_offset(end, escapes)
            parts += (chunk[pos:s], MARK_OPEN, t.id, MARK_MID, chunk[s:e], MARK_CLOSE)
            pos = e
        parts.append(chunk[pos:])
        out[i] = "".join(parts)
    return linked


CAND_OPEN, CAND_MID, CAND_CLOSE = "\ufdd3", "\ufdd4", "\ufdd5"


_CAND_RE = re.compile(f"{CAND_OPEN}([^{CAND_OPEN}-{CAND_CLOSE}]*){CAND_MID}([^{CAND_OPEN}-{CAND_CLOSE}]*){CAND_CLOSE}")


# A body as written: besides what Markdown makes of it, an [[id|text]] link (as
# text.WIKILINK_RE) and a citation (as text.CITE_RE). Raw HTML cannot occur: bodies are
# escaped (text.render_markdown).
_BODY_RE = re.compile(_MD_BLOCKS + r"""
  | \[\[(?P<wid>[^\]|\\]+)(?:\\?\|(?P<wtext>[^\]]*))?\]\]
  | \[@[^\]\s]+\]
""", re.S | re.X)


def scan_body(body: str, linker: Linker) -> tuple[set[str], list[tuple[int, int, str]]]:
    """(ids the body names, [(start, end, id)] of each mention that may be linked).

    Names are read in prose and in what only shows as text (the words of links and
    headings); not in code or citations. A [[link]] names its entry."""
    text = "\n" + body
    pieces: list[tuple[int, str, bool]] = []  # (where in text, piece, linkable)
    named: set[str] = set()
    pos = 0
    for m in _BODY_RE.finditer(text):
        start, end = m.span()
        if start > pos:
            pieces.append((pos, text[pos:start], True))
        pos = end
        if m.group("wid") is not None:
            named.add(m.group("wid").strip())
            if m.group("wtext"):
                pieces.append((m.start("wtext"), m.group("wtext"), False))
        elif m.group("ltext") is not None:
            pieces.append((m.start("ltext"), m.group("ltext"), False))
        elif m.group("head") is not None or m.group("title") is not None:
            pieces.append((start, m.group(0), False))
    if pos < len(text):
        pieces.append((pos, text[pos:], True))
    if not pieces:
        return named, []
    plains = [_md_plain(p) for _, p, _ in pieces]
    found: list[tuple[int, int, str]] = []
    for k, start, end, t in _in_pieces(linker, [plain for plain, _ in plains]):
        named.add(t.id)
        at, _, linkable = pieces[k]
        if linkable:
            escapes = plains[k][1]
            found.append((at + _md_offset(start, escapes) - 1, at + _md_offset(end, escapes) - 1, t.id))
    return named, found


def mark_candidates(body: str, found: list[tuple[int, int, str]]) -> str:
    """The body with each linkable mention wrapped as a candidate (see scan_body)."""
    out: list[str] = []
    pos = 0
    for start, end, tid in found:
        out += (body[pos:start], CAND_OPEN, tid, CAND_MID, body[start:end], CAND_CLOSE)
        pos = end
    out.append(body[pos:])
    return "".join(out)
