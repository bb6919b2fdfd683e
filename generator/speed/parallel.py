"""Build the generated pages on every core (the MkDocs adapter's one speed-up).

MkDocs 1.x builds pages one after another, on one core; rendering Markdown, linking terms,
cutting the search index into sections and filling the theme template is most of a large
build. The plugin forks workers twice, at the two points where MkDocs walks its pages:

1. before MkDocs reads them (`on_nav`), workers run MkDocs's own page steps on the
   generated pages (read source, `page_markdown`, render, `page_content`) and Material's
   own search indexing, and send back what those steps leave on a page; the parent puts
   it in place, and MkDocs's render step for those pages does nothing else;
2. before MkDocs writes them (`on_env`), workers run the template half (page context,
   `page_context` events, the theme template, `post_page` events) and send back the HTML;
   MkDocs renders an empty template for those pages and the plugin's `on_post_page` hands
   it the worker's HTML, which MkDocs writes as usual.

Results are put back in MkDocs's own page order and the search entries go into Material's
index where Material would have added them, so the site is byte-identical to a
one-process build (tested). What workers log is replayed by the parent, so strict mode
still counts it. Used only where it is safe: Linux (fork), enough pages to pay for the
workers, not under `mkdocs serve`, and no other plugin listening to the page events that
would then run twice. `ATLAS_WORKERS=1` (or the plugin option `workers: 1`) turns it off.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from generator.speed import timing
from generator.speed import workers as workers_

log = logging.getLogger("mkdocs.plugins.atlas")

# Page events whose work the workers do; another plugin listening to them makes this unsafe.
PAGE_EVENTS = ("pre_page", "page_read_source", "page_markdown", "page_content")
PAGE_BUILD_EVENTS = ("page_context", "post_page")
PREBUILT = "atlas-prebuilt.html"  # an empty template: the page's HTML comes from a worker
MIN_PAGES = workers_.MIN_ITEMS  # below this, forking costs more than it saves


@dataclass
class Rendered:
    """What MkDocs's page steps leave on a page, in a form that crosses processes."""

    meta: dict
    content: str
    toc: Any
    title: str | None
    anchors: set[str]
    links_to_anchors: dict[str, dict[str, str]] | None  # target file's src_uri -> links
    search: list[dict] | None  # Material's index entries for the page, or None if not indexed
    logs: list[tuple[str, int, str]]  # log records the steps made, re-emitted by the parent
    link_cpu: float = 0.0  # seconds the worker spent linking terms on this page


def others_listen(config, own) -> list[str]:
    """Plugins other than ours that listen to the page events the workers run (Material's
    search may: its page_context step skips pages it is told are indexed, and its one
    change to the page, dropping data-search-* attributes, can be made twice)."""
    found = []
    for event in PAGE_EVENTS + PAGE_BUILD_EVENTS:
        for method in config.plugins.events.get(event, []):
            owner = getattr(method, "__self__", None)
            if owner is own or (event == "page_context" and type(owner).__name__ == "SearchPlugin"):
                continue
            found.append(f"{type(owner).__name__ if owner else method!r}.on_{event}")
    return found


def search_plugin(config):
    """Material's search plugin, if it is on and indexing."""
    for plugin in config.plugins.values():
        if type(plugin).__name__ == "SearchPlugin" and hasattr(plugin, "search_index"):
            return plugin if plugin.config.get("enabled", True) else None
    return None


LINK_BATCH = 32
"""Pages a worker renders before it links their terms, one after another: linking reads the
whole glossary's name index, and right after a page's Markdown rendering it finds little of
it in the processor's caches (linking a page took 1.8x as long as linking it again at once,
measured in a 10,000-entry build). Rendering a batch first, then linking it, keeps that
index warm from page to page."""


def render_all(pages: list, config, files, workers: int, plugin=None) -> dict[str, Rendered]:
    """Run MkDocs's page steps for `pages` in `workers` forked processes. Returns the
    results by source path; a page's error is raised here, as it would be serially.
    `plugin` (ours) links terms in a batch after each batch of pages renders."""
    from material.plugins.search.plugin import SearchIndex
    from mkdocs.commands.build import _populate_page

    search = search_plugin(config)
    search_config = dict(search.config) if search else None

    def render(batch: list) -> list[Rendered]:
        logs = []
        if plugin is not None:
            plugin.defer_links = True  # on_page_content leaves the linking to the loop below
        try:
            for page in batch:
                capture = _Capture.install()
                _populate_page(page, config, files)
                logs.append(capture.records)
        finally:
            if plugin is not None:
                plugin.defer_links = False
        linking = []
        for page in batch:
            before = timing.link_cpu
            if plugin is not None:
                page.content = plugin.link_page(page.content, page)
            linking.append(timing.link_cpu - before)
        out = []
        for page, records, spent in zip(batch, logs, linking):
            entries = None
            if search_config is not None:
                index = SearchIndex(**search_config)
                index.add_entry_from_context(page)
                entries = index.entries
            links = page.links_to_anchors
            out.append(Rendered(
                meta=page.meta, content=page.content, toc=page.toc, title=page._title_from_render,
                anchors=page.present_anchor_ids or set(),
                links_to_anchors=None if links is None else {f.src_uri: v for f, v in links.items()},
                search=entries, logs=records, link_cpu=spent))
            page.markdown = page.content = None  # the worker's copy of the page is done with
        return out

    batches = [pages[i:i + LINK_BATCH] for i in range(0, len(pages), LINK_BATCH)]
    results = [r for part in workers_.fork_map(render, batches, workers=workers, min_items=2) for r in part]
    return {page.file.src_uri: r for page, r in zip(pages, results)}


def build_all(pages: list, config, files, nav, env, workers: int) -> dict[str, tuple[str, list]]:
    """The second half of MkDocs's page work, also in forked processes: the page's
    template context, `page_context` events, the theme template, `post_page` events.
    Returns (HTML, log records) by source path; MkDocs writes the files."""
    from mkdocs.commands.build import get_context
    from mkdocs.structure.files import InclusionLevel

    doc_files = files.documentation_pages(inclusion=InclusionLevel.is_included)

    def build(page) -> tuple[str, list]:
        capture = _Capture.install()
        config._current_page = page
        page.active = True  # as MkDocs's own page build does: the nav marks the current page
        try:
            context = get_context(nav, doc_files, config, page)
            template = env.get_template(page.meta.get("template", "main.html"))
            context = config.plugins.on_page_context(context, page=page, config=config, nav=nav)
            output = template.render(context)
            output = config.plugins.on_post_page(output, page=page, config=config)
        finally:
            page.active = False
            config._current_page = None
        page.content = None
        return output, capture.records

    results = workers_.fork_map(build, pages, workers=workers, min_items=MIN_PAGES)
    return {page.file.src_uri: r for page, r in zip(pages, results)}


def replay(logs: list[tuple[str, int, str]]) -> None:
    for name, level, message in logs:
        logging.getLogger(name).log(level, message)


class _Capture(logging.Handler):
    """In a worker: keeps what is logged, for the parent to print and count (strict mode)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, int, str]] = []

    @classmethod
    def install(cls) -> "_Capture":
        capture = cls()
        for name in ("", "mkdocs"):  # 'mkdocs' does not propagate to the root logger
            logging.getLogger(name).handlers = [capture]
        return capture

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.INFO:
            self.records.append((record.name, record.levelno, record.getMessage()))


def restore(page, rendered: Rendered, files) -> None:
    """Put a worker's results on the parent's page, as MkDocs's own steps would have."""
    page.meta = rendered.meta
    if rendered.search is not None:  # indexed by the worker: Material's search skips it
        page.meta = {**rendered.meta, "search": {**(rendered.meta.get("search") or {}), "exclude": True}}
    page.content = rendered.content
    page.toc = rendered.toc
    page._title_from_render = rendered.title
    page.present_anchor_ids = rendered.anchors
    if rendered.links_to_anchors is not None:
        page.links_to_anchors = {files.get_file_from_path(k): v for k, v in rendered.links_to_anchors.items()}
    replay(rendered.logs)
    timing.link_cpu += rendered.link_cpu
