"""`atlas serve` (and `make serve`): the site under a live-reload server, rebuilt page by
page after an edit, so that an author sees a changed entry in about a second.

`mkdocs serve` rebuilds the whole site on every change (20 s and more for the real
knowledge base; `--dirty` does not help generated pages and aborts under `strict`). Here a
build is kept in memory and an edit goes through the same stages, but only so far as it
changed something:

1. The generator runs again, parsing only the files whose bytes changed and re-reading
   only the bodies that changed (pipeline.Memo); validation, the graph and the checks run
   whole, because any file can break another. An error is shown with its place and the
   last good site stays served.
2. The edited entries' pages are emitted, rendered through MkDocs's own page steps and
   written first; browsers reload then.
3. Every generated file is emitted and compared with the last build: only the pages whose
   Markdown changed are rendered again (the entries whose related, backlink or referenced-by
   lists changed, the indexes that list the entry), data files are rewritten, added and
   removed entries get and lose their pages. A changed short or category changes only
   what the hover cards of the links to the entry say: the pages that link it and change
   no further get those attributes replaced in their written HTML, instead of a render
   each (150 pages link the KV cache). A changed title or alias can make or unmake links
   only on pages that hold the old or the new name or linked the entry: those are
   rendered again. A changed source re-renders the handwritten pages, which cite
   sources by id.
4. Material's search index is put back together in page order and written.

The result is the same bytes as a clean `mkdocs build` of the same sources
(tests/test_serve.py builds both and compares every file). A change to mkdocs.yml, the
theme overrides or the set of handwritten pages rebuilds everything.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Callable

from generator.speed import timing
from generator.speed import workers
from generator.kb.findings import AtlasError
from generator.emit import Stopped
from generator.pipeline import Memo, prepare

log = logging.getLogger("mkdocs.plugins.atlas.serve")

WATCHED = ("glossary", "graph", "docs", "overrides", "mkdocs.yml", "bench/gpu/results")


def _stamps(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its modification time and size."""
    out = {}
    for base, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(base, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            out[os.path.relpath(path, folder).replace(os.sep, "/")] = (st.st_mtime_ns, st.st_size)
    return out


INTERRUPT_CHECK_S = 0.1
"""How often the rest of a rebuild looks for a newer edit (a stat of the sources, a few ms)."""


class Site:
    """A built site kept in memory: `full()` builds it the way `mkdocs build` does, and
    `update()` brings it up to date with the sources after an edit."""

    def __init__(self, root: Path, site_dir: Path, config_file: Path | None = None):
        self.root = Path(root).resolve()
        self.site_dir = Path(site_dir)
        self.config_file = Path(config_file or self.root / "mkdocs.yml")
        self.config = None  # the last good build's MkDocs config (None: no good build yet)
        self.plugin = None
        self.generated: dict[str, str] = {}
        self.names: tuple = ()  # every (name, id, URL) of the term index
        self.targets: dict = {}  # id -> what its links say (title, short, category)
        self.sources: dict = {}
        self.docs: dict[str, tuple[int, int]] = {}
        self.setup: dict[str, tuple[int, int]] = {}
        self.rendered = 0  # pages rendered by the last update
        self.interrupted = False  # whether the last update left its rest to the next (a newer edit came)
        self.patched = 0  # pages whose links' hover cards the last update rewrote

    # -- whole builds ---------------------------------------------------------------

    def _setup_stamps(self) -> dict[str, tuple[int, int]]:
        """mkdocs.yml and the theme overrides: a change to either rebuilds everything."""
        out = {f"overrides/{k}": v for k, v in _stamps(self.root / "overrides").items()}
        st = self.config_file.stat()
        out["mkdocs.yml"] = (st.st_mtime_ns, st.st_size)
        return out

    def full(self) -> bool:
        """Build everything from a fresh config, as `mkdocs build` would. Returns whether the
        build succeeded; on failure the last good site (if any) stays where it is."""
        from mkdocs.commands.build import build
        from mkdocs.config import load_config
        from mkdocs.exceptions import Abort, ConfigurationError, PluginError

        from generator.plugin import AtlasPlugin

        workers.serial_only = True  # the server's threads run beside the build: no forking
        started = time.perf_counter()
        setup, docs = self._setup_stamps(), None
        try:
            config = load_config(config_file=str(self.config_file), site_dir=str(self.site_dir))
            config.plugins.on_startup(command="serve", dirty=False)
            plugin = next(p for p in config.plugins.values() if isinstance(p, AtlasPlugin))
            plugin.memo = Memo()
            docs = _stamps(Path(config.docs_dir))
            build(config)
        except (Abort, ConfigurationError, PluginError) as exc:
            log.error(f"atlas serve: the build failed; fix the sources and save again\n{exc}")
            self.setup = setup  # retried on the next change to anything watched
            return False
        self.config, self.plugin, self.setup, self.docs = config, plugin, setup, docs
        self.generated = dict(plugin.generated)
        self.names, self.targets, self.sources = self._keys(plugin)
        self.rendered = len(plugin.files.documentation_pages())
        log.info(f"atlas serve: built {self.rendered} pages in {time.perf_counter() - started:.1f} s")
        return True

    @staticmethod
    def _keys(plugin) -> tuple:
        """What pages' links and citations depend on beyond their own Markdown: the term
        index's names, what each link's hover card says, and the sources."""
        names = tuple((name, t.id, t.url) for name, t in plugin.linker.names)
        return names, dict(plugin.linker.targets), {s.id: repr(s) for s in plugin.atlas.sources.values()}

    # -- one edit -------------------------------------------------------------------

    def update(self, shown: Callable[[], None] | None = None) -> bool:
        """Bring the site up to date with the sources. `shown` is called once the pages the
        author edited are written (browsers may reload then); the rest follows. Returns
        whether the site is now up to date (False: an error was reported)."""
        if self.config is None or self._setup_stamps() != self.setup:
            return self.full()
        docs = _stamps(Path(self.config.docs_dir))
        if set(docs) != set(self.docs):  # a handwritten page or asset added or removed: the nav may change
            return self.full()
        edited_docs = sorted(p for p in docs if docs[p] != self.docs[p])
        started = time.perf_counter()
        before = self._source_stamps()
        timing.reset()
        try:
            with timing.no_collections():
                emitter = prepare(self.root, self.plugin.memo)
        except AtlasError as exc:
            log.error(f"atlas serve: the last good site stays served until this is fixed\n{exc.report()}")
            return False
        plugin, files = self.plugin, self.plugin.files
        plugin.atlas, plugin.linker = emitter.atlas, emitter.linker
        done: dict[str, str | None] = {}  # src_uri -> the Markdown it was rendered from this time (None: handwritten)

        # The pages the author changed, first.
        for e in emitter.atlas.entries.values():
            if e.path in plugin.memo.fresh and e.src_path in self.generated:
                text = done[e.src_path] = emitter.entry_page(e)
                self._render(e.src_path, text)
        for path in edited_docs:
            file = files.get_file_from_path(path)
            if file is not None and file.page is not None:
                done[path] = None
                self._render(path)
            elif file is not None:
                file.copy_file()
        self.docs = docs
        if shown is not None:
            shown()
        first = time.perf_counter() - started

        # Everything else that changed with them. A newer save stops this part (never a pass
        # that adds or removes pages, whose file list must be finished): the author's next
        # page is written first, and what this pass left undone still differs from what was
        # written, so the next pass does it.
        newer = self._newer_edit(before)
        try:
            generated = emitter.files(stop=newer)
        except Stopped:
            return self._interrupted({p: t for p, t in done.items() if t is not None}, started, first, len(done))
        names, targets, sources = self._keys(plugin)
        carded = {i for i in targets.keys() | self.targets.keys() if targets.get(i) != self.targets.get(i)}
        renamed = set(names) ^ set(self.names)  # (name, id, URL) that came or went
        named = {i for _, i, _ in renamed}
        # A name that came or went can make or unmake a link only where its words are written
        # (the page's last output holds them, plurals included) or where the entry was linked.
        rerender = ({uri for uri, ids in plugin.links.items() if ids & named} |
                    self._mentioning({n for n, _, _ in renamed})) if renamed else set()
        relink = [uri for uri, ids in plugin.links.items() if ids & (carded - named) and uri not in rerender]
        added = [p for p in generated if p not in self.generated]
        removed = [p for p in self.generated if p not in generated]
        if added or removed:
            self._reorder(generated, added, removed)
            files = plugin.files  # a new Files, in the new order
        if added or removed:
            newer = lambda: False  # noqa: E731
        written: dict[str, str] = {p: t for p, t in done.items() if t is not None}
        for path, text in generated.items():
            if newer():
                return self._interrupted(written, started, first, len(done))
            if path.endswith(".md"):
                if done.get(path, "") == text:
                    written[path] = text
                    continue
                if text != self.generated.get(path) or path in rerender:
                    done[path] = text
                    self._render(path, text)
            elif text != self.generated.get(path):
                file = files.get_file_from_path(path)
                file.content_string = text
                file.copy_file()
            written[path] = text
        cited = sources != self.sources
        for file in files.documentation_pages():  # handwritten pages link entries and cite sources by id
            if file.generated_by is None and file.src_uri not in done and (cited or file.src_uri in rerender):
                done[file.src_uri] = None
                self._render(file.src_uri)
        patched = 0
        if relink:
            cards = [(_card(self.targets[i]), _card(targets[i])) for i in carded if i in self.targets and i in targets]
            for uri in relink:
                if uri in done:
                    continue
                if self._recard(uri, cards):
                    patched += 1
                else:  # not as expected: the page is rendered instead
                    done[uri] = None
                    self._render(uri)
        plugin.generated, self.generated = generated, generated
        self.names, self.targets, self.sources = names, targets, sources
        self.interrupted = False
        self._finish(pages_changed=bool(added or removed))
        self.rendered, self.patched = len(done), patched
        log.info(f"atlas serve: {len(done)} page(s) rendered again, {patched} with new hover cards; edited page(s) "
                 f"written after {first:.2f} s, all after {time.perf_counter() - started:.2f} s")
        return True

    def _source_stamps(self) -> dict[str, dict[str, tuple[int, int]]]:
        return {name: _stamps(self.root / name) for name in WATCHED if (self.root / name).is_dir()}

    def _newer_edit(self, before: dict) -> Callable[[], bool]:
        """A check, cheap to call often, for a save made since this pass began: it looks at
        the sources at most every INTERRUPT_CHECK_S."""
        last = [time.perf_counter()]

        def check() -> bool:
            now = time.perf_counter()
            if now - last[0] < INTERRUPT_CHECK_S:
                return False
            last[0] = now
            return self._source_stamps() != before
        return check

    def _interrupted(self, written: dict[str, str], started: float, first: float, rendered: int) -> bool:
        """Stop the rest of a pass for a newer edit: what was written counts as built; the
        names, hover cards, sources and search index stay as they were, so the next pass
        compares against them and finishes the job."""
        self.generated = {**self.generated, **written}
        self.plugin.generated = self.generated
        self.rendered, self.patched, self.interrupted = rendered, 0, True
        log.info(f"atlas serve: a newer edit came; edited page(s) written after {first:.2f} s, the rest is left "
                 f"to the next pass after {time.perf_counter() - started:.2f} s")
        return True

    def _render(self, path: str, text: str | None = None) -> None:
        """One page through MkDocs's own steps (read, Markdown, plugins, theme), written to
        the site. `text`: a generated page's new Markdown."""
        from mkdocs.commands.build import _build_page, _populate_page

        files = self.plugin.files
        file = files.get_file_from_path(path)
        if text is not None:
            file.content_string = text
        page = file.page
        page.__dict__.pop("render", None)  # a page the build's workers rendered: MkDocs renders it now
        _populate_page(page, self.config, files)
        _build_page(page, self.config, files.documentation_pages(), self.plugin.site_nav, self.plugin.env)

    def _mentioning(self, names: set[str]) -> set[str]:
        """The pages whose written HTML holds any of `names`, in any case."""
        import html

        words = {w for n in names for w in (n.casefold(), html.escape(n, quote=False).casefold())}
        out = set()
        for file in self.plugin.files.documentation_pages():
            try:
                text = Path(file.abs_dest_path).read_text(encoding="utf-8").casefold()
            except OSError:
                continue
            if any(w in text for w in words):
                out.add(file.src_uri)
        return out

    def _recard(self, uri: str, cards: list[tuple[str, str]]) -> bool:
        """Replace the hover-card attributes of the links in one written page; False if the
        page does not hold them as expected (then it must be rendered)."""
        page = self.plugin.files.get_file_from_path(uri).page
        dest = Path(page.file.abs_dest_path)
        try:
            html = dest.read_text(encoding="utf-8")
        except OSError:
            return False
        found = False
        for old, new in cards:
            if old in html:
                html, found = html.replace(old, new), True
        if not found:
            return False
        dest.write_text(html, encoding="utf-8")
        return True

    def _reorder(self, generated: dict[str, str], added: list[str], removed: list[str]) -> None:
        """Entries added or removed: their files join or leave the build, in the order a
        clean build would list them (handwritten and theme files, then the generated ones
        by path), since that order is the search index's and the sitemap's."""
        from mkdocs.structure.files import File, Files
        from mkdocs.structure.pages import Page

        files, config = self.plugin.files, self.config
        for path in removed:
            file = files.get_file_from_path(path)
            self.plugin.searched.pop(path, None)
            self.plugin.links.pop(path, None)
            dest = Path(file.abs_dest_path)
            dest.unlink(missing_ok=True)
            folder = dest.parent
            while folder != self.site_dir and folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
        made = {}
        for path in added:
            file = File.generated(config, path, content=generated[path])
            file.generated_by = "atlas"
            if file.is_documentation_page():
                Page(None, file, config)
            made[path] = file
        kept = {f.src_uri: f for f in files if f.generated_by is not None}
        kept.update(made)
        ordered = [f for f in files if f.generated_by is None] + [kept[p] for p in generated]
        self.plugin.files = Files(ordered)
        for path in added:
            if not path.endswith(".md"):
                made[path].copy_file()

    def _finish(self, pages_changed: bool) -> None:
        """The search index in page order, and the theme's sitemap and 404 page when pages
        came or went."""
        from mkdocs.commands.build import _build_theme_template

        from generator.speed.parallel import search_plugin

        files, config, plugin = self.plugin.files, self.config, self.plugin
        search = search_plugin(config)
        if search is not None:
            search.search_index.entries = [x for f in files.documentation_pages() for x in plugin.searched.get(f.src_uri, ())]
            plugin._indexed = len(search.search_index.entries)
            search.on_post_build(config=config)
        if pages_changed:
            for template in config.theme.static_templates:
                _build_theme_template(template, plugin.env, files, config, plugin.site_nav)


def _card(target) -> str:
    """A link's hover-card attributes as the written page has them: made by link._card_attrs,
    then serialized by the sanitizer."""
    from generator.knowledge.link import _card_attrs
    from generator.render.sanitize import clean

    html = clean(f'<a href="#"{_card_attrs(target)}>x</a>')
    return html[html.index("data-atlas-id="):html.rindex('">x</a>') + 1]


POLL_S = 0.05


def serve(root: Path, host: str = "127.0.0.1", port: int = 8000, site_dir: Path | None = None) -> None:
    """Build the site, serve it with live reload, and keep it up to date page by page."""
    import tempfile

    from mkdocs.livereload import LiveReloadServer

    root = Path(root).resolve()
    with tempfile.TemporaryDirectory(prefix="atlas-serve-") as tmp:
        site = Site(root, Path(site_dir or tmp))
        site.full()
        # Notice a save within 50 ms and wait 50 ms for the writes to settle (MkDocs: 0.5 s and
        # 0.1 s); a stat of the few hundred watched files every 50 ms costs next to nothing.
        server = LiveReloadServer(builder=lambda: site.update(shown=lambda: _show(server)), host=host, port=port,
                                  root=str(site.site_dir), polling_interval=POLL_S)
        server.build_delay = POLL_S
        for name in WATCHED:
            if (root / name).exists():
                server.watch(str(root / name))
        try:
            server.serve()
        except KeyboardInterrupt:
            log.info("Shutting down...")
        finally:
            server.shutdown()


def _show(server) -> None:
    """Let browsers reload and requests through now, before the rest of the rebuild: the
    pages the author edited are written. (MkDocs's server otherwise holds every request
    until its builder returns.)"""
    cond = getattr(server, "_epoch_cond", None)
    if cond is None:
        return
    with cond:
        server._visible_epoch = server._wanted_epoch
        cond.notify_all()
