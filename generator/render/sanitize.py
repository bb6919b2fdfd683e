"""The last step before a page's HTML is written: an allow-list sanitizer.

Entries arrive as pull requests from anyone, so every page's content, handwritten or
generated, goes through nh3 (the Python binding of Rust's ammonia, made for exactly this)
after Markdown and term linking. Whatever an author's text manages to smuggle past the
escaping upstream (a Markdown attribute list, a reference link, an entity-encoded scheme,
raw HTML that code detection missed), only the tags, attributes and URL schemes below
survive. The theme's own markup (Material's header, nav and scripts) is not content and is
not touched; the fields it prints (title, description) are escaped in emit.front_matter.

Two kinds of attribute value are read back as HTML by Material's JavaScript: `title`
(its tooltips) and the search tags. A `<` or `>` in a title is written as an entity in
the attribute's *value*, so that the tooltip shows it as text; tags are escaped in emit.
"""

from __future__ import annotations

import html
import re

import nh3

from generator.kb.text import split_code

TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "button", "caption", "code", "col", "colgroup", "dd", "del", "details",
    "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input",
    "ins", "kbd", "label", "li", "mark", "ol", "p", "pre", "q", "s", "small", "span", "strong", "sub", "summary",
    "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
    "svg", "g", "line", "circle", "rect", "path", "polyline", "polygon", "text", "tspan",  # figures and the local graph
})
ATTRIBUTES = {
    "*": {"class", "id", "title", "role", "hidden", "lang", "dir", "style", "tabindex"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height", "loading"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "ol": {"start"},
    "input": {"type", "name", "value", "checked", "placeholder", "autocomplete", "min", "max", "step"},
    "label": {"for"},
    "button": {"type"},
    "details": {"open"},
    "svg": {"viewBox", "preserveAspectRatio", "width", "height", "xmlns", "focusable"},
    "line": {"x1", "y1", "x2", "y2", "stroke-dasharray", "stroke-width"},
    "circle": {"cx", "cy", "r"},
    "rect": {"x", "y", "width", "height", "rx", "ry"},
    "path": {"d"},
    "polyline": {"points"},
    "polygon": {"points"},
    "text": {"x", "y", "dx", "dy", "text-anchor", "dominant-baseline"},
    "tspan": {"x", "y", "dx", "dy"},
    "g": {"transform"},
}
PREFIXES = frozenset({"data-", "aria-"})  # data-* carry the hover cards and widgets' data; aria-* accessibility
URL_SCHEMES = frozenset({"http", "https", "mailto"})  # and relative URLs, which ammonia passes through
STYLE_PROPERTIES = frozenset({"left", "top", "text-align", "width", "height"})  # positions in the local graph, table alignment


def _attribute(tag: str, attr: str, value: str) -> str:
    """Material's tooltips insert a title as HTML: its angle brackets stay text."""
    if attr == "title" and ("<" in value or ">" in value):
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return value


def clean(html: str) -> str:
    """The page content with every tag, attribute and URL scheme outside the lists removed
    (a removed tag's text stays; script and style lose their content too)."""
    return _nh3(html, TAGS, ATTRIBUTES)


def _nh3(html: str, tags, attributes) -> str:
    """The one call of nh3 with the allow-list's schemes, prefixes and style properties;
    the page sanitizer and the Markdown export differ only in tags and attributes."""
    return nh3.clean(html, tags=tags, attributes=attributes, generic_attribute_prefixes=PREFIXES,
                     url_schemes=URL_SCHEMES, link_rel=None, filter_style_properties=STYLE_PROPERTIES,
                     attribute_filter=_attribute, strip_comments=True)


# --- the same allow-list over Markdown, for `atlas markdown` -----------------------------
# The exported folder is built by another generator (Zensical, plain MkDocs) that runs no
# sanitizer, so what it carries must already be clean: every raw HTML tag outside code goes
# through `clean` above, one tag at a time (nh3 parses it in a context where the tag is
# legal: a lone <td> outside a table would be dropped), and every attribute list is cut
# down to the attributes the sanitizer allows. Markdown around them is left as written.

_MD_TAGS = TAGS - {"img"}  # no page uses one, and the README promises none in content
_VOID = frozenset({"br", "hr", "input", "col"})
_CONTEXT = {
    **{t: ("<table><tbody><tr>", "</tr></tbody></table>") for t in ("td", "th")},
    "tr": ("<table><tbody>", "</tbody></table>"),
    **{t: ("<table>", "</table>") for t in ("tbody", "thead", "tfoot", "caption", "colgroup")},
    "col": ("<table><colgroup>", "</colgroup></table>"),
    **{t: ("<svg>", "</svg>") for t in ("g", "line", "circle", "rect", "path", "polyline", "polygon", "text", "tspan")},
}
_MD_ATTRIBUTES = {tag: set(attrs) | ({"markdown"} if tag == "*" else set()) for tag, attrs in ATTRIBUTES.items()}
_PIECE_RE = re.compile(
    r"<!--.*?(?:-->|\Z)"                                      # a comment: dropped (nh3 drops them too)
    r"|<(?:https?|mailto):[^\s<>\"']*>"                        # an autolink: kept (schemes checked upstream)
    r"|<(?P<end>/?)(?P<name>[A-Za-z][A-Za-z0-9-]*)(?P<attrs>(?:[^>\"']|\"[^\"]*\"|'[^']*')*)>"  # a tag
    r"|<", re.S)                                               # any other '<': text
_ATTR_LIST_RE = re.compile(r"\{:?[ \t]*(?P<body>[^{}\n]*?)[ \t]*\}")
_ATTR_TOKEN_RE = re.compile(r"""(?P<key>[^\s=}'"]+)=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s}]+))|(?P<word>[^\s=}]+)""")


def _clean_one(tag: str, name: str) -> str:
    before, after = _CONTEXT.get(name, ("", ""))
    closing = "" if name in _VOID else f"</{name}>"
    out = _nh3(before + tag + closing + after, _MD_TAGS, _MD_ATTRIBUTES)
    m = re.search(rf"<{name}\b[^>]*>", out, re.I)
    if not m:
        return ""
    # md_in_html reads a bare `markdown` as on and markdown="" as off: keep it as written
    return m.group(0).replace(' markdown=""', " markdown") if re.search(r"\smarkdown(?=[\s/>])", tag) else m.group(0)


def _piece(m: re.Match) -> str:
    text = m.group(0)
    if text.startswith("<!--"):
        return ""
    name = (m.group("name") or "").lower()
    if not name:
        return text if text != "<" else "&lt;"
    if name not in _MD_TAGS:
        return "&lt;" + text[1:]  # shown as text, as the site's sanitizer would drop it
    if m.group("end"):
        return f"</{name}>"
    cleaned = _clean_one(text, name)
    if not cleaned:
        return "&lt;" + text[1:]
    # nh3 writes attribute values with backticks and backslashes as themselves; Markdown
    # reads code spans and escapes before it sets inline tags aside, so they stay entities.
    cleaned = cleaned.replace("`", "&#96;").replace("\\", "&#92;")
    if text.endswith("/>") and name not in _VOID:  # an SVG shape written <line/>: closed as written,
        return cleaned + f"</{name}>"             # or the next shape would open inside it
    return cleaned


def _attr_list(m: re.Match) -> str:
    """An attribute list with only allowed attributes; braces that hold anything else are
    written as an entity, so they show as the text they are and set no attribute."""
    keep, dropped = [], False
    for t in _ATTR_TOKEN_RE.finditer(m.group("body")):
        word = t.group("word")
        if word is not None:
            if re.fullmatch(r"[.#][A-Za-z_][\w-]*", word):
                keep.append(word)
            else:
                dropped = True  # attr_list reads a bare word as word="word"
            continue
        key, value = t.group("key"), next(v for v in (t.group("dq"), t.group("sq"), t.group("bare")) if v is not None)
        cleaned = _clean_one(f'<span {key}="{html.escape(value)}">', "span")
        if f" {key.lower()}=" in cleaned and '"' not in value:
            keep.append(f'{key}="{value}"')
        else:
            dropped = True
    if dropped and not keep:
        return "&#123;" + m.group(0)[1:]
    return "{ " + " ".join(keep) + " }" if dropped else m.group(0)


_MD_TITLE_RE = re.compile(r'(\]\([^()\s]+[ \t]+)"([^"\n]*)"(\))')


def _md_title(m: re.Match) -> str:
    """A Markdown link's title becomes a title attribute, which Material's tooltip reads as
    HTML: its angle brackets are written so that the attribute holds them as entities."""
    title = re.sub(r"&(lt|gt);|[<>]", lambda t: "&amp;" + (t.group(1) or ("lt" if t.group(0) == "<" else "gt")) + ";",
                   m.group(2))
    return m.group(1) + '"' + title + '"' + m.group(3)


def clean_markdown(text: str, html_blocks: list[tuple[int, int]] = ()) -> str:
    """A page's Markdown with every raw tag and attribute list outside code cut to the
    allow-list above, so a generator without our sanitizer makes the same safe HTML.
    `html_blocks` (start, end): raw HTML blocks, which Markdown leaves alone, backticks
    and all, so they are cleaned as HTML (link.raw_html_blocks finds them)."""
    out, pos = [], 0
    for start, end in [*html_blocks, (len(text), len(text))]:
        markdown = _MD_TITLE_RE.sub(_md_title, text[pos:start])  # a backtick in a title is no code to Markdown
        for is_code, piece in split_code(markdown):
            if not is_code:
                piece = _PIECE_RE.sub(_piece, piece)
                piece = _ATTR_LIST_RE.sub(_attr_list, piece)
            out.append(piece)
        out.append(_PIECE_RE.sub(_piece, text[start:end]))
        pos = end
    return "".join(out)
