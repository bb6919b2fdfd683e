"""Generated structure is written as HTML (issue 33 step 3): tables, lists, figures and the
sources are HTML blocks that our plugin hands past Python-Markdown, while any other reader of
the Markdown takes them as raw HTML. That every page reads the same built without our plugin
is checked in tests/test_markdown_export.py, on the folder its tests export once."""

from __future__ import annotations


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
