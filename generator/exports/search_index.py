"""search/entries.json: what the search box finds first, before any full-text match;
search/definitions.json: the one-line definition each result shows, fetched after it.

Material's own search builds a full-text index in the browser on the first search (about
1.5 s on a 2-core machine for the real site, growing with the corpus) and matches words as
typed. This file is small (one short record per entry, plus the comparison pages and the
calculator) and is searched in the browser by MiniSearch (docs/assets/atlas-search.js),
which forgives misspellings and ranks by title and aliases: a reader who types
"pagedatention" or "vllm vs sglang" or "how much vram do I need" gets the entry, the
comparison or the calculator at once, with Material's full-text results below.

The definitions are a file of their own because a phone on a slow line waits for every byte
of the first file before its first answer: at 3,000 entries they are a third of it (45 of
121 KB gzipped), and a result is usable by its title and kind while they arrive.
"""

from __future__ import annotations

from typing import Any

from generator.kb.kinds import KIND_URLS
from generator.kb.model import Atlas
from generator.kb.text import compact_json

KIND_LABELS = {"term": "Glossary", "engine": "Engine", "hardware": "Hardware", "model": "Model", "guide": "Decision guide"}

# What readers type when they want a tool rather than a term; the words are matched, not the phrase.
CALCULATOR_PHRASES = ("how much vram memory do i need will my model fit on my gpu size hardware calculator "
                      "tokens per second speed how fast decode ceiling estimate requirements")
GUIDE_PHRASES = {
    "choose-an-engine": "which engine should i use pick choose inference engine serving framework recommend",
    "choose-hardware-by-budget": "which gpu should i buy budget purchase hardware cost cheap afford recommend",
    "choose-hardware-for-a-model": "which gpu hardware do i need for a model run size fit recommend",
    "choose-a-quantization-format": "which quantization format should i use bits quantize compress recommend",
}


def entries_json(atlas: Atlas, rank: dict[str, float] | None = None) -> str:
    """The records the browser indexes, without their definitions (definitions_json)."""
    return compact_json([{k: v for k, v in d.items() if k != "short"} for d in _records(atlas, rank)]) + "\n"


def definitions_json(atlas: Atlas) -> str:
    """Each record's one-line definition by id, shown under its title in the results."""
    return compact_json({d["id"]: d["short"] for d in _records(atlas, None)}) + "\n"


def _records(atlas: Atlas, rank: dict[str, float] | None) -> list[dict[str, Any]]:
    """The records, tools and comparisons first, then entries best connected first (by
    PageRank over the concept graph, `rank`): the browser indexes the first part at once
    and the rest in the background, so a large knowledge base answers as fast as a small one."""
    docs: list[dict[str, Any]] = []
    rank = rank or {}
    for e in sorted(atlas.entries.values(), key=lambda e: (-rank.get(e.id, 0.0), e.id)):
        phrases = [GUIDE_PHRASES.get(e.id, "")]
        if e.kind == "guide":
            phrases += [q.get("text", "") for q in (e.get("questions") or {}).values()]
        docs.append({"id": e.id, "kind": KIND_LABELS[e.kind], "title": e.title, "aliases": " · ".join(e.aliases),
                     "phrases": " ".join(p for p in phrases if p), "short": e.short, "url": e.url})
    tools: list[dict[str, Any]] = []
    for a, b, _ in atlas.comparisons:
        ea, eb = atlas.entries[a], atlas.entries[b]
        tools.append({"id": f"{a}-vs-{b}", "kind": "Comparison", "title": f"{ea.title} vs {eb.title}",
                     "aliases": "", "phrases": "", "pair": [a, b],
                     "short": f"{ea.title} and {eb.title} side by side: what each supports, with sources.",
                     "url": f"/{KIND_URLS['engine']}/compare/{a}-vs-{b}/"})
    tools.append({"id": "calculator", "kind": "Calculator", "title": "Memory and speed calculator", "aliases": "",
                 "phrases": CALCULATOR_PHRASES, "url": "/calculator/",
                 "short": "Will a model fit on a device, and how fast can it decode? Pick a model, a format and a context."})
    tools.append({"id": "compare", "kind": "Comparison", "title": "Engine comparison matrix", "aliases": "",
                 "phrases": "compare engines versus vs difference features support matrix", "url": f"/{KIND_URLS['engine']}/compare/",
                 "short": "Every engine's features, hardware backends, weight formats and APIs in one table, each cell sourced."})
    return tools + docs
