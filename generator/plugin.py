"""The MkDocs adapter: run the pipeline, hand MkDocs the generated files, watch the sources.

Kept thin on purpose: everything it calls runs without MkDocs, so a move to another site
generator only replaces this file (the `atlas markdown` command writes the same output to
a folder for generators that do not run MkDocs plugins).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import jinja2

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files

from generator.speed import parallel
from generator.render import sanitize
from generator.speed import timing
from generator.speed import workers
from generator.kb.findings import AtlasError
from generator.pages.handwritten import expand
from generator.render.page import HTML_CLOSE, HTML_OPEN
from generator.knowledge.link import Linker, add_cards, link_html
from generator.knowledge.link_markdown import resolve_marks
from generator.pipeline import build

log = logging.getLogger("mkdocs.plugins.atlas")
_LINKED_ID = re.compile(r'data-atlas-id="([^"]+)"')
_HTML_BLOCK = re.compile(re.escape(HTML_OPEN) + r"\n(.*?)\n" + re.escape(HTML_CLOSE), re.S)
_SLOT = re.compile(r"<!--atlas:slot (\d+)-->")


class AtlasConfig(Config):
    root = c.Optional(c.Type(str))  # repository root; defaults to the folder of mkdocs.yml
    workers = c.Type(int, default=0)  # processes that render generated pages; 0: one per core


class AtlasPlugin(BasePlugin[AtlasConfig]):
    def __init__(self) -> None:
        self.generated: dict[str, str] = {}
        self.linker: Linker | None = None
        self.atlas = None
        self.prerendered: dict[str, parallel.Rendered] = {}
        self.prebuilt: dict[str, tuple[str, list]] = {}
        self.nav, self.n_workers, self.search = None, 1, None
        self.defer_links = False  # in a page worker: pages are linked after their batch renders
        # What `atlas serve` (generator/serve/server.py) keeps of a build to re-render single pages:
        self.memo = None  # pipeline.Memo: the generator's parsed files and scanned bodies
        self.files, self.site_nav, self.env = None, None, None
        self.searched: dict[str, list] = {}  # each page's entries in Material's search index
        self.links: dict[str, set[str]] = {}  # the entries each page links (under serve)
        self._indexed = 0

    def _root(self, config) -> Path:
        return Path(self.config.root or Path(config.config_file_path).parent).resolve()

    def on_startup(self, command, dirty):
        # `mkdocs serve` runs the build beside its server threads: no forking there.
        workers.serial_only = command == "serve"

    def on_config(self, config):
        # Runs before MkDocs cleans or writes the site directory: a knowledge base with
        # errors stops the build here, and nothing is written.
        timing.reset()
        try:
            self.atlas, self.generated, self.linker = build(self._root(config), self.memo)
        except AtlasError as exc:
            raise PluginError(exc.report()) from None
        return config

    def on_files(self, files: Files, config) -> Files:
        for path, text in self.generated.items():
            existing = files.get_file_from_path(path)
            if existing is not None:
                raise PluginError(f"docs/{path} is written by hand but the generator also produces it; remove one of them")
            files.append(File.generated(config, path, content=text))
        self.files = files
        return files

    def on_nav(self, nav, config, files):
        """Render the generated pages on every core before MkDocs reads them one by one
        (see generator/speed/parallel.py); the results are put in place page by page below."""
        self.prerendered, self.n_workers, self.site_nav = {}, 1, nav
        n = workers.count(self.config.workers)
        pages = [f.page for f in (files.get_file_from_path(p) for p in self.generated) if f is not None and f.page is not None]
        if n < 2 or len(pages) < parallel.MIN_PAGES:
            return nav
        others = parallel.others_listen(config, self)
        if others:
            log.info(f"atlas: rendering pages in one process, because {', '.join(others)} also handle page events")
            return nav
        self.prerendered = parallel.render_all(pages, config, files, n, self)
        log.info(f"atlas: rendered {len(pages)} generated pages in {n} processes")
        self.nav, self.n_workers, self.search = nav, n, parallel.search_plugin(config)
        return nav

    def on_env(self, env, config, files):
        """Every page is read and rendered: build the themed HTML of the generated pages on
        every core too. MkDocs then renders an empty template for them, and on_post_page
        hands it the worker's HTML to write."""
        self.prebuilt, self.env, self.searched, self._indexed = {}, env, {}, 0
        if not self.prerendered:
            return env
        env.loader = jinja2.ChoiceLoader([env.loader, jinja2.DictLoader({parallel.PREBUILT: ""})])
        pages = [files.get_file_from_path(p).page for p in self.prerendered]
        self.prebuilt = parallel.build_all(pages, config, files, self.nav, env, self.n_workers)
        for page in pages:
            page.meta["template"] = parallel.PREBUILT
        return env

    def on_post_page(self, output, page, config):
        built = self.prebuilt.pop(page.file.src_uri, None)
        if built is None:
            return output
        html, logs = built
        parallel.replay(logs)
        return html

    def on_page_read_source(self, page, config):
        """A page the workers rendered needs no source: MkDocs gets an empty one, and its
        render step puts the workers' results in place instead of converting Markdown."""
        rendered = self.prerendered.get(page.file.src_uri)
        if rendered is None:
            return None
        page.render = lambda config, files: parallel.restore(page, rendered, files)
        return ""

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        """Expand [[id]] links and [@source] citations in handwritten pages (the build
        already refused unknown ids, in on_config). A page's HTML blocks
        (render.page.html_block) are set aside for on_page_content, so that Markdown does
        not parse what is HTML already: a slot comment stands in their place."""
        if page.file.generated_by is None and self.atlas is not None:
            checked = page.meta.get("checked")
            if "[[" in markdown or "[@" in markdown or "%SITE_URL%" in markdown or checked:
                markdown = expand(markdown, self.atlas, page.file.src_uri, str(checked) if checked else None)
        if HTML_OPEN not in markdown:
            return markdown
        blocks: list[str] = []

        def slot(m: re.Match) -> str:
            blocks.append(m.group(1))
            return f"<!--atlas:slot {len(blocks) - 1}-->"
        markdown = _HTML_BLOCK.sub(slot, markdown)
        page.atlas_blocks = blocks
        return markdown

    def on_page_content(self, html: str, page, config, files) -> str:
        """Link the first mention of every entry on every page, handwritten or generated
        (entry pages come from the generator linked already). A generated page's HTML
        blocks go back in place first."""
        if page.file.src_uri in self.prerendered:
            return html
        blocks = getattr(page, "atlas_blocks", None)
        if blocks:
            html = _SLOT.sub(lambda m: blocks[int(m.group(1))], html)
            page.atlas_blocks = None
        if self.defer_links:  # in a worker: linked with the rest of its batch (parallel.render_all)
            return html
        return self.link_page(html, page)

    def link_page(self, html: str, page) -> str:
        """The page's content, its terms linked, through the allow-list sanitizer: the
        last step before the theme wraps it (both the one-process and the worker path)."""
        linked = self._link_terms(html, page)
        if self.linker is not None:
            linked = add_cards(linked, self.linker, page.url)
        return sanitize.clean(linked)

    def _link_terms(self, html: str, page) -> str:
        meta = page.meta or {}
        if meta.get("atlas_nolink") or self.linker is None:
            return html
        if meta.get("atlas_linked"):  # an entry page: its mentions were found as Markdown, in emit
            return resolve_marks(html, self.linker, page.url)
        own = (meta.get("atlas") or {}).get("id")
        linked, _ = link_html(html, self.linker, page.url, skip_id=own, per_section=len(html) > 20_000)
        return linked

    def on_page_context(self, context, page, config, nav):
        """Material's search skipped the pages the workers indexed (their meta says so);
        their entries go in here, where the search plugin would have added them."""
        rendered = self.prerendered.get(page.file.src_uri)
        if rendered is not None and rendered.search is not None:
            self.search.search_index.entries.extend(rendered.search)
        if self.memo is not None:
            self.links[page.file.src_uri] = set(_LINKED_ID.findall(page.content or ""))
        search = parallel.search_plugin(config)
        if search is not None:  # this page's entries: the last ones added
            entries = search.search_index.entries
            self.searched[page.file.src_uri] = entries[self._indexed:]
            self._indexed = len(entries)
        return context

    def on_post_build(self, config):
        self.prerendered, self.prebuilt, self.nav, self.search = {}, {}, None, None
        spent = ", ".join(f"{name} {s:.2f} s" for name, s in timing.stages.items())
        log.info(f"atlas: generator {spent}; term linking {timing.link_cpu:.2f} s of CPU over {self.n_workers} process(es)")

    def on_serve(self, server, config, builder):
        root = self._root(config)
        for folder in ("glossary", "graph"):
            if (root / folder).is_dir():
                server.watch(str(root / folder))
        return server
