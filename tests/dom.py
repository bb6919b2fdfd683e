"""What a reader gets from a page, as a list that two builds can be compared by: every
element of the page's body in order with its attributes (classes as a set, links resolved
to the address they open), and its visible text with whitespace collapsed. Two pages with
equal lists show the same text, links, ids and figures, whatever their markup's spacing
or attribute order (tests/test_markdown_export.py)."""

from __future__ import annotations

import posixpath
import re
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

BLOCK = frozenset("""address article aside blockquote body details dialog div dl dd dt fieldset figcaption figure
footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section summary table tbody td tfoot th thead tr
ul svg g script style head title meta link""".split())
_SPACE = re.compile(r"\s+")
_SELF_CLOSED = re.compile(r"<(line|circle|rect|path|polyline|polygon|ellipse|use|stop)(\b[^>]*?)\s*/>")
"""SVG shapes written <line/>, which html.parser would leave open around the next one."""


def resolve(href: str, page_url: str) -> str:
    """A link as the address it opens from the page at `page_url` (site-relative, '' or
    ending in '/'): relative paths joined and normalised, a bare fragment kept as it is."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith("#") or not parts.path:
        return href
    path = posixpath.normpath(posixpath.join("/" + page_url, parts.path))
    if parts.path.endswith("/") and not path.endswith("/"):
        path += "/"
    return path + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")


def tokens(html: str, page_url: str, root: str = "body", terms: bool = True) -> list[tuple]:
    """The page's tokens. `terms=False`: the term linker's links (a.atlas-term) as their text
    alone, for comparing builds whose only difference may be which mention of a term is linked."""
    if root:  # parse only the element read: a page's navigation lists every entry, and parsing it was most of the time
        start, end = html.find(f"<{root}"), html.rfind(f"</{root}>")
        if start >= 0 and end > start:
            html = html[start:end + len(root) + 3]
    soup = BeautifulSoup(_SELF_CLOSED.sub(r"<\1\2></\1>", html), "html.parser")
    top = soup.find(root) if root else soup
    out: list[tuple] = []
    if top is None:
        return out
    if not terms:
        for a in top.select("a.atlas-term"):
            a.unwrap()
        top.smooth()
    _walk(top, page_url, out)
    return out


def _walk(node: Tag, page_url: str, out: list[tuple]) -> None:
    attrs = []
    for name, value in sorted(node.attrs.items()):
        if name.startswith("data-search-"):  # hints to the search indexer, which takes them out or not
            continue
        if isinstance(value, list):  # class, rel: a set of words
            value = " ".join(sorted(value))
        elif name in ("href", "src"):
            value = resolve(value, page_url)
        elif name == "style":  # "text-align: right;" and "text-align:right" are one style
            value = value.replace(" ", "").rstrip(";")
        attrs.append((name, value))
    out.append(("<", node.name, tuple(attrs)))
    children = list(node.children)
    for i, child in enumerate(children):
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            text = _SPACE.sub(" ", str(child))
            if text == " " and _beside_block(children, i):
                continue
            if _beside_block(children, i, -1):  # space after a block boundary shows as nothing
                text = text.lstrip()
            if _beside_block(children, i, 1):
                text = text.rstrip()
            if text:
                if out and out[-1][0] == "t":  # text split around a dropped comment: one run
                    out[-1] = ("t", _SPACE.sub(" ", out[-1][1] + text))
                else:
                    out.append(("t", text))
        elif isinstance(child, Tag):
            _walk(child, page_url, out)
    out.append((">", node.name))


def _beside_block(children: list, i: int, side: int = 0) -> bool:
    for j in ((i - 1, i + 1) if side == 0 else (i + side,)):
        if 0 <= j < len(children):
            other = children[j]
            if isinstance(other, Tag) and other.name in BLOCK:
                return True
        else:
            return True  # first or last in its parent
    return False


def first_difference(a: list[tuple], b: list[tuple], context: int = 3) -> str | None:
    """Where two token lists part, shown with a few tokens before; None if equal."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            lo = max(0, i - context)
            return f"at token {i}:\n  before: {a[lo:i + 2]}\n  after:  {b[lo:i + 2]}"
    if len(a) != len(b):
        n = min(len(a), len(b))
        return f"lengths {len(a)} and {len(b)}; first extra: {(a if len(a) > n else b)[n:n + 3]}"
    return None


def table_rows(text: str, first_header: str) -> dict[str, list[str]]:
    """The HTML table (in a page's HTML or a generated page's Markdown) whose first header
    cell starts with `first_header`: each row's first cell's text -> the other cells' texts,
    citations left out."""
    at = text.index(f"<th>{first_header}")
    start, end = text.rindex("<table", 0, at), text.index("</table>", at) + len("</table>")
    soup = BeautifulSoup(text[start:end], "html.parser")
    for sup in soup.select("sup.atlas-cite"):
        sup.decompose()
    rows = {}
    for tr in soup.select("tbody tr"):
        cells = [_SPACE.sub(" ", td.get_text()).strip() for td in tr.find_all("td")]
        rows[cells[0]] = cells[1:]
    return rows
