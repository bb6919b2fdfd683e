"""An entry's page: definition, body, specs or feature cells, fit and measured tables, local
graph, related entries, backlinks and sources, with its terms marked for linking."""

from __future__ import annotations

import re
from functools import lru_cache

import networkx as nx

from generator.figures import charts as figures
from generator.kb.kinds import KIND_URLS
from generator.kb.model import Atlas, Entry
from generator.knowledge.changes import last_change
from generator.kb.text import esc, esc_html
from generator.knowledge.graph import CELL_RELATIONS, backlinks, local_graph, related
from generator.knowledge.link import NO_LINKS_BELOW, Linker
from generator.knowledge.link_markdown import link_markdown, mark_candidates
from generator.pages.fit import _fit_table, _FitPairs, _measured_table, memory_sizes, parts_table, reference_cost
from generator.pages.speed import published
from generator.pages.guide import _guide_page
from generator.pages.site import Site
from generator.render.jsonld import defined_term
from generator.render.labels import KIND_TITLES, SPEC_LABELS, STATUS_SYMBOL, fmt_value
from generator.render.page import HTML_CLOSE, HTML_OPEN, Page, front_matter, html_block, markdown_path, sources_md
from generator.render.templates import env


def search_tags(e: Entry) -> list[str]:
    """Aliases for Material's search, which indexes them as tags, its most heavily boosted
    field: an abbreviation or spelling variant (MoE, key-value cache) finds the entry first
    rather than a page that merely mentions it in a heading. (Exact matches are put ahead
    of prefix matches in the browser: docs/assets/search-on-demand.js.) The title is a tag
    too, listed twice: Lunr counts repeats, and once is not enough for the entry's own name
    to outrank another entry whose aliases contain it (llama.cpp server over llama.cpp)."""
    return [esc_html(t) for t in (e.title, e.title, *e.aliases)]  # Material shows tags as HTML


def _entry_page(atlas: Atlas, g: nx.MultiDiGraph, e: Entry, boost: float, fit: "_FitPairs",
                order: dict[str, tuple[int, str]] | None = None, linker: Linker | None = None,
                found: list[tuple[int, int, str]] | None = None) -> str:
    page = Page(atlas, e.src_path)  # sources are numbered in order of first citation
    if linker is None or e.kind == "guide":
        found = None
    # `found`: where the body's linkable mentions are (link.scan_body, in the graph stage);
    # marked as candidates, they are not searched for again below.
    body = page.md(e.body if found is None else mark_candidates(e.body, found))
    cat = atlas.categories.get(e.category)
    rel, back = related(g, atlas, e.id), backlinks(g, e.id)
    ctx = dict(
        e=e, page=page, body=body, atlas=atlas, category=cat,
        category_href=page.to(f"categories/{e.category}.md") if cat else None,
        related=rel, related_md=_related_md(page, rel, e.id), backlinks=back, backlinks_md=_backlinks_md(page, back),
        local_svg=_local_svg(atlas, g, e, order),
        fit=_fit_table(atlas, page, e, fit), parts=parts_table(atlas, page, e), sizes=memory_sizes(atlas, page, e), measured=_measured_table(atlas, page, e), cost=reference_cost(page, e, fit),
        published=published(atlas, page, e),
        spec_rows=_spec_rows(page, e), cells=_cells(page, e), status=STATUS_SYMBOL,
        kind_title=KIND_TITLES[e.kind], kind_index=page.to(f"{KIND_URLS[e.kind]}/index.md"), last_change=last_change(e),
    )
    if e.kind == "guide":
        text = _guide_page(atlas, page, e, body)
    else:
        text = env().get_template("entry.md.j2").render(**{**ctx, "body": _BODY_SLOT} if found is not None else ctx)
        if found is not None:  # where the body is: the template's only use of it
            at = text.index(_BODY_SLOT)
            text, body_span = text[:at] + body + text[at + 1:], (at, at + len(body))
    text = figures.place(text, atlas, page, e)  # charts drawn from the entries' data, where this entry explains one
    # Sources last, after every citation above has been numbered; uncited ones follow.
    for s in e.sources:
        page.sources.setdefault(s, len(page.sources) + 1)
    text += sources_md(page, [atlas.sources[s] for s in page.sources], fenced=NO_LINKS_BELOW not in text)
    linked = {}
    if linker is not None and NO_LINKS_BELOW in text:
        # Mentions are marked here, in the emit workers, rather than linked in the HTML
        # after MkDocs renders it: the body's come from the graph stage's reading of it,
        # the rest is read as Markdown, half the text of the HTML (link.link_markdown);
        # the plugin turns the marks into links (link.resolve_marks).
        prose, rest = text.split(NO_LINKS_BELOW, 1)
        marks = sum(len(tid) + 3 for _, _, tid in found) if found is not None else 0  # the candidates' own characters
        prose, _ = link_markdown(prose, linker, e.url.lstrip("/"), skip_id=e.id, per_section=_length(text) - marks > LONG_PAGE,
                                 body=body_span if found is not None else None)
        text, linked = prose + NO_LINKS_BELOW + rest, {"atlas_linked": True}
    # No left sidebar: entry pages are not in the nav, so it would stand empty; the page's
    # tables get its width instead (related entries are listed on the page itself).
    # atlas.yaml and atlas.markdown: the theme's links to the entry's YAML file and its
    # Markdown (overrides/partials/actions.html); jsonld: printed into <head> (overrides/main.html).
    fm = front_matter(title=e.title, description=e.short, search={"boost": boost}, hide=["navigation"],
                      tags=search_tags(e), atlas={"id": e.id, "kind": e.kind, "category": e.category, "yaml": e.path,
                                                  "markdown": markdown_path(e)},
                      jsonld=defined_term(atlas, e), **linked)
    return fm + text


_BODY_SLOT = "\ufdd6"  # a noncharacter (refused in input, load.RESERVED_CHARS): where the body goes


LONG_PAGE = 9_000


"""An entry page with more Markdown than this (before its term links; its HTML blocks'
tags not counted, see _length) links each entry once per section (each `##` heading),
not once per page, so a reader who jumps to a section finds its terms linked there.
Link_html does the same for pages over 20,000 characters of HTML. It was 16,000 while
the tables, lists and figures were Markdown or raw HTML; 9,000 without the tags of the
HTML blocks keeps the most pages as they were (all but 18 of 324 entry pages, which now
link a term again in a later section, or no longer do)."""


_TAG = re.compile(r"<[^>]*>")


def _length(text: str) -> int:
    """The page's length for LONG_PAGE: its characters, less the tags of its HTML blocks
    (their text counts, as a Markdown table's cells did)."""
    if HTML_OPEN not in text:
        return len(text)
    return len(text) - sum(len(m) for block in text.split(HTML_OPEN)[1:] for m in _TAG.findall(block.split(HTML_CLOSE, 1)[0]))



# The lists at the foot of an entry page are written here rather than in the template: a
# page has dozens of links in them, and each call from a template costs several times a
# plain Python call (a third of the time spent on entry pages at 10,000 entries).
RELATED_LIMIT = 40  # links per relation in the Related list


BACKLINK_LIMIT = 50  # links in the Referenced by list


SUPPORT_WORDS = {"partial": "partly", "plugin": "through a plugin"}
"""How an engine's support cell qualifies a link in the Related list (a "yes" cell says nothing more)."""


def _support(atlas, here: str, other: str) -> str:
    """How far the engine of the pair supports the other (its features, formats, backends or
    API cell): "partly", "through a plugin", or "" for full support or no cell."""
    for engine, target in ((here, other), (other, here)):
        e = atlas.entries[engine]
        if e.kind == "engine":
            for group in CELL_RELATIONS:
                cell = (e.get(group) or {}).get(target)
                if cell:
                    return SUPPORT_WORDS.get(cell["status"], "")
    return ""


def _related_md(page: Page, groups: list[tuple[str, list[str]]], here: str) -> str:
    """One item per relation: "Runs on: A, B (partly) and 3 more", as an HTML list; an
    engine that supports a feature, format or backend only partly or through a plugin says so."""
    items = []
    for label, ids in groups:
        more = f" and {len(ids) - RELATED_LIMIT} more" if len(ids) > RELATED_LIMIT else ""
        links = []
        for i in ids[:RELATED_LIMIT]:
            how = _support(page.atlas, here, i)
            links.append(page.a(i) + (f' <span class="atlas-support">({how})</span>' if how else ""))
        items.append(f"<li><strong>{esc(label)}:</strong> {', '.join(links)}{more}</li>")
    return html_block("<ul>\n" + "\n".join(items) + "\n</ul>") if items else ""


def _backlinks_md(page: Page, ids: list[str]) -> str:
    """The entries that link here, folded by kind (a wall of 50 links read as noise), each
    group with its count; at most BACKLINK_LIMIT links in all, the rest counted."""
    kinds: dict[str, list[str]] = {}
    for i in ids[:BACKLINK_LIMIT]:
        kinds.setdefault(page.atlas.entries[i].kind, []).append(i)
    total = {k: sum(1 for i in ids if page.atlas.entries[i].kind == k) for k in kinds}
    parts = []
    for kind in KIND_TITLES:
        if kind in kinds:
            shown = kinds[kind]
            rest = f" and {total[kind] - len(shown)} more" if total[kind] > len(shown) else ""
            parts.append(f'<details class="abstract">\n<summary>{KIND_TITLES[kind]} ({total[kind]})</summary>\n'
                         f'<p>{", ".join(map(page.a, shown))}{rest}</p>\n</details>')
    if len(ids) > BACKLINK_LIMIT:
        parts.append(f'<p>{len(ids)} entries link here; the <a href="{page.url("graph/index.md")}">concept graph</a> shows them all.</p>')
    return html_block("\n".join(parts)) if parts else ""


@lru_cache(maxsize=64)
def _ring(n: int) -> tuple[tuple[str, str, str], ...]:
    """Where n neighbours sit around the centre of a local graph: for each, its edge as a
    solid line, as a dashed one (a prose mention), and its place as a node's style."""
    import math

    out = []
    for i in range(n):
        angle = 2 * math.pi * i / n - math.pi / 2
        x, y = f"{50 + 38 * math.cos(angle):.1f}", f"{50 + 40 * math.sin(angle):.1f}"
        line = f'<line x1="50" y1="50" x2="{x}" y2="{y}"'
        out.append((line + "/>", line + ' stroke-dasharray="1.5 1"/>', f"{x}%;top:{y}%"))
    return tuple(out)


@lru_cache(maxsize=200_000)
def _local_node(kind: str, url: str, title: str, label: str) -> tuple[str, str]:
    """A neighbour's link on a local graph, before and after its position (escaped once)."""
    href = "../../" + url.strip("/") + "/"
    return (f'<a class="atlas-local__node atlas-local__{kind}" style="left:',
            f'" href="{esc(href)}" title="{esc(label)}: {esc(title)}">{esc(title)}</a>')


def _local_svg(atlas: Atlas, g: nx.MultiDiGraph, e: Entry, order: dict[str, tuple[int, str]] | None = None) -> str:
    """A small radial graph of the entry and its neighbours, laid out at build time: SVG
    lines for the edges and ordinary HTML links for the nodes, placed in percentages so it
    scales. The Related list below is its text alternative."""
    items = local_graph(g, e.id, order=order)
    if not items:
        return ""
    types, entries = atlas.relation_types, atlas.entries
    lines, nodes = [], []
    for (other, rel, outgoing), (solid, dashed, place) in zip(items, _ring(len(items))):
        if rel == "mentions":
            label = "mentions"
            lines.append(dashed)
        else:
            t = types[rel]
            label = t.label if outgoing or t.symmetric else t.inverse
            lines.append(solid)
        o = entries[other]
        before, after = _local_node(o.kind, o.url, o.title, label)
        nodes.append(before + place + after)
    svg = ('<svg class="atlas-local__edges" viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true">'
           + "".join(lines) + "</svg>")
    me = f'<span class="atlas-local__node atlas-local__self atlas-local__{e.kind}" style="left:50%;top:50%">{esc(e.title)}</span>'
    return f'<div class="atlas-local" role="group" aria-label="{esc(e.title)} and the entries linked to it">{svg}{me}{"".join(nodes)}</div>'


def _spec_rows(page: Page, e: Entry) -> list[dict]:
    specs, gaps = e.get("specs") or {}, e.get("gaps") or {}
    rows = []
    for key in SPEC_LABELS:
        if key in gaps and key not in specs:  # a figure the page needs that is not on record, with the reason
            rows.append({"label": SPEC_LABELS[key][0], "value": "not on record", "cite": "", "note": esc(gaps[key]), "gap": True})
        if key in specs:
            fact = specs[key]
            label, unit = SPEC_LABELS[key]
            rows.append({"label": label, "value": fmt_value(fact["value"], unit, key), "cite": page.cite(fact["source"]),
                         "note": esc(" ".join(x for x in (fact.get("note", ""),
                                                           f"(Read {fact['checked']}.)" if fact.get("checked") else "") if x))})
    return rows


def _cells(page: Page, e: Entry) -> list[dict]:
    groups = []
    for group, title in (("features", "Features"), ("backends", "Hardware backends"), ("formats", "Weight formats"), ("api", "API surface")):
        cells = e.get(group) or {}
        if cells:
            rows = [{"a": page.a(k), "status": v["status"], "cite": page.cite(v["source"]), "note": esc(v.get("note", ""))}
                    for k, v in sorted(cells.items(), key=lambda kv: page.atlas.entries[kv[0]].title.casefold())]
            groups.append({"title": title, "rows": rows})
    return groups


SEARCH_BOOST = {"term": 3, "engine": 3, "hardware": 2, "model": 2, "guide": 2}


def page(site: Site, e: Entry) -> str:
    """One entry's page. Where several entries match a search equally well, the more
    central one (by PageRank over the concept graph) comes first: KV cache before
    KV-cache-aware routing."""
    boost = round(SEARCH_BOOST[e.kind] * (1 + (site.rank.get(e.id, 0) / site.top) ** 0.5), 2)
    found = site.found.get(e.id) if site.found is not None else None
    return _entry_page(site.atlas, site.g, e, boost, site.fit, site.order, site.linker, found)
