"""The knowledge base as Markdown for language-model readers (the llms.txt convention,
https://llmstxt.org), from the entries' data:

- `<entry url>index.md.txt`: each entry as one Markdown document (title, definition,
  facts, body with its links made absolute and its citations numbered, disputes, the
  entry's own relations, sources). The "Copy as Markdown" and "View as Markdown" links
  of every entry page point here. The name ends in .txt because MkDocs makes a page of
  every .md file it is handed; static hosts serve .txt as text/plain, which browsers
  show instead of downloading.
- `llms-full.txt`: every entry's document in one file, headings one level down.
- `llms.txt`: an H1, a blockquote summary, and one section per kind of entry whose
  items link each entry's Markdown with its one-line definition.

Text here is never rendered as HTML, so it is written as the authors wrote it; only link
texts have their brackets escaped so that a title cannot end a link early.
"""

from __future__ import annotations

import re
from typing import Any

from generator.render.page import MARKDOWN_NAME, markdown_path
from generator.exports.linked_data import SITE_URL, absolute
from generator.kb.model import Atlas, Entry, Source
from generator.kb.text import CITE_RE, split_code, expand_wikilinks

SITE_NAME = "Inference Atlas"
SUMMARY = ("A cross-linked, sourced reference for LLM inference: engines, hardware, models and the terms between "
           "them, with decision guides. Every entry cites its sources and says where they disagree.")
SECTIONS = (("term", "Glossary"), ("engine", "Engines"), ("hardware", "Hardware"), ("model", "Models"),
            ("guide", "Decision guides"))
KIND_WORDS = {"term": "glossary term", "engine": "inference engine", "hardware": "hardware", "model": "model",
              "guide": "decision guide"}
SPEC_UNITS = {"memory_gb": "GB", "bandwidth_gbs": "GB/s", "fp32_tflops": "TFLOPS", "fp16_tflops": "TFLOPS",
              "bf16_tflops": "TFLOPS", "fp8_tflops": "TFLOPS", "fp4_tflops": "TFLOPS", "int8_tops": "TOPS", "tdp_w": "W",
              "params_total_b": "B", "params_active_b": "B", "context_length": "tokens", "kv_bytes_per_token": "bytes"}
CELL_GROUPS = (("features", "Features"), ("backends", "Hardware backends"), ("formats", "Weight formats"), ("api", "API surface"))
_HEADING = re.compile(r"^(#{1,5})(?=[ \t])", re.M)




def _text(value: str) -> str:
    return value.replace("[", "\\[").replace("]", "\\]")


def _source_line(s: Source) -> str:
    bits = [s.title, s.publisher] + [x for x in (s.author, s.date) if x]
    line = " — ".join(str(b) for b in bits)
    return f"{line}. <{s.url}>" if s.url else f"{line}."


class _Cites:
    """Numbers sources in the order the document first cites them."""

    def __init__(self) -> None:
        self.order: dict[str, int] = {}

    def __call__(self, sid: str) -> str:
        return f"[{self.order.setdefault(sid, len(self.order) + 1)}]"

    def many(self, sids: Any) -> str:
        return "".join(self(s) for s in sids)


def _body(atlas: Atlas, e: Entry, cites: _Cites) -> str:
    from generator.render.page import prose_title  # imported here: emit imports this module

    def link(eid: str, text: str | None, mid: bool) -> str:
        target = atlas.entries.get(eid)
        if target is None:
            return text or eid
        shown = text or (prose_title(target) if mid else target.title)
        return f"[{_text(shown)}]({absolute(target.url)})"

    out = []
    for is_code, piece in split_code(e.body):
        if not is_code:
            piece = CITE_RE.sub(lambda m: cites(m.group(1)), expand_wikilinks(piece, link))
        out.append(piece)
    return "".join(out)


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def entry_markdown(atlas: Atlas, e: Entry) -> str:
    """One entry as a Markdown document that stands alone."""
    from generator.render.labels import SPEC_LABELS, STATUS_WORD

    cites = _Cites()
    cat = atlas.categories.get(e.category)
    facts = [f"- Kind: {KIND_WORDS[e.kind]}" + (f"; category: {cat.title}" if cat else "")]
    if e.aliases:
        facts.append("- Also known as: " + ", ".join(e.aliases))
    if e.get("checked"):
        facts.append(f"- Facts last checked: {e.get('checked')}")
    facts.append(f"- Web page: <{absolute(e.url)}>")
    facts.append(f"- Source file: `{e.path}`")
    parts = [f"# {e.title}\n\n> {e.short}\n\n" + "\n".join(facts) + "\n"]
    body = _body(atlas, e, cites)
    if body:
        parts.append(body + "\n")
    specs = e.get("specs") or {}
    rows = []
    for key, (label, _unit) in SPEC_LABELS.items():
        if key in specs:
            fact = specs[key]
            unit = SPEC_UNITS.get(key, "")
            note = f" ({fact['note']})" if fact.get("note") else ""
            rows.append(f"- {label}: {_fmt(fact['value'])}{' ' + unit if unit else ''}{note} {cites(fact['source'])}")
    if rows:
        parts.append("## " + ("Specifications" if e.kind == "hardware" else "Architecture figures") + "\n\n" + "\n".join(rows) + "\n")
    for group, title in CELL_GROUPS:
        cells = e.get(group) or {}
        if cells:
            lines = []
            for k, v in sorted(cells.items(), key=lambda kv: atlas.entries[kv[0]].title.casefold() if kv[0] in atlas.entries else kv[0]):
                name = atlas.entries[k].title if k in atlas.entries else k
                note = f" ({v['note']})" if v.get("note") else ""
                lines.append(f"- {name}: {STATUS_WORD.get(v['status'], v['status'])}{note} {cites(v['source'])}")
            parts.append(f"## {title}\n\n" + "\n".join(lines) + "\n")
    if e.disputes:
        lines = []
        for d in e.disputes:
            lines.append(f"- {d.claim}")
            lines += [f"  - {p.says} {cites.many(p.sources)}" for p in d.positions]
            if d.verdict:
                lines.append(f"  - Our reading: {d.verdict}")
        parts.append("## Where sources disagree\n\n" + "\n".join(lines) + "\n")
    groups: dict[str, list[str]] = {}
    for name, target in e.relations:
        t, other = atlas.relation_types.get(name), atlas.entries.get(target)
        if t is not None and other is not None:
            groups.setdefault(t.label, []).append(f"[{_text(other.title)}]({absolute(other.url)})")
    if groups:
        parts.append("## Related\n\n" + "\n".join(f"- {label}: {', '.join(links)}" for label, links in groups.items()) + "\n")
    for sid in e.sources:  # listed sources no sentence cites come last
        cites.order.setdefault(sid, len(cites.order) + 1)
    sources = [(n, atlas.sources[s]) for s, n in cites.order.items() if s in atlas.sources]
    if sources:
        parts.append("## Sources\n\n" + "\n".join(f"{n}. {_source_line(s)}" for n, s in sources) + "\n")
    return "\n".join(parts)


def _demote(markdown: str) -> str:
    """Every heading one level down (outside code), for llms-full.txt's entries under its H1."""
    return "".join(piece if is_code else _HEADING.sub(r"#\1", piece) for is_code, piece in split_code(markdown))


def _ordered(atlas: Atlas, kind: str) -> list[Entry]:
    return atlas.of_kind(kind)


def markdown_files(atlas: Atlas) -> dict[str, str]:
    """Each entry's Markdown, and llms-full.txt made of all of them."""
    out: dict[str, str] = {}
    full = [f"# {SITE_NAME}\n\n> {SUMMARY}\n\nEvery entry of the knowledge base follows, by kind and title. "
            f"Each links its web page; its sources are listed at its end.\n"]
    for kind, _title in SECTIONS:
        for e in _ordered(atlas, kind):
            text = entry_markdown(atlas, e)
            out[markdown_path(e)] = text
            full.append(_demote(text))
    out["llms-full.txt"] = "\n".join(full)
    return out


def llms_txt(atlas: Atlas) -> str:
    """The index: what the site is, then every entry's Markdown with its definition."""
    lines = [f"# {SITE_NAME}", "", f"> {SUMMARY}", "",
             "Each link below is an entry as Markdown; its web page is the same address without "
             f"`{MARKDOWN_NAME}`. [llms-full.txt]({SITE_URL}llms-full.txt) holds every entry in one file.", ""]
    for kind, title in SECTIONS:
        entries = _ordered(atlas, kind)
        if not entries:
            continue
        lines += [f"## {title}", ""]
        lines += [f"- [{_text(e.title)}]({SITE_URL}{markdown_path(e)}): {e.short}" for e in entries]
        lines.append("")
    lines += ["## Optional", "",
              f"- [glossary.json]({SITE_URL}glossary.json): every entry's id, kind, title, aliases, category, "
              "one-line definition and URL, as JSON",
              f"- [glossary.skos.ttl]({SITE_URL}glossary.skos.ttl): the glossary as a SKOS concept scheme (Turtle)",
              f"- [glossary.skos.jsonld]({SITE_URL}glossary.skos.jsonld): the same concept scheme as JSON-LD",
              f"- [graph.json]({SITE_URL}graph/graph.json): the concept graph, every typed relation between entries",
              ""]
    return "\n".join(lines)


def jobs(atlas: Atlas) -> list:
    """Emit's jobs for this module (emit.Emitter.files runs them on any core)."""
    return [lambda: markdown_files(atlas), lambda: {"llms.txt": llms_txt(atlas)}]
