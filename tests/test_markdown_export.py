"""`atlas markdown DIR` writes a site source that builds without our plugin.

Every link in every page it writes is resolved the way each generator resolves it, and
none may be broken. Both read the Markdown with Python-Markdown and the extensions named
in mkdocs.yml; they differ in the links they resolve:
- MkDocs (use_directory_urls) resolves a Markdown link against the source file when it
  names a file among the docs, and leaves anything else, and every link in raw HTML, to
  the browser, which resolves it against the page's URL;
- Zensical resolves every relative link, Markdown or raw HTML, against the source file.
Then Zensical builds the folder (where it is installed: `make test` installs it) and no
internal link in the HTML it writes may point at nothing.
"""

from __future__ import annotations

import posixpath
import re
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import markdown
import pytest
import yaml
from markdown.treeprocessors import Treeprocessor

from dom import first_difference, tokens

REPO = Path(__file__).resolve().parents[1]
ATLAS = str(Path(sys.executable).with_name("atlas"))
ZENSICAL = shutil.which("zensical", path=str(Path(sys.executable).parent)) or shutil.which("zensical")


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """The folder `atlas markdown` writes, once for this file's tests (an export takes
    about 20 s): they read it, and those that write into it come last."""
    out = tmp_path_factory.mktemp("export") / "site-source"
    r = subprocess.run([ATLAS, "markdown", str(out)], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_markdown_command_writes_the_generated_pages(exported):
    text = (exported / "docs/glossary/kv-cache/index.md").read_text()
    assert text.startswith("---\n") and "\n# KV cache\n" in text
    # Another site generator gets the term links too: Markdown links with the card's data
    # as an attribute list, and no marks left (link.resolve_marks).
    assert '[attention](../attention/index.md){ .atlas-term data-atlas-id="attention"' in text
    assert not any(c in text for c in "\ufdd0\ufdd1\ufdd2")


# --- Every page reads the same without our plugin ---------------------------------------
# Generated structure is written as HTML (issue 33 step 3). Whatever path a page takes, a
# reader must get the same page: the real site, built with the plugin, is compared with
# plain MkDocs and Material building the exported folder (no plugin, no sanitizer,
# Python-Markdown parsing every block), page by page: every element of the content, its
# attributes, its links resolved to where they lead, and its visible text (tests/dom.py).

@pytest.fixture(scope="module")
def plain_site(exported) -> Path:
    out = exported.parent / "plain-site"
    bin_dir = Path(sys.executable).parent
    built = subprocess.run([str(bin_dir / "mkdocs"), "build", "-q", "-d", str(out)], cwd=exported,
                           capture_output=True, text=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(bin_dir)})
    assert built.returncode == 0, built.stderr[-3000:]
    return out


def test_every_page_reads_the_same_without_our_plugin(site, plain_site):
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html"))
    assert len(pages) > 1000
    differ = []
    for rel in pages:
        other = plain_site / rel
        if not other.exists():
            differ.append(f"{rel}: not in the plain build")
            continue
        url = rel[: -len("index.html")]
        diff = first_difference(tokens((site / rel).read_text(encoding="utf-8"), url, root="article"),
                                tokens(other.read_text(encoding="utf-8"), url, root="article"))
        if diff:
            differ.append(f"{rel}: {diff}")
    assert not differ, f"{len(differ)} pages differ; the first: {differ[:3]}"


# --- Where the generators put things --------------------------------------------------

def page_url(src: str) -> str:
    """A page's URL under use_directory_urls, site-relative: a/b.md and a/b/index.md -> a/b/."""
    stem = src[:-3]
    if stem == "index" or stem.endswith("/index"):
        return stem[:-5]
    return stem + "/"


class Site:
    """What a docs folder builds to: pages by URL, other files by path."""

    def __init__(self, docs: Path):
        self.files = {p.relative_to(docs).as_posix() for p in docs.rglob("*") if p.is_file()}
        self.pages = {f for f in self.files if f.endswith(".md")}
        self.urls = {page_url(f) for f in self.pages}

    def served(self, path: str) -> bool:
        """Whether a site-relative path (after resolution) is a page or a file."""
        if path in ("", ".", "./"):
            return "" in self.urls
        if path.endswith("/"):
            return path in self.urls
        return path in self.files and not path.endswith(".md")


def _join(folder: str, link: str) -> str:
    """folder (site-relative, '' or ending in '/') + a relative path, normalised, keeping
    a trailing slash; '..' above the root makes it unresolvable."""
    joined = posixpath.normpath(posixpath.join("/" + folder, link))
    if joined.startswith("//"):
        joined = joined[1:]
    joined = joined.lstrip("/")
    if joined == ".":
        joined = ""
    return joined + "/" if link.endswith("/") and joined and not joined.endswith("/") else joined


def _relative(url: str) -> str | None:
    """The path of a relative link, or None for what no generator resolves (external,
    absolute, fragment only, data: or mailto:)."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith(("/", "#")) or not parts.path:
        return None
    return unquote(parts.path)


def resolve_mkdocs(site: Site, src: str, url: str, raw: bool) -> bool:
    path = _relative(url)
    if path is None:
        return True
    if not raw:
        target = _join(posixpath.dirname(src) + "/" if "/" in src else "", path)
        if target in site.files:  # MkDocs rewrites it to the file's URL
            return True
    return site.served(_join(page_url(src), path))  # left as written: the browser resolves it


def resolve_zensical(site: Site, src: str, url: str) -> bool:
    path = _relative(url)
    if path is None:
        return True
    target = _join(posixpath.dirname(src) + "/" if "/" in src else "", path)
    if target in site.pages:
        return True
    return site.served(target) or (not target.endswith("/") and site.served(target + "/"))


# --- The links in a page ---------------------------------------------------------------

class _Collect(Treeprocessor):
    """Links Markdown made (the element tree; raw HTML is stashed apart)."""

    def run(self, root):
        found = self.md.atlas_links
        for el in root.iter():
            for attr in ("href", "src"):
                if el.get(attr) is not None and el.tag in ("a", "img"):
                    found.append(el.get(attr))


class _RawLinks(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None and tag in ("a", "img", "source", "link", "script"):
                self.links.append(value)


def _markdown(config: dict) -> markdown.Markdown:
    names, configs = [], {}
    for item in config.get("markdown_extensions") or []:
        if isinstance(item, dict):
            (name, conf), = item.items()
            names.append(name)
            configs[name] = conf or {}
        else:
            names.append(item)
    md = markdown.Markdown(extensions=names, extension_configs=configs)
    md.treeprocessors.register(_Collect(md), "atlas_collect", 0)  # last: after every extension's changes
    return md


def page_links(md: markdown.Markdown, text: str) -> tuple[list[str], list[str], str]:
    """(Markdown links, raw HTML links, the rendered HTML) of a page's Markdown."""
    text = re.sub(r"\A---[ \t]*\n.*?\n---[ \t]*\n", "", text, count=1, flags=re.S)
    md.reset()
    md.atlas_links = []
    html = md.convert(text)
    raw = _RawLinks()
    for block in md.htmlStash.rawHtmlBlocks:
        raw.feed(str(block))
    raw.close()
    return md.atlas_links, raw.links, html


def check_links(docs: Path, config: dict) -> dict:
    """Every link of every page, resolved both ways: counts and the broken ones."""
    site = Site(docs)
    md = _markdown(config)
    out = {"pages": 0, "markdown": 0, "raw": 0, "mkdocs": [], "zensical": [], "literal": []}
    for src in sorted(site.pages):
        md_links, raw_links, html = page_links(md, (docs / src).read_text(encoding="utf-8"))
        out["pages"] += 1
        out["markdown"] += len(md_links)
        out["raw"] += len(raw_links)
        for url, raw in [(u, False) for u in md_links] + [(u, True) for u in raw_links]:
            if not resolve_mkdocs(site, src, url, raw):
                out["mkdocs"].append(f"{src}: {url}")
            if not resolve_zensical(site, src, url):
                out["zensical"].append(f"{src}: {url}")
        # Link syntax that did not become a link (a Markdown link inside raw HTML, an
        # unexpanded [[id]] or [@source]) shows as text.
        text = re.sub(r"<(pre|code)\b.*?</\1>", " ", html, flags=re.S)
        text = re.sub(r"<[^>]*>", " ", text)
        for bad in ("{ .atlas-term", "{ data-atlas-id", "[[", "[@", "\ufdd0", "\ufdd2"):
            if bad in text:
                out["literal"].append(f"{src}: {bad}")
    return out


def test_every_link_resolves_in_mkdocs_and_in_zensical(exported):
    config = yaml.safe_load((exported / "mkdocs.yml").read_text())
    found = check_links(exported / "docs", config)
    # Both kinds in quantity: prose links are Markdown, generated structure (tables, lists,
    # citations) is raw HTML.
    assert found["pages"] > 700 and found["markdown"] > 10_000 and found["raw"] > 20_000, found | {"mkdocs": 0, "zensical": 0}
    assert not found["mkdocs"], f"{len(found['mkdocs'])} broken under MkDocs, e.g. {found['mkdocs'][:10]}"
    assert not found["zensical"], f"{len(found['zensical'])} broken under Zensical, e.g. {found['zensical'][:10]}"
    assert not found["literal"], found["literal"][:10]


def test_the_folder_is_a_whole_site_source(exported):
    config = yaml.safe_load((exported / "mkdocs.yml").read_text())
    docs = exported / "docs"
    plugins = config.get("plugins") or []
    assert "atlas" not in plugins and not any(isinstance(p, dict) and "atlas" in p for p in plugins)
    assert config["docs_dir"] == "docs" and config["use_directory_urls"] is True
    assert (exported / config["theme"]["custom_dir"] / "main.html").is_file()

    def nav_paths(item):
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            for i in item:
                yield from nav_paths(i)
        elif isinstance(item, dict):
            for v in item.values():
                yield from nav_paths(v)
    assert all((docs / p).is_file() for p in nav_paths(config["nav"]))
    for asset in config.get("extra_css", []) + config.get("extra_javascript", []):
        assert (docs / asset).is_file(), asset
    for data in ("glossary.json", "graph/graph.json", "graph/graph.graphml"):
        assert (docs / data).is_file(), data
    # The handwritten pages, expanded: links, citations and their Sources list, figures.
    home = (docs / "index.md").read_text()
    assert home.startswith("---\n") and "[[" not in home
    learn = (docs / "learn/request-flow/index.md").read_text()
    assert "[@" not in learn and "atlas:figure" not in learn and '<figure class="atlas-dg"' in learn
    assert '](../../glossary/kv-cache/index.md){ data-atlas-id="kv-cache"' in learn or \
        '](../../glossary/kv-cache/index.md){ .atlas-term data-atlas-id="kv-cache"' in learn
    # An entry page: its term links Markdown links with the card's data, its boost kept.
    kv = (docs / "glossary/kv-cache/index.md").read_text()
    assert '[attention](../attention/index.md){ .atlas-term data-atlas-id="attention" data-atlas-title="Attention"' in kv
    assert '"search":{"boost":' in kv
    assert not (docs / "glossary/kv-cache.md").exists()


def test_the_knowledge_base_edited_is_written_again_over_the_last_export(exported, tmp_path):
    r = subprocess.run([ATLAS, "markdown", str(exported)], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    (tmp_path / "mine.txt").write_text("not an export")
    r = subprocess.run([ATLAS, "markdown", str(tmp_path)], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 2 and "not empty" in r.stderr


# --- Zensical builds it -----------------------------------------------------------------

class _SiteLinks(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            elif (name == "href" and tag in ("a", "link")) or (name == "src" and tag in ("img", "script", "source")):
                self.links.append(value)


def check_built(site: Path) -> dict:
    """Every internal link of every page of a built site: to a file that exists and, with
    a fragment, to an id on that page."""
    pages: dict[str, tuple[list[str], set[str]]] = {}
    for path in site.rglob("*.html"):
        parser = _SiteLinks()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path.relative_to(site).as_posix()] = (parser.links, parser.ids)
    checked, broken, anchors = 0, [], []
    for rel, (links, _) in pages.items():
        folder = posixpath.dirname(rel)
        for link in links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("/"):
                continue
            checked += 1
            path = unquote(parts.path)
            target = posixpath.normpath(posixpath.join(folder, path)) if path else rel
            if target.startswith(".."):
                broken.append(f"{rel}: {link}")
                continue
            if path.endswith("/") or (site / target).is_dir():
                target = posixpath.join(target, "index.html") if target != "." else "index.html"
            if not (site / target).is_file():
                broken.append(f"{rel}: {link}")
            elif parts.fragment and target in pages and unquote(parts.fragment) not in pages[target][1]:
                anchors.append(f"{rel}: {link}")
    return {"pages": len(pages), "links": checked, "broken": broken, "anchors": anchors}


@pytest.mark.skipif(ZENSICAL is None, reason="zensical is not installed (make test installs it)")
def test_zensical_builds_the_folder_with_no_broken_link(exported):
    started = time.monotonic()
    r = subprocess.run([ZENSICAL, "build"], cwd=exported, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    built = time.monotonic() - started
    found = check_built(exported / "site")
    assert found["pages"] > 700 and found["links"] > 50_000, (found["pages"], found["links"], built)
    assert not found["broken"], f"{len(found['broken'])} of {found['links']} links broken, e.g. {found['broken'][:10]}"
    assert not found["anchors"], f"{len(found['anchors'])} links to a missing anchor, e.g. {found['anchors'][:10]}"
    kv = (exported / "site/glossary/kv-cache/index.html").read_text()
    assert 'class="atlas-term" data-atlas-id="attention"' in kv or 'data-atlas-id="attention"' in kv
    assert "application/ld+json" in kv or "jsonld" not in (exported / "docs/glossary/kv-cache/index.md").read_text()
