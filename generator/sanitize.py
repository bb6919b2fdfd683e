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

import nh3

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
    return nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, generic_attribute_prefixes=PREFIXES,
                     url_schemes=URL_SCHEMES, link_rel=None, filter_style_properties=STYLE_PROPERTIES,
                     attribute_filter=_attribute, strip_comments=True)
