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


def test_related_lists_say_which_engines_support_a_thing_only_partly_or_by_plugin(site):
    """Issue 48: "Implemented by" and "Supported by" say when an engine's cell is partial or
    plugin: Dynamo leaves PagedAttention to the engine it runs, vLLM loads GGUF through a
    plugin; engines whose cell says yes carry no qualifier."""
    from bs4 import BeautifulSoup

    def related(path: str, label: str) -> dict[str, str]:
        soup = BeautifulSoup((site / path).read_text(encoding="utf-8"), "lxml")
        item = next(li for li in soup.find(id="related").find_next("ul").find_all("li") if li.strong.get_text() == label + ":")
        out, last = {}, None
        for tag in item.find_all(["a", "span"], recursive=False):  # each link, then its qualifier if it has one
            if tag.name == "a":
                last = tag.get_text()
                out[last] = ""
            elif "atlas-support" in tag.get("class", []):
                out[last] = tag.get_text()
        return out

    paged = related("glossary/paged-attention/index.html", "Implemented by")
    assert paged["NVIDIA Dynamo"] == "(partly)" and paged["vLLM"] == ""
    gguf = related("glossary/gguf/index.html", "Supported by")
    assert gguf["vLLM"] == "(through a plugin)" and gguf["llama.cpp"] == ""
