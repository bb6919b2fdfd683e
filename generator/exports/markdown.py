"""`atlas markdown DIR`: the whole site as a source folder that builds without our plugin.

MkDocs 2.0 drops plugins and Zensical (Material's successor) has none, so the way off
MkDocs 1.x is a folder they can build as it stands: DIR/mkdocs.yml (ours, less the atlas
plugin), DIR/docs/ (every generated page with its term links, every handwritten page with
its [[id]] links, [@source] citations and figures expanded and its terms linked, the
assets and the data files) and the theme overrides. What the plugin adds at build time is
written into the Markdown here: a reader of the folder's site gets the same links.

Every page is written as its URL + index.md (glossary/kv-cache.md becomes
glossary/kv-cache/index.md; the URL /glossary/kv-cache/ stays). Pages carry raw HTML with
links in it (the local graph, the A-Z list, the guide charts, term links inside HTML
blocks): MkDocs leaves those to the browser, which resolves them against the page's URL,
while Zensical resolves them against the source file, as it does Markdown links. Only
where the two are the same folder do both give the same page. Markdown links, written
relative to the source files as both generators read them, are moved with their pages;
a link to an entry gets the hover card's data as an attribute list, as the plugin gives it
in HTML (link.add_cards).

The plugin's allow-list sanitizer runs on every page's HTML; the folder's generator runs
none, so every page written here has already been through the same allow-list
(sanitize.clean_markdown): each raw HTML tag outside code cut to the allowed tags,
attributes and URL schemes, each attribute list to the allowed attributes, comments
dropped. Not carried over: the page workers (the other generator builds the pages).
"""

from __future__ import annotations

import posixpath
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

from generator.pages.entry import LONG_PAGE
from generator.pages.handwritten import checked_date, expand
from generator.knowledge.link import NO_LINKS_BELOW, Linker, add_cards
from generator.knowledge.link_markdown import link_markdown, md_card_attrs, raw_html_blocks, resolve_marks, _in_spans
from generator.kb.model import Atlas
from generator.render.sanitize import clean_markdown
from generator.kb.text import split_code

MARKER = "# Written by `atlas markdown`"
"""The first line of the mkdocs.yml it writes: a folder that has it may be written over."""

# An inline Markdown link or image: [text](url "title"). Reference links are not used.
_LINK_RE = re.compile(r'(?P<img>!?)\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]\((?P<url>[^()\s]+)(?P<title>\s+"[^"\n]*")?\)'
                      r'(?P<attrs>\{)?')
_FRONT_RE = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*\n", re.S)
_NOLINK_RE = re.compile(r"<(?P<tag>[a-zA-Z][a-zA-Z0-9-]*)\b[^>]*\bdata-atlas-nolink\b[^>]*>")


@dataclass
class Written:
    pages: int = 0
    files: int = 0


def page_url(src: str) -> str:
    """The URL MkDocs and Zensical give a page (use_directory_urls), site-relative, no
    leading slash: index.md -> '', learn/index.md -> 'learn/', about.md -> 'about/'."""
    folder, _, name = src.rpartition("/")
    stem = name[:-3]
    if stem in ("index", "README"):
        return folder + "/" if folder else ""
    return f"{folder}/{stem}/" if folder else f"{stem}/"


def written_path(src: str) -> str:
    """Where a page is written: its URL + index.md (see the module's docstring)."""
    return page_url(src) + "index.md"


def split_front(text: str) -> tuple[str, dict, str]:
    """(front matter as written, its data, the rest)."""
    m = _FRONT_RE.match(text)
    if not m:
        return "", {}, text
    data = yaml.load(m.group(1), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    return m.group(0), data if isinstance(data, dict) else {}, text[m.end():]


def export(root: Path, out: Path, built: tuple[Atlas, dict[str, str], Linker]) -> Written:
    """Write the site source for `root` to `out` (see the module's docstring). `built`: the
    knowledge base, its generated files and its term linker (pipeline.build)."""
    root, out = Path(root), Path(out)
    atlas, files, linker = built
    docs = root / "docs"
    pages: dict[str, str] = {}
    for rel, text in files.items():
        if rel.endswith(".md"):
            pages[rel] = text
    handwritten = sorted(p for p in docs.rglob("*") if p.is_file()) if docs.is_dir() else []
    for path in handwritten:
        rel = path.relative_to(docs).as_posix()
        if rel.endswith(".md"):
            if rel in pages:  # (the plugin refuses it too)
                raise ValueError(f"docs/{rel} is written by hand but the generator also produces it; remove one of them")
            front, _, body = split_front(path.read_text(encoding="utf-8"))
            checked = checked_date(front)  # when the page's facts were checked: shown at its foot, as on the site
            if "[[" in body or "[@" in body or "atlas:figure" in body or "%SITE_URL%" in body or checked:
                body = expand(body, atlas, rel, checked)
            pages[rel] = front + body

    moved = {src: written_path(src) for src in pages}
    clash = {}
    for src, to in moved.items():
        if to in clash:
            raise ValueError(f"{src} and {clash[to]} would both be written as {to}")
        clash[to] = src
    entries = {e.src_path: linker.targets[e.id] for e in atlas.entries.values() if e.id in linker.targets}

    if out.exists():
        _clear(out)
    target = out / "docs"
    written = Written()
    for src, text in pages.items():
        text = _finish_page(text, src, moved, entries, linker)
        path = target / moved[src]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.pages += 1
    for rel, text in files.items():
        if not rel.endswith(".md"):
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.files += 1
    for path in handwritten:
        rel = path.relative_to(docs).as_posix()
        if not rel.endswith(".md"):
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / rel)
            written.files += 1
    written.files += _write_config(root, out, moved)
    return written


def ours(out: Path) -> bool:
    """Whether `out` may be written: missing, empty, or a folder this command wrote before.
    Asked before the knowledge base is built, so a wrong folder is refused at once."""
    config = out / "mkdocs.yml"
    if not out.exists() or (config.is_file() and config.read_text(encoding="utf-8").startswith(MARKER)):
        return True
    return not any(out.iterdir())


def _clear(out: Path) -> None:
    """Empty a folder this command wrote before; refuse any other folder that holds files."""
    if not ours(out):
        raise FileExistsError(f"{out} is not empty and was not written by `atlas markdown`")
    for child in out.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()


def _finish_page(text: str, src: str, moved: dict[str, str], entries: dict, linker: Linker) -> str:
    """What the plugin does to a page at build time, written into its Markdown: term links
    (marked by emit already on entry pages, found here on the others), the hover card's
    data on every link to an entry, and links that follow the pages to where they are written."""
    front, meta, body = split_front(text)
    url = page_url(src)
    if not meta.get("atlas_nolink") and not meta.get("atlas_linked"):
        own = (meta.get("atlas") or {}).get("id")
        body = _link_terms(body, linker, url, own)
    body = _move_links(body, src, moved, entries, linker, url)  # (term links are made relative to where pages go)
    body = resolve_marks(body, linker, url, markdown=True)
    return front + clean_markdown(body, raw_html_blocks(body))


def _link_terms(body: str, linker: Linker, url: str, own: str | None) -> str:
    """The first mention of each entry marked, as the plugin links it in the HTML of a
    handwritten or generated page (link_html): not below NO_LINKS_BELOW, nor inside an
    element marked data-atlas-nolink (held out of the scan as comments)."""
    prose, cut, rest = body.partition(NO_LINKS_BELOW)
    held: list[str] = []

    def hold(m: re.Match) -> str:
        from generator.knowledge.link import _closing

        end = _closing(prose, m.group("tag"), m.end()) or len(prose)
        held.append(prose[m.start():end])
        return f"<!--atlas-held-{len(held) - 1}-->"

    pieces, pos = [], 0
    for m in _NOLINK_RE.finditer(prose):  # (by hand: each element runs to its own end)
        if m.start() < pos:
            continue
        pieces.append(prose[pos:m.start()])
        pieces.append(hold(m))
        pos = m.start() + len(held[-1])
    pieces.append(prose[pos:])
    prose = "".join(pieces)
    prose, _ = link_markdown(prose, linker, url, skip_id=own, per_section=len(prose) > LONG_PAGE)
    for k, piece in enumerate(held):
        prose = prose.replace(f"<!--atlas-held-{k}-->", piece, 1)
    return prose + cut + rest


def _move_links(body: str, src: str, moved: dict[str, str], entries: dict, linker: Linker, url: str) -> str:
    """Markdown links and images re-pointed from where the page was (`src`) to where it is
    written, each to where its target is written; those to an entry get the card's data.
    HTML links are relative to the page's URL already, which does not move: they only get
    the card's data (link.add_cards)."""
    if "<a " in body:
        body = "".join(piece if is_code else add_cards(piece, linker, url) for is_code, piece in split_code(body))
    if "](" not in body:
        return body
    here = posixpath.dirname(src)
    there = posixpath.dirname(moved[src])
    skip, pos = [], 0  # code and raw HTML blocks, where nothing is a Markdown link
    for is_code, piece in split_code(body):
        if is_code:
            skip.append((pos, pos + len(piece)))
        pos += len(piece)
    skip = sorted(skip + raw_html_blocks(body))
    starts = [a for a, _ in skip]

    def one(m: re.Match) -> str:
        link = m.group("url")
        if "://" in link or link.startswith(("#", "/", "mailto:")) or _in_spans(m.start(), skip, starts):
            return m.group(0)
        cut = min((k for k in (link.find("#"), link.find("?")) if k >= 0), default=len(link))
        path, rest = link[:cut], link[cut:]  # (a query or a fragment stays as it is)
        old = posixpath.normpath(posixpath.join(here, path)) if path else src
        if not path:
            new = ""
        elif old.endswith(".md") or old in moved:
            new = posixpath.relpath(moved.get(old, old), there)
        else:  # a data file, an asset or a folder: it stays where it is
            new = path if here == there else posixpath.relpath(old, there) + ("/" if path.endswith("/") else "")
        out = f"{m.group('img')}[{m.group('text')}]({new}{rest}{m.group('title') or ''})"
        target = entries.get(old) if path and not m.group("img") else None
        card = md_card_attrs(target).replace(" .atlas-term", "", 1)[:-2] if target is not None else ""
        if m.group("attrs"):  # an attribute list of its own: the card's data joins it
            return out + (card + " " if card else "{")
        return out + (card + " }" if card else "")

    return _LINK_RE.sub(one, body)


def _move_nav(item, moved: dict[str, str]):
    if isinstance(item, str):
        return moved.get(item, item)
    if isinstance(item, list):
        return [_move_nav(i, moved) for i in item]
    if isinstance(item, dict):
        return {k: _move_nav(v, moved) for k, v in item.items()}
    return item


def _write_config(root: Path, out: Path, moved: dict[str, str]) -> int:
    """out/mkdocs.yml: ours without the atlas plugin, the nav pointed at where the pages
    are written, and the theme's custom_dir copied beside it. Returns the files written."""
    from yaml_env_tag import construct_env_tag  # MkDocs' own reader of !ENV [VAR, default]

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!ENV", construct_env_tag)  # written out resolved (site_url: ATLAS_SITE_URL or its default)
    config = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader) or {}  # noqa: S506 (a SafeLoader)
    plugins = config.get("plugins") or []
    if isinstance(plugins, dict):
        plugins = {k: v for k, v in plugins.items() if k != "atlas"}
    else:
        plugins = [p for p in plugins if p != "atlas" and not (isinstance(p, dict) and "atlas" in p)]
    config["plugins"] = plugins
    config["docs_dir"] = "docs"
    config["use_directory_urls"] = True  # the layout depends on it (see the module's docstring)
    if "nav" in config:
        config["nav"] = _move_nav(config["nav"], moved)
    n = 1
    custom = (config.get("theme") or {}).get("custom_dir") if isinstance(config.get("theme"), dict) else None
    if custom and (root / custom).is_dir():
        shutil.copytree(root / custom, out / custom)
        n += sum(1 for p in (out / custom).rglob("*") if p.is_file())
    out.mkdir(parents=True, exist_ok=True)
    (out / "mkdocs.yml").write_text(
        f"{MARKER} from the knowledge base: the generated and handwritten pages with every link\n"
        "# written out, for MkDocs without the atlas plugin or Zensical (`zensical build`).\n"
        + yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")
    return n
