"""Stage 5 — emit: model + graph in, `{docs-relative path: text}` out.

Runs every page kind (generator/pages/) and every export (generator/exports/) as jobs on
any core and gathers their files. Pure functions: no file is read or written here, and
the same input gives byte-identical output (every collection is sorted before it is
rendered). Markdown pages use only standard extensions (attr_list, md_in_html,
admonition, tables, pymdownx)."""

from __future__ import annotations

from functools import partial
from typing import Callable

import networkx as nx

from generator import pages
from generator.exports import feed, linked_data, llms
from generator.exports.data import glossary_json
from generator.exports.search_index import definitions_json, entries_json
from generator.kb.model import Atlas, Entry
from generator.knowledge.graph import to_graphml, to_json, view_json
from generator.knowledge.link import Linker
from generator.pages import entry
from generator.pages.site import Site
from generator.speed.workers import fork_map


class Emitter:
    """One build's generated files: any one entry page (`entry_page`, which `atlas serve`
    writes first after an edit) or every file (`files`), from what the build's pages share
    (pages.site.Site)."""

    def __init__(self, atlas: Atlas, g: nx.MultiDiGraph, linker: Linker | None = None,
                 found: dict[str, list[tuple[int, int, str]]] | None = None):
        self.site = Site.of(atlas, g, linker, found)
        self.atlas, self.g, self.linker = atlas, g, linker

    def entry_page(self, e: Entry) -> str:
        return entry.page(self.site, e)

    def files(self, stop: Callable[[], bool] | None = None) -> dict[str, str]:
        """Every generated file, keyed by its path inside the docs tree. `stop` (atlas serve,
        which renders in one process): asked between jobs; when it says yes, Stopped is raised
        and the files are left for the next build."""
        site, atlas, g = self.site, self.atlas, self.g
        files: dict[str, str] = {}
        # Every job on any core, each returning {path: text}: the graph exports and the index
        # pages first (the longest jobs), so that one worker writes them while the others
        # write entry pages.
        one = lambda path, make: lambda: {path: make()}  # noqa: E731
        jobs = [one("graph/graph.json", lambda: to_json(g)), one("graph/graph.graphml", lambda: to_graphml(g)),
                one("graph/graph-view.json", lambda: view_json(g, site.rank, atlas)),
                *(partial(kind.pages, site) for kind in pages.KINDS),
                one("glossary.json", partial(glossary_json, atlas)),
                one("search/entries.json", partial(entries_json, atlas, site.rank)),
                one("search/definitions.json", partial(definitions_json, atlas))]
        jobs += [*linked_data.jobs(atlas), *llms.jobs(atlas), *feed.jobs(atlas)]  # SKOS, llms.txt, each entry as Markdown, the feed
        jobs += [one(e.src_path, partial(self.entry_page, e)) for e in atlas.entries.values()]
        if stop is not None:  # one process, a check between jobs
            for job in jobs:
                if stop():
                    raise Stopped
                files.update(job())
            return dict(sorted(files.items()))
        for made in fork_map(lambda job: job(), jobs, here=True):
            files.update(made)
        return dict(sorted(files.items()))


class Stopped(Exception):
    """Emitter.files gave up at its caller's request (a newer edit under atlas serve)."""


def emit(atlas: Atlas, g: nx.MultiDiGraph, linker: Linker | None = None,
         found: dict[str, list[tuple[int, int, str]]] | None = None) -> dict[str, str]:
    """Every generated file, keyed by its path inside the docs tree (see Emitter)."""
    return Emitter(atlas, g, linker, found).files()
