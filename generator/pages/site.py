"""What every generated page of one build shares, worked out once: the entries' ranks
(PageRank over the concept graph), the fit tables' rows and columns, the local graphs'
order, and the term linker with each body's mentions. Every page kind takes it:
`pages(site) -> {docs path: text}`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx

from generator.kb.model import Atlas
from generator.knowledge.graph import degrees, importance
from generator.knowledge.link import Linker
from generator.pages.fit import _FitPairs


@dataclass
class Site:
    """`linker`: entry pages come with their terms marked for linking (front matter
    `atlas_linked: true`; see link.resolve_marks); without, they are left to the HTML
    linker. `found`: each body's mentions, from the graph stage (pipeline.scan_bodies), so
    that bodies are not searched twice."""

    atlas: Atlas
    g: nx.MultiDiGraph
    linker: Linker | None
    found: dict[str, list[tuple[int, int, str]]] | None
    rank: dict[str, float]
    top: float
    fit: _FitPairs
    order: dict[str, Any]

    @classmethod
    def of(cls, atlas: Atlas, g: nx.MultiDiGraph, linker: Linker | None = None,
           found: dict[str, list[tuple[int, int, str]]] | None = None) -> "Site":
        rank = importance(g)
        nodes = g._node
        # Once, not per neighbour of every local graph: best connected first, then by title.
        order = {n: (-d, nodes[n]["title"].casefold()) for n, d in degrees(g).items()}
        return cls(atlas, g, linker, found, rank, max(rank.values(), default=1) or 1,
                   _FitPairs.of(atlas),  # the same columns and rows on every fit table of the build
                   order)
