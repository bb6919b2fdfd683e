"""Generated structure is written as HTML (issue 33 step 3): tables, lists, figures and the
sources are HTML blocks that our plugin hands past Python-Markdown, while any other reader of
the Markdown takes them as raw HTML. Whatever path a page takes, a reader must get the same
page: here the real site, built with the plugin, is compared with plain MkDocs and Material
building the folder `atlas markdown` writes (no plugin, no sanitizer, Python-Markdown parsing
every block), page by page: every element of the content, its attributes, its links resolved
to where they lead, and its visible text (tests/dom.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from dom import first_difference, tokens

BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def plain_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("plain") / "source"
    r = subprocess.run([str(BIN / "atlas"), "markdown", str(out)], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    built = subprocess.run([str(BIN / "mkdocs"), "build", "-q", "-d", str(out / "site")], cwd=out,
                           capture_output=True, text=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(BIN)})
    assert built.returncode == 0, built.stderr[-3000:]
    return out / "site"


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


def test_the_structure_reaches_the_reader_as_html(site):
    """The tables an entry page shows are real tables, with the cells a reader reads: a
    device's specifications and what fits on it, a model's KV-cache table, its sources."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / "hardware/nvidia-h100-sxm/index.html").read_text(encoding="utf-8"), "html.parser")
    specs = soup.find(id="specs").find_next("table")
    cells = {tr.find("td").get_text(strip=True): tr.find_all("td")[1].get_text(" ", strip=True) for tr in specs.select("tbody tr")}
    assert cells["Memory"].startswith("80 GB")
    fit = soup.find(id="fit").find_next("table")
    assert any("Llama 3.1 8B" in tr.get_text() for tr in fit.select("tbody tr"))
    sources = soup.select("p.atlas-source[id^=src-]")
    assert sources and all(s.find("a", string="About this source") for s in sources)
    cite = soup.select_one("sup.atlas-cite a[href^='#src-']")
    assert cite is not None and soup.find(id=cite["href"][1:]) is not None  # a citation leads to its source
