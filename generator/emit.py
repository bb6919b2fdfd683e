"""Stage 5 — emit: model + graph in, `{docs-relative path: text}` out.

Pure functions: no file is read or written here, and the same input gives byte-identical
output (every collection is sorted before it is rendered). Markdown pages use only
standard extensions (attr_list, md_in_html, admonition, tables, pymdownx).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from dataclasses import dataclass
import re
from functools import lru_cache, partial
from typing import Any

import jinja2
import networkx as nx

from . import KIND_URLS
from . import figures, linked_data, llms
from .graph import (backlinks, degrees, importance, local_graph, mention_only, orphans, related, to_graphml, to_json,
                    view_json)
from .link import NO_LINKS_BELOW, Linker, link_markdown, mark_candidates
from .model import Atlas, Entry, Source
from .compare import differences
from .search_index import entries_json
from .text import compact_json, esc, esc_html, relpath, render_markdown, split_code, strip_markup
from .workers import fork_map

KIND_TITLES = {"term": "Glossary", "engine": "Engines", "hardware": "Hardware", "model": "Models", "guide": "Decision guides"}
SEARCH_BOOST = {"term": 3, "engine": 3, "hardware": 2, "model": 2, "guide": 2}
STATUS_WORD = {"yes": "yes", "no": "no", "partial": "partial", "plugin": "via a plugin", "unknown": "unknown"}
STATUS_SYMBOL = {"yes": "yes", "no": "no", "partial": "partial", "plugin": "via plugin"}
SPEC_LABELS = {
    "memory_gb": ("Memory", "GB"), "memory_type": ("Memory type", ""), "bandwidth_gbs": ("Memory bandwidth", "GB/s"),
    "fp32_tflops": ("FP32 (dense)", "TFLOPS"), "fp16_tflops": ("FP16 tensor (dense)", "TFLOPS"),
    "bf16_tflops": ("BF16 tensor (dense)", "TFLOPS"), "fp8_tflops": ("FP8 tensor (dense)", "TFLOPS"),
    "fp4_tflops": ("FP4 tensor (dense)", "TFLOPS"), "int8_tops": ("INT8 tensor (dense)", "TOPS"),
    "tdp_w": ("Power (TDP)", "W"), "interconnect": ("Interconnect", ""), "release_year": ("Released", ""),
    "params_total_b": ("Parameters (total)", "B"), "params_active_b": ("Parameters (active per token)", "B"),
    "layers": ("Layers", ""), "attention_heads": ("Attention heads", ""), "kv_heads": ("KV heads", ""),
    "head_dim": ("Head dimension", ""), "hidden_size": ("Hidden size", ""), "context_length": ("Context length", "tokens"),
    "attention": ("Attention", ""), "kv_lora_rank": ("MLA latent width", ""), "rope_head_dim": ("MLA RoPE key width", ""),
    "full_attention_layers": ("Full-attention layers", ""), "kv_bytes_per_token": ("KV cache per token (16-bit)", "bytes"), "architecture": ("Architecture", ""),
}


_ENV_OPTIONS = dict(
    autoescape=False,  # output is Markdown; text fields go through the `e` filter below
    keep_trailing_newline=True,
    auto_reload=False,  # templates do not change during a build: no stat() per page
    trim_blocks=True,
    lstrip_blocks=True,
    comment_start_string="{#-#", comment_end_string="#-#}",  # Markdown uses {#anchor}
)


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    # Compiled templates are kept between builds: compiling them took 0.06-0.1 s of every
    # build, on one core (half of emit at 100 entries). Jinja checks each cached template
    # against its source, but not against the options it was compiled with, so those and
    # Jinja's version name the cache files. The folder is the user's own, under the temp folder.
    key = hashlib.sha256(repr((jinja2.__version__, sorted(_ENV_OPTIONS.items()))).encode()).hexdigest()[:16]
    try:
        cache: jinja2.BytecodeCache | None = jinja2.FileSystemBytecodeCache(pattern=f"atlas-{key}-%s.cache")
    except (RuntimeError, OSError):  # no safe folder: compile every time
        cache = None
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("generator", "templates"), bytecode_cache=cache,
        undefined=jinja2.Undefined,  # optional YAML fields are simply absent
        **_ENV_OPTIONS,
    )
    env.filters["e"] = esc
    env.filters["label"] = label
    env.globals["source_line"] = source_line
    return env


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


# Enumerated values as a reader says them (schema enums: hardware class and tier, attention
# design, architecture, engine status).
VALUE_LABELS = {
    "gpu": "GPU", "apu": "APU", "xpu": "XPU", "npu": "NPU", "tpu": "TPU", "cpu": "CPU", "soc": "SoC",
    "system": "System", "cluster": "Cluster", "family": "Product family",
    "very-tight": "Very tight", "tight": "Tight", "moderate": "Moderate", "average": "Average", "high": "High",
    "mha": "Multi-head (MHA)", "gqa": "Grouped-query (GQA)", "mqa": "Multi-query (MQA)", "mla": "Multi-head latent (MLA)",
    "hybrid-linear": "Hybrid linear", "other": "Other", "dense": "Dense", "moe": "Mixture of experts (MoE)",
    "active": "Active", "maintenance": "Maintenance only", "deprecated": "Deprecated", "archived": "Archived",
}


def label(value: Any) -> str:
    """An enumerated value's label, escaped; other text escaped as it is."""
    return esc(VALUE_LABELS.get(value, value) if isinstance(value, str) else value)


def fmt_value(value: Any, unit: str = "", key: str = "") -> str:
    if key == "release_year" and isinstance(value, (int, float)):
        return esc(str(int(value)))  # a year, not a quantity: 2022, not 2,022
    if isinstance(value, str) and not unit and value in VALUE_LABELS:
        return label(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        text = f"{value:,}" if isinstance(value, int) else f"{value:,.2f}".rstrip("0").rstrip(".")
    else:
        text = str(value)
    return esc(f"{text} {unit}".strip())


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


# The two counts are what re.findall gives for [a-z0-9,;)'’]\s+Word\b and for
# (?<![\w/.-])word\b, found with str.find: a pattern compiled per title (and thousands of
# titles overflow re's cache) cost five times as much.

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
        related=rel, related_md=_related_md(page, rel), backlinks=back, backlinks_md=_backlinks_md(page, back),
        local_svg=_local_svg(atlas, g, e, order),
        fit=_fit_table(atlas, page, e, fit), measured=_measured_table(atlas, page, e),
        spec_rows=_spec_rows(page, e), cells=_cells(page, e), status=STATUS_SYMBOL,
        kind_title=KIND_TITLES[e.kind], kind_index=page.to(f"{KIND_URLS[e.kind]}/index.md"),
    )
    if e.kind == "guide":
        text = _guide_page(atlas, page, e, body)
    else:
        text = _env().get_template("entry.md.j2").render(**{**ctx, "body": _BODY_SLOT} if found is not None else ctx)
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
        prose, _ = link_markdown(prose, linker, e.url.lstrip("/"), skip_id=e.id, per_section=len(text) - marks > LONG_PAGE,
                                 body=body_span if found is not None else None)
        text, linked = prose + NO_LINKS_BELOW + rest, {"atlas_linked": True}
    # No left sidebar: entry pages are not in the nav, so it would stand empty; the page's
    # tables get its width instead (related entries are listed on the page itself).
    # atlas.yaml and atlas.markdown: the theme's links to the entry's YAML file and its
    # Markdown (overrides/partials/actions.html); jsonld: printed into <head> (overrides/main.html).
    fm = front_matter(title=e.title, description=e.short, search={"boost": boost}, hide=["navigation"],
                      tags=search_tags(e), atlas={"id": e.id, "kind": e.kind, "category": e.category, "yaml": e.path,
                                                  "markdown": llms.markdown_path(e)},
                      jsonld=linked_data.defined_term(atlas, e), **linked)
    return fm + text


_BODY_SLOT = "\ufdd6"  # a noncharacter (refused in input, load.RESERVED_CHARS): where the body goes

LONG_PAGE = 16_000
"""An entry page with more Markdown than this (before its term links) links each entry
once per section (each `##` heading), not once per page, so a reader who jumps to a
section finds its terms linked there. Link_html does the same for pages over 20,000
characters of HTML; 16,000 is where the two rules agree best (on all but 4 of the 239
entry pages of the knowledge base when this was written)."""


# The lists at the foot of an entry page are written here rather than in the template: a
# page has dozens of links in them, and each call from a template costs several times a
# plain Python call (a third of the time spent on entry pages at 10,000 entries).
RELATED_LIMIT = 40  # links per relation in the Related list
BACKLINK_LIMIT = 50  # links in the Referenced by list


def _related_md(page: Page, groups: list[tuple[str, list[str]]]) -> str:
    """One line per relation: "- **Runs on:** [A](a.md), [B](b.md) and 3 more"."""
    lines = []
    for label, ids in groups:
        more = f" and {len(ids) - RELATED_LIMIT} more" if len(ids) > RELATED_LIMIT else ""
        lines.append(f"- **{esc(label)}:** {', '.join(map(page.link, ids[:RELATED_LIMIT]))}{more}\n")
    return "".join(lines)


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
            parts.append(f'??? abstract "{KIND_TITLES[kind]} ({total[kind]})"\n\n    '
                         + ", ".join(map(page.link, shown)) + rest + "\n")
    more = (f"\n{len(ids)} entries link here; the [concept graph]({page.to('graph/index.md')}) shows them all.\n"
            if len(ids) > BACKLINK_LIMIT else "")
    return "\n".join(parts) + more


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


def _guide_page(atlas: Atlas, page: Page, e: Entry, body: str) -> str:
    from .guides import calculator_query, guide_data

    site_href = lambda i: "../../" + atlas.entries[i].url.strip("/") + "/"  # noqa: E731
    data = guide_data(atlas, e, site_href, "../../calculator/")
    return _env().get_template("guide.md.j2").render(
        e=e, page=page, body=body, questions=e.get("questions"), data_attr=_data_attr(data), calc_query=calculator_query)





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
    specs = e.get("specs") or {}
    rows = []
    for key in SPEC_LABELS:
        if key in specs:
            fact = specs[key]
            label, unit = SPEC_LABELS[key]
            rows.append({"label": label, "value": fmt_value(fact["value"], unit, key), "cite": page.cite(fact["source"]),
                         "note": esc(fact.get("note", ""))})
    return rows


def _cells(page: Page, e: Entry) -> list[dict]:
    groups = []
    for group, title in (("features", "Features"), ("backends", "Hardware backends"), ("formats", "Weight formats"), ("api", "API surface")):
        cells = e.get(group) or {}
        if cells:
            rows = [{"link": page.link(k), "status": v["status"], "cite": page.cite(v["source"]), "note": esc(v.get("note", ""))}
                    for k, v in sorted(cells.items(), key=lambda kv: page.atlas.entries[kv[0]].title.casefold())]
            groups.append({"title": title, "rows": rows})
    return groups


AZ_PAGE_SIZE = 500
"""At most this many entries on one A-Z page: a larger glossary is split into consecutive
alphabetical parts, so no index page grows with the corpus."""


def _glossary_pages(atlas: Atlas) -> dict[str, str]:
    """The A-Z index: one page, or an overview of alphabetical parts of AZ_PAGE_SIZE."""
    entries = sorted(atlas.entries.values(), key=lambda e: (e.title.casefold(), e.id))
    if len(entries) <= AZ_PAGE_SIZE:
        return {"glossary/index.md": _index_page(atlas, "term", entries)}
    chunks = [entries[i:i + AZ_PAGE_SIZE] for i in range(0, len(entries), AZ_PAGE_SIZE)]
    out: dict[str, str] = {}
    parts = [{"src": f"glossary/az/{n}.md", "first": c[0].title, "last": c[-1].title, "count": len(c)}
             for n, c in enumerate(chunks, 1)]
    for n, chunk in enumerate(chunks, 1):
        part = parts[n - 1]
        page = Page(atlas, part["src"])
        nav = {"n": n, "total": len(chunks), "index": page.to("glossary/index.md"),
               "prev": page.to(parts[n - 2]["src"]) if n > 1 else None,
               "next": page.to(parts[n]["src"]) if n < len(chunks) else None}
        title = f"Glossary: {part['first']} to {part['last']}"
        out[part["src"]] = front_matter(title=title, atlas_nolink=True, description=f"Part {n} of the A-Z glossary of Inference Atlas.") + \
            _index_text(atlas, page, "term", chunk, "../../../", part=nav, heading=title)
    page = Page(atlas, "glossary/index.md")
    text = _env().get_template("index_term_parts.md.j2").render(
        page=page, total=len(entries), size=AZ_PAGE_SIZE, parts=[dict(p, href=page.to(p["src"])) for p in parts])
    out["glossary/index.md"] = front_matter(title=KIND_TITLES["term"], atlas_nolink=True,
                                            description="All glossary entries of Inference Atlas, A to Z.") + text
    return out


def _counts(entries: list[Entry]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.category] = counts.get(e.category, 0) + 1
    return counts


def _index_text(atlas: Atlas, page: Page, kind: str, entries: list[Entry], up: str, **extra: Any) -> str:
    site_href = lambda e: up + e.url.strip("/") + "/"  # noqa: E731
    return _env().get_template(f"index_{kind}.md.j2").render(page=page, entries=entries, atlas=atlas, fmt=fmt_value,
                                                           counts=_counts(entries), site_href=site_href, **extra)


def _index_page(atlas: Atlas, kind: str, entries: list[Entry] | None = None) -> str:
    """The index page of one kind: its entries by title, or `entries` (the A-Z glossary
    lists every entry, whatever its kind)."""
    page = Page(atlas, f"{KIND_URLS[kind]}/index.md")
    entries = atlas.of_kind(kind) if entries is None else entries
    text = _index_text(atlas, page, kind, entries, "../")  # index pages sit one level down
    text += figures.index_figures(atlas, page, kind)  # the hardware index: the roofline, with its sources
    return front_matter(title=KIND_TITLES[kind], atlas_nolink=True, description=f"All {KIND_TITLES[kind].lower()} in Inference Atlas.") + text


def _category_pages(atlas: Atlas) -> dict[str, str]:
    out = {}
    members: dict[str, list[Entry]] = {c: [] for c in atlas.categories}
    for e in sorted(atlas.entries.values(), key=lambda e: e.title.casefold()):
        members.setdefault(e.category, []).append(e)
    for cid, cat in atlas.categories.items():
        src = f"categories/{cid}.md"
        page = Page(atlas, src)
        text = _env().get_template("category.md.j2").render(page=page, cat=cat, entries=members[cid])
        out[src] = front_matter(title=cat.title, atlas_nolink=True, description=cat.short) + text
    page = Page(atlas, "categories/index.md")
    out["categories/index.md"] = front_matter(title="Categories", atlas_nolink=True, description="Every category of the knowledge base.") + \
        _env().get_template("categories.md.j2").render(page=page, cats=list(atlas.categories.values()), members=members)
    return out


def _source_pages(atlas: Atlas) -> dict[str, str]:
    out = {}
    citing: dict[str, list[Entry]] = {s: [] for s in atlas.sources}
    for e in sorted(atlas.entries.values(), key=lambda e: e.title.casefold()):
        for s in e.sources:
            citing[s].append(e)
        if e.kind in ("model", "hardware"):  # their pages cite each record of theirs (Measured by this project)
            for rec in atlas.measured(**{e.kind: e.id}):
                if e not in citing[rec.source]:
                    citing[rec.source].append(e)
    for sid, s in atlas.sources.items():
        src = f"sources/{sid}.md"
        page = Page(atlas, src)
        rec = atlas.measurements.get(sid)
        if rec is not None:  # the record itself, as committed, beside its page
            out[f"{MEASURED_FOLDER}/{rec.id}.yaml"] = rec.text
        text = _env().get_template("source.md.j2").render(page=page, s=s, entries=citing[sid],
                                                           record=_record_facts(atlas, page, rec) if rec else None)
        out[src] = front_matter(title=s.title, atlas_nolink=True, description=f"Source: {s.title} ({s.publisher}).",
                                search={"boost": 0.2}) + text  # entries rank above the pages of what they cite
    page = Page(atlas, "sources/index.md")
    ordered = sorted(atlas.sources.values(), key=lambda s: (s.kind != "seed", s.title.casefold()))
    out["sources/index.md"] = front_matter(title="Sources", atlas_nolink=True, description="Every document and page the knowledge base cites.") + \
        _env().get_template("sources.md.j2").render(page=page, sources=ordered, citing=citing)
    return out


MEASURED_FOLDER = "measurements"
"""Where the site serves each GPU suite record as committed (bench/gpu/results/<id>.yaml)."""


def _record_facts(atlas: Atlas, page: Page, rec: Any) -> dict:
    """A measurement source's page: the record's file and its decode and prefill figures
    against the ceilings."""
    from .calc import measured_points, measured_prefills

    points = [p for p in measured_points(atlas, rec.model) if p.source == rec.source]
    rows = [{"config": f"{p.batch} × {p.context:,}", "measured": f"{_tps(p.tokens_per_s)} tok/s",
             "spread": f"{_tps(p.min)}-{_tps(p.max)}", "ceiling": f"{_tps(p.ceiling_tps)} tok/s" if p.ceiling_tps else "—",
             "ratio": f"{p.ratio:.2f}" if p.ratio else "—"} for p in sorted(points, key=lambda p: (p.batch, p.context))]
    return {"path": rec.path, "href": page.to(f"{MEASURED_FOLDER}/{rec.id}.yaml"), "rows": rows,
            "prefill": [_prefill_row(p) | {"spread": f"{p.min_s * 1000:,.1f}-{p.max_s * 1000:,.1f} ms"}
                        for p in measured_prefills(atlas, rec.model) if p.source == rec.source],
            "model": page.link(rec.model) if rec.model in atlas.entries else esc(rec.model),
            "device": page.link(rec.hardware) if rec.hardware in atlas.entries else esc(rec.device_name),
            "commit": rec.git_commit, "slice": rec.slice, "scaling": rec.scaling}


def glossary_json(atlas: Atlas) -> str:
    """site/glossary.json: the contract scripts and other sites read."""
    items = [{"id": e.id, "kind": e.kind, "title": e.title, "aliases": list(e.aliases), "category": e.category,
              "short": e.short, "url": e.url} for e in atlas.entries.values()]
    return json.dumps(items, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def _redirects(atlas: Atlas) -> dict[str, str]:
    out = {}
    for e in atlas.entries.values():
        for old in e.former_ids:
            folder, _, old_id = old.rpartition("/")  # "engines/autoround": an entry that changed kind
            target = f"../../{KIND_URLS[e.kind]}/{e.id}/"
            out[f"{folder or KIND_URLS[e.kind]}/{old_id}/index.html"] = _env().get_template("redirect.html.j2").render(target=target, title=e.title)
    return out


class Emitter:
    """What every generated file of one build shares (the entries' ranks, the fit tables'
    rows and columns, the local graphs' order), worked out once; then any one entry page
    (`entry_page`, which `atlas serve` writes first after an edit) or every file (`files`).
    `linker`: entry pages come with their terms marked for linking (front matter
    `atlas_linked: true`; see link.resolve_marks); without, they are left to the HTML
    linker. `found`: each body's mentions, from the graph stage (pipeline.scan_bodies), so
    that bodies are not searched twice."""

    def __init__(self, atlas: Atlas, g: nx.MultiDiGraph, linker: Linker | None = None,
                 found: dict[str, list[tuple[int, int, str]]] | None = None):
        self.atlas, self.g, self.linker, self.found = atlas, g, linker, found
        self.rank = importance(g)
        self.top = max(self.rank.values(), default=1) or 1
        self.fit = _FitPairs.of(atlas)  # the same columns and rows on every fit table of the build
        # Once, not per neighbour of every local graph: best connected first, then by title.
        nodes = g._node
        self.order = {n: (-d, nodes[n]["title"].casefold()) for n, d in degrees(g).items()}

    def entry_page(self, e: Entry) -> str:
        # Where several entries match a search equally well, the more central one (by
        # PageRank over the concept graph) comes first: KV cache before KV-cache-aware routing.
        boost = round(SEARCH_BOOST[e.kind] * (1 + (self.rank.get(e.id, 0) / self.top) ** 0.5), 2)
        found = self.found.get(e.id) if self.found is not None else None
        return _entry_page(self.atlas, self.g, e, boost, self.fit, self.order, self.linker, found)

    def graph_page(self) -> str:
        atlas, g = self.atlas, self.g
        page = Page(atlas, "graph/index.md")
        return front_matter(title="Concept graph", description="How every entry of Inference Atlas relates to the others.") + \
            _env().get_template("graph.md.j2").render(page=page, g=g, atlas=atlas, orphans=orphans(g),
                                                      mention_only=mention_only(g), counts=_relation_counts(g))

    def files(self) -> dict[str, str]:
        """Every generated file, keyed by its path inside the docs tree."""
        atlas, g, rank = self.atlas, self.g, self.rank
        files: dict[str, str] = {}
        # Every job on any core, each returning {path: text}: the graph exports and the index
        # pages first (the longest jobs), so that one worker writes them while the others
        # write entry pages.
        one = lambda path, make: lambda: {path: make()}  # noqa: E731
        jobs = [one("graph/graph.json", lambda: to_json(g)), one("graph/graph.graphml", lambda: to_graphml(g)),
                one("graph/graph-view.json", lambda: view_json(g, rank, atlas)),
                partial(_glossary_pages, atlas), partial(_category_pages, atlas), partial(_source_pages, atlas),
                partial(_redirects, atlas), one("graph/index.md", self.graph_page), one("calculator.md", partial(_calculator_page, atlas)),
                partial(_comparison_pages, atlas, rank), one("glossary.json", partial(glossary_json, atlas)),
                one("search/entries.json", partial(entries_json, atlas, rank))]
        jobs += [*linked_data.jobs(atlas), *llms.jobs(atlas)]  # SKOS, llms.txt, each entry as Markdown
        jobs += [one(f"{KIND_URLS[kind]}/index.md", partial(_index_page, atlas, kind)) for kind in KIND_TITLES if kind != "term"]
        jobs += [one(e.src_path, partial(self.entry_page, e)) for e in atlas.entries.values()]
        for made in fork_map(lambda job: job(), jobs, here=True):
            files.update(made)
        return dict(sorted(files.items()))


def emit(atlas: Atlas, g: nx.MultiDiGraph, linker: Linker | None = None,
         found: dict[str, list[tuple[int, int, str]]] | None = None) -> dict[str, str]:
    """Every generated file, keyed by its path inside the docs tree (see Emitter)."""
    return Emitter(atlas, g, linker, found).files()


CELL_GROUPS = (("features", "Features"), ("backends", "Hardware backends"), ("formats", "Weight formats"), ("api", "API surface"))


def _cell(page: Page, cell: Any) -> dict:
    s = page.atlas.sources[cell["source"]]
    return {"status": cell["status"], "note": cell.get("note", ""), "title": f"Source: {s.title}",
            "href": page.to(f"sources/{s.id}.md")}


def _groups(page: Page, engines: list[Entry], keep_empty_engines: bool = False) -> list[dict]:
    out = []
    for key, title in CELL_GROUPS:
        ids = sorted({k for e in engines for k in (e.get(key) or {})}, key=lambda i: page.atlas.entries[i].title.casefold())
        if not ids:
            continue
        cols = engines if keep_empty_engines else [e for e in engines if e.get(key)]
        rows = [{"id": i, "cells": [_cell(page, (e.get(key) or {})[i]) if i in (e.get(key) or {}) else None for e in cols]}
                for i in ids]
        out.append({"key": key, "title": title, "engines": cols, "rows": rows})
    return out


MATRIX_LIMIT = 24
"""At most this many engines (columns) in the comparison matrix, the most connected by
PageRank: a matrix is read across, and its size would otherwise grow with engines × features."""


def _comparison_pages(atlas: Atlas, rank: dict[str, float]) -> dict[str, str]:
    out: dict[str, str] = {}
    pairs = []
    for a, b, summary in atlas.comparisons:
        pid = f"{a}-vs-{b}"
        src = f"engines/compare/{pid}.md"
        page = Page(atlas, src)
        ea, eb = atlas.entries[a], atlas.entries[b]
        disputes = [(ea, d) for d in ea.disputes] + [(eb, d) for d in eb.disputes]
        text = _env().get_template("pair.md.j2").render(page=page, a=ea, b=eb, summary=page.md(summary),
                                                      differ=differences(atlas, [ea, eb]), status_word=STATUS_WORD,
                                                      groups=_groups(page, [ea, eb], keep_empty_engines=True),
                                                      disputes=disputes)
        text += sources_md(page, [atlas.sources[s] for s in page.sources])
        out[src] = front_matter(title=f"{ea.title} vs {eb.title}", description=f"{ea.title} and {eb.title} side by side, with sources.") + text
        pairs.append({"id": pid, "a": ea, "b": eb})
    page = Page(atlas, "engines/compare/index.md")
    engines = atlas.of_kind("engine")
    shown = engines
    if len(engines) > MATRIX_LIMIT:  # the most connected engines, in the usual order
        keep = set(sorted((e.id for e in engines), key=lambda i: (-rank.get(i, 0), i))[:MATRIX_LIMIT])
        shown = [e for e in engines if e.id in keep]
    licences = [_cell(page, {"status": lic["value"], "source": lic["source"]}) if (lic := e.get("license")) else None
                for e in shown]
    text = _env().get_template("matrix.md.j2").render(page=page, groups=_groups(page, shown), pairs=pairs,
                                                      engines=shown, licences=licences,
                                                      shown=len(shown), total=len(engines),
                                                      engine_index=page.to("engines/index.md"))
    out["engines/compare/index.md"] = front_matter(title="Engine comparison matrix", atlas_nolink=True,
                                                   description="Which engine supports which feature, backend, format and API, with a source for every cell.") + text
    return out


PER_DEVICE_EXCLUDED = ("cluster", "family")
"""Racks and product families: their figures are totals or ranges, not one device's."""

FIT_LIMIT = 24
"""At most this many rows in a model's or device's fit table, so pages stay bounded."""


def _fit_precisions(atlas: Atlas) -> list[tuple[str, float]]:
    """16-, 8- and 4-bit columns, named after sourced formats where the entries give them."""
    from .calc import formats

    known = formats(atlas)
    out = []
    for names, bits, fallback in ((("fp16", "bf16"), 16.0, "16-bit"), (("fp8", "int8"), 8.0, "8-bit"),
                                  (("nvfp4", "mxfp4", "int4"), 4.5, "4.5-bit")):
        hit = next(((atlas.entries[n].title if n in atlas.entries else known[n][1], known[n][0]) for n in names if n in known), None)
        out.append(hit or (fallback, bits))
    return out


@dataclass
class _FitPairs:
    """What every fit table of one build draws on, worked out once: the precision columns,
    the largest devices (for model pages) and the first models (for device pages), each
    with its calculator figures."""

    precisions: list[tuple[str, float]]
    devices: list[tuple[Entry, Any]]
    models: list[tuple[Entry, Any]]

    @classmethod
    def of(cls, atlas: Atlas) -> "_FitPairs":
        from .calc import device_spec, model_spec

        devices = [d for d in atlas.of_kind("hardware") if (d.get("specs") or {}).get("memory_gb") and d.get("class") not in PER_DEVICE_EXCLUDED]
        devices.sort(key=lambda d: -d.get("specs")["memory_gb"]["value"])
        return cls(_fit_precisions(atlas), [(d, device_spec(d)) for d in devices[:FIT_LIMIT]],
                   [(x, model_spec(x)) for x in atlas.of_kind("model")[:FIT_LIMIT]])


def _fit_table(atlas: Atlas, page: Page, e: Entry, fit: _FitPairs) -> dict | None:
    """'What fits where' for a model page (over devices) or a device page (over models):
    4,096 tokens, one sequence, 16-bit KV cache."""
    from .calc import CalcError, device_spec, estimate, model_spec

    if e.kind not in ("model", "hardware"):
        return None
    if e.kind == "model":
        m = model_spec(e)
        pairs = [(d, m, spec) for d, spec in fit.devices]
    else:
        d = device_spec(e)
        if not d.memory_gb or e.get("class") in PER_DEVICE_EXCLUDED:
            return None
        pairs = [(x, spec, d) for x, spec in fit.models]
    rows = []
    for other, m, d in pairs:
        cells = []
        try:
            for _label, bits in fit.precisions:
                est = estimate(m, d, bits, min(4096, m.context_length or 4096), 1)
                cells.append({"total": est.total_gb, "fits": est.fits, "decode": est.decode_tps,
                              "needed": est.devices_needed, "split": est.split_decode_tps})
        except CalcError:
            continue
        rows.append({"link": page.link(other.id), "cells": cells})
        _measured_cells(atlas, page, cells, fit, e.id if e.kind == "model" else other.id, other.id if e.kind == "model" else e.id)
    if not rows:
        return None
    return {"precisions": [p[0] for p in fit.precisions], "rows": rows,
            "calc": page.to("calculator.md"), "subject": "device" if e.kind == "model" else "model",
            "measured": any(c.get("measured") for r in rows for c in r["cells"])}


FIT_TOKENS = 4096
"""The context of the fit tables (one sequence)."""


def _tps(x: float) -> str:
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def _ran(p) -> str:
    """How much of the model a measured point (decode or prefill) ran."""
    return f"{p.layers_built} of {p.layers} layers, scaled to {p.layers}" if p.slice else f"all {p.layers} layers"


def _prefill_row(p) -> dict:
    """A measured prefill (calc.MeasuredPrefill) as a table row's texts."""
    return {"prompt": f"{p.prompt:,}", "ttft": f"{p.ttft_s * 1000:,.1f} ms", "measured": f"{_tps(p.tokens_per_s)} tok/s",
            "ceiling": f"{_tps(p.ceiling_tps)} tok/s" if p.ceiling_tps else "—", "ratio": f"{p.ratio:.2f}" if p.ratio else "—"}


def _measured_cells(atlas: Atlas, page: Page, cells: list[dict], fit: "_FitPairs", model: str, device: str) -> None:
    """Put this project's measured single-sequence decode figure (bench/gpu/results) into
    the 16-bit cell of a fit-table row, beside the ceiling: the measured context nearest
    the table's, with its ratio to the ceiling at that context."""
    from .calc import MEASURED_BITS, measured_for

    if not atlas.measurements:
        return
    for (_label, bits), cell in zip(fit.precisions, cells):
        if bits != MEASURED_BITS:
            continue
        got = measured_for(atlas, model, device, FIT_TOKENS)
        if got is not None:
            cell["measured"] = {"tps": _tps(got.tokens_per_s), "ratio": f"{got.ratio:.2f}" if got.ratio else None,
                                "context": f"{got.context:,}", "cite": page.cite(got.source),
                                "slice": f"{got.layers_built}/{got.layers} layers" if got.slice else ""}


def _measured_table(atlas: Atlas, page: Page, e: Entry) -> dict | None:
    """'Measured by this project' on a model or device page: every record's single-sequence
    decode at each context, and its larger batches at the context nearest 2,048 tokens,
    each beside the ceiling computed for the same batch and context, with the ratio."""
    from .calc import measured_points, measured_prefills, nearest_context

    if e.kind not in ("model", "hardware") or not atlas.measurements:
        return None
    points = measured_points(atlas, model=e.id) if e.kind == "model" else measured_points(atlas, device=e.id)
    if not points:
        return None
    mid = nearest_context({p.context for p in points}, 2048)
    rows = []
    for p in sorted(points, key=lambda p: (p.batch > 1, p.model, p.device, p.batch, p.context, p.source)):
        if p.batch > 1 and p.context != mid:
            continue
        rec = atlas.measurements[p.source]
        kernel = KERNEL_NAMES.get(p.kernel, p.kernel)
        rows.append({"other": page.link(p.device if e.kind == "model" else p.model),
                     "ran": f"{_ran(p)}; {kernel}" + ("" if rec.sdpa_backend == "auto" else " (forced)"),
                     "config": f"{p.batch} × {p.context:,}", "measured": f"{_tps(p.tokens_per_s)} tok/s", "cite": page.cite(p.source),
                     "ceiling": f"{_tps(p.ceiling_tps)} tok/s" if p.ceiling_tps else "—",
                     "ratio": f"{p.ratio:.2f}" if p.ratio else "—"})
    prefill = []
    for p in measured_prefills(atlas, model=e.id) if e.kind == "model" else measured_prefills(atlas, device=e.id):
        prefill.append(_prefill_row(p) | {"other": page.link(p.device if e.kind == "model" else p.model), "cite": page.cite(p.source),
                                          "ran": f"{_ran(p)}; {KERNEL_NAMES.get(p.kernel, p.kernel)}"})
    recs = list(dict.fromkeys(atlas.measurements[p.source] for p in points))
    copies = sorted(r.copy_gbs for r in recs if r.copy_gbs)
    sheets = sorted({atlas.entries[r.hardware].get("specs")["bandwidth_gbs"]["value"] for r in recs
                     if r.hardware in atlas.entries and "bandwidth_gbs" in (atlas.entries[r.hardware].get("specs") or {})})
    span = lambda xs: f"{xs[0]:,.0f}" if xs[0] == xs[-1] else f"{xs[0]:,.0f}-{xs[-1]:,.0f}"  # noqa: E731
    return {"rows": rows, "prefill": prefill, "subject": "Device" if e.kind == "model" else "Model",
            "any_slice": any(r.slice for r in recs), "moe": any(p.ceiling_tps is None for p in points if p.batch > 1),
            "copy_gbs": span(copies) if copies else None, "datasheet_gbs": span(sheets) if sheets else None}


KERNEL_NAMES = {"cudnn_attention": "cuDNN attention", "flash_attention": "FlashAttention",
                "efficient_attention": "memory-efficient attention", "math": "PyTorch's math attention"}


def calculator_data(atlas: Atlas) -> dict:
    """What the calculator page needs: model and device figures, and formats' bits."""
    from .calc import HOST_BANDWIDTH_GBS, OVERHEAD_FRACTION, device_spec, model_spec

    models = []
    for e in atlas.of_kind("model"):
        m = model_spec(e)
        models.append({"id": m.id, "title": m.title, "params_b": m.params_b, "active_b": m.active_b, "layers": m.layers,
                       "kv_heads": m.kv_heads, "head_dim": m.head_dim, "attention": m.attention,
                       "kv_lora_rank": m.kv_lora_rank, "rope_head_dim": m.rope_head_dim,
                       "full_attention_layers": m.full_attention_layers, "context_length": m.context_length,
                       "kv_bytes_16": m.kv_bytes_16,
                       "url": "../" + e.url.strip("/") + "/"})
    devices = []
    for e in atlas.of_kind("hardware"):
        d = device_spec(e)
        if (d.memory_gb or d.bandwidth_gbs) and e.get("class") not in PER_DEVICE_EXCLUDED:
            devices.append({"id": d.id, "title": d.title, "memory_gb": d.memory_gb, "bandwidth_gbs": d.bandwidth_gbs,
                            "tflops": d.tflops, "url": "../" + e.url.strip("/") + "/"})
    return {"models": models, "devices": devices, "formats": format_groups(atlas), "overhead": OVERHEAD_FRACTION,
            "host_bandwidth_gbs": HOST_BANDWIDTH_GBS, "measured": _calculator_measured(atlas),
            "default": {"model": "llama-3-1-8b", "format": "q4_k_m"},
            "limits": {"tokens": [1, 10_000_000], "sequences": [1, 100_000], "bits": [1, 32], "kv_bits": [2, 32]}}


def _calculator_measured(atlas: Atlas) -> dict:
    """This project's single-sequence decode measurements for the calculator: the bits and
    KV bits they were measured at, and every point with the ceiling calc.py computes for it
    (the page picks the context nearest the reader's, as calc.measured_for does)."""
    from .calc import MEASURED_BITS, measured_points, measured_prefills

    points = []
    for p in measured_points(atlas, batches=(1,)):
        rec = atlas.measurements[p.source]
        points.append({"model": p.model, "device": p.device, "context": p.context, "tokens_per_s": round(p.tokens_per_s, 2),
                       "ceiling_tps": round(p.ceiling_tps, 2) if p.ceiling_tps else None,
                       "ratio": round(p.ratio, 3) if p.ratio else None, "slice": p.slice, "layers_built": p.layers_built,
                       "layers": p.layers, "source": p.source, "title": atlas.sources[p.source].title,
                       "url": f"../{SOURCES_URL}/{p.source}/", "record": rec.path})
    prefill = [{"model": p.model, "device": p.device, "prompt": p.prompt, "tokens_per_s": round(p.tokens_per_s, 1),
                "ttft_ms": round(p.ttft_s * 1000, 2), "slice": p.slice, "layers_built": p.layers_built, "layers": p.layers,
                "source": p.source, "title": atlas.sources[p.source].title, "url": f"../{SOURCES_URL}/{p.source}/"}
               for p in measured_prefills(atlas)]
    return {"bits": MEASURED_BITS, "kv_bits": MEASURED_BITS, "points": points, "prefill": prefill}


SOURCES_URL = "sources"


def format_groups(atlas: Atlas) -> list[dict]:
    """Weight formats for the calculator, one group per format family (the term that
    defines it: GGUF, EXL2, NVFP4, ...), each option once (names compared without case),
    with its bits per weight and a line saying what it is; families by bits, widest first."""
    groups = []
    # A format that is a term of its own is listed under that term, not again as another
    # family's variant of the same name (MLX's mode "nvfp4" is NVFP4, the MX variant MXFP4 is MXFP4).
    own = {e.title.casefold() for e in atlas.of_kind("term") if e.get("bits_per_weight")}
    for e in atlas.of_kind("term"):
        options, seen = [], set(own - {e.title.casefold()})
        if e.get("bits_per_weight"):
            options.append({"id": e.id, "label": e.title, "bits": float(e.get("bits_per_weight")["value"]), "meaning": e.short})
            seen.add(e.title.casefold())
        for var in e.get("variants") or ():
            key = var["name"].casefold()
            if key in seen:
                continue
            seen.add(key)
            options.append({"id": re.sub(r"[^a-z0-9]+", "_", key).strip("_"), "label": var["name"],
                            "bits": float(var["bits_per_weight"]), "meaning": f"a {e.title} variant"})
        if options:
            groups.append({"family": e.title, "options": sorted(options, key=lambda o: -o["bits"])})
    # Each name once across families: "GGUF Q8_0" is Q8_0; of "mxfp8" (an MLX mode) and
    # "MXFP8" (a microscaling variant) the one written as the format is written wins.
    key = lambda o: re.sub(r"^gguf\s+", "", o["label"].casefold())  # noqa: E731
    ordered = sorted(groups, key=lambda g: -max(o["bits"] for o in g["options"]))
    candidates: dict[str, list[dict]] = {}
    for o in (o for g in ordered for o in g["options"]):
        candidates.setdefault(key(o), []).append(o)
    winner = {k: next((o for o in os if o["label"] != o["label"].lower()), os[0]) for k, os in candidates.items()}
    for g in ordered:
        g["options"] = [o for o in g["options"] if winner[key(o)] is o]
    return [g for g in sorted(groups, key=lambda g: -max(o["bits"] for o in g["options"] or [{"bits": 0}])) if g["options"]]


def _calculator_page(atlas: Atlas) -> str:
    from .calc import OVERHEAD_FRACTION

    page = Page(atlas, "calculator.md")
    text = _env().get_template("calculator.md.j2").render(page=page, data_attr=_data_attr(calculator_data(atlas)),
                                                          overhead=OVERHEAD_FRACTION)
    # A tool page: its five-column table gets the width the left navigation would take
    # (the phone's menu still has the navigation).
    return front_matter(title="Memory and speed calculator", atlas_nolink=True, hide=["navigation"],
                        description="Will a model fit on a device, and how fast can it decode? Computed from sourced figures.") + text


def _relation_counts(g: nx.MultiDiGraph) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, _, k in g.edges(keys=True):
        counts[k] = counts.get(k, 0) + 1
    return counts


def source_line(s: Source) -> str:
    bits = [f"[{esc(s.title)}]({esc(s.url)})" if s.url else esc(s.title), esc(s.publisher)]
    if s.author:
        bits.append(esc(s.author))
    if s.date:
        bits.append(esc(s.date))
    return " — ".join(bits)
