"""The concept graph page."""

from __future__ import annotations

import networkx as nx

from generator.knowledge.graph import mention_only, orphans
from generator.pages.site import Site
from generator.render.page import Page, front_matter
from generator.render.templates import env


def _relation_counts(g: nx.MultiDiGraph) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, _, k in g.edges(keys=True):
        counts[k] = counts.get(k, 0) + 1
    return counts


def pages(site: Site) -> dict[str, str]:
    atlas, g = site.atlas, site.g
    page = Page(atlas, "graph/index.md")
    return {"graph/index.md": front_matter(title="Concept graph", description="How every entry of Inference Atlas relates to the others.",
                                         hide=["navigation", "toc"])
            + env().get_template("graph.md.j2").render(page=page, g=g, atlas=atlas, orphans=orphans(g),
                                                       mention_only=mention_only(g), counts=_relation_counts(g))}
