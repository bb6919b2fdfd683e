"""Pages that fit and read well, in real Chromium on the real site: nothing wider than a
390 px phone, no download that grows with the corpus, values a reader can read, a folded
"Referenced by", and a hover card on every link to an entry, wherever it was written."""

import pytest
from bs4 import BeautifulSoup, SoupStrainer
from conftest import REPO, goto
from generator.pipeline import load_atlas


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


PAGES = ["/", "/glossary/kv-cache/", "/engines/vllm/", "/hardware/nvidia-h100-sxm/", "/hardware/", "/models/",
         "/guides/choose-an-engine/", "/learn/request-flow/", "/engines/compare/", "/calculator/"]


@pytest.mark.parametrize("path", PAGES)
def test_nothing_is_wider_than_a_phone_and_nothing_grows_with_the_corpus(browser, base, path):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    urls = []
    page.on("request", lambda r: urls.append(r.url))
    goto(page, base + path)
    width = page.evaluate("document.documentElement.scrollWidth")
    page.close()
    assert width <= 390, f"{path} is {width} px wide"
    # Material's instant navigation fetched sitemap.xml (105 KB, growing with every entry) on every page view.
    assert not [u for u in urls if "sitemap" in u or "search_index" in u or "entries.json" in u], urls


def test_values_read_as_words_and_years_as_years(site):
    hardware = BeautifulSoup((site / "hardware/index.html").read_text(), "html.parser")
    cells = {td.get_text(strip=True) for td in hardware.select("article td")}
    assert "Data centre" in cells and "Unified memory" in cells and not cells & {"data-centre", "unified-memory", "gpu", "soc", "very-tight", "moderate"}
    models = BeautifulSoup((site / "models/index.html").read_text(), "html.parser")
    cells = {td.get_text(strip=True) for td in models.select("article td")}
    assert not cells & {"gqa", "mla", "mha", "hybrid-linear"} and any("Grouped-query" in c for c in cells)
    h100 = BeautifulSoup((site / "hardware/nvidia-h100-sxm/index.html").read_text(), "html.parser")
    released = next(tr for tr in h100.select("article tr") if tr.td and tr.td.get_text(strip=True) == "Released")
    assert released.find_all("td")[1].get_text(strip=True).startswith("2022")
    assert "2,022" not in h100.get_text()


def test_referenced_by_is_grouped_by_kind_and_folded(site):
    soup = BeautifulSoup((site / "glossary/kv-cache/index.html").read_text(), "html.parser")
    heading = soup.find(id="backlinks")
    groups = heading.find_next_siblings("details")
    assert len(groups) >= 2 and all(g.get("open") is None for g in groups)  # folded
    labels = [g.summary.get_text(strip=True) for g in groups]
    assert any(label.startswith("Glossary (") for label in labels) and any(label.startswith("Engines (") for label in labels)


def test_every_link_to_an_entry_gets_a_card_that_names_the_entry(browser, base, site):
    # A hand-written Markdown link on a learn page and a link in a related list: neither made by the linker.
    soup = BeautifulSoup((site / "learn/request-flow/index.html").read_text(), "html.parser")
    entry_links = [a for a in soup.select("article a[href]") if a["href"].startswith("../../glossary/")]
    assert entry_links and all(a.get("data-atlas-id") for a in entry_links)
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    goto(page, base + "/glossary/kv-cache/")
    link = page.locator("#backlinks ~ details a[data-atlas-id]").first
    page.locator("#backlinks ~ details summary").first.click()
    link.hover()
    card = page.locator("#atlas-card")
    card.wait_for(state="visible")
    title = link.get_attribute("data-atlas-title")
    assert card.locator(".atlas-card__title").inner_text() == title
    page.close()


def test_no_term_is_linked_inside_a_source_title(site):
    """A source's title names another thing ("vLLM documentation, Disaggregated Prefilling"):
    the linker leaves Sources lists alone on every page, entry, pair and learn pages alike."""
    items = 0
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if "atlas-source" not in text:
            continue
        # Only the Sources lists are parsed: the whole of ~800 pages took half a minute.
        for item in BeautifulSoup(text, "html.parser", parse_only=SoupStrainer(class_="atlas-source")).select(".atlas-source"):
            items += 1
            assert not item.select("a.atlas-term"), (page, item.get_text()[:80])
    assert items > 1000


def test_entry_pages_give_the_empty_sidebar_to_their_content(browser, base):
    """Entry pages are not in the nav: a left sidebar there stood empty beside tables that
    wrapped device names over three lines. It is gone, and the content is wider for it."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    widths = {}
    for path in ("/hardware/nvidia-h100-sxm/", "/learn/request-flow/"):
        goto(page, base + path)
        widths[path] = page.evaluate("document.querySelector('.md-content').getBoundingClientRect().width")
        primary = page.evaluate("""(() => { const s = document.querySelector('.md-sidebar--primary');
            return s ? getComputedStyle(s).display !== 'none' && s.getBoundingClientRect().width > 0 : false; })()""")
        assert primary == (path == "/learn/request-flow/"), path  # a learn page keeps its nav
    page.close()
    assert widths["/hardware/nvidia-h100-sxm/"] > widths["/learn/request-flow/"] + 150


def test_a_quantization_toolkit_is_not_listed_as_an_engine(site):
    """AutoRound makes quantized weights and serves nothing: it is a glossary term, and its
    old engine address sends readers there."""
    engines = BeautifulSoup((site / "engines/index.html").read_text(), "html.parser")
    assert "AutoRound" not in engines.select_one("article table").get_text()
    assert (site / "glossary/autoround/index.html").exists()
    moved = (site / "engines/autoround/index.html").read_text()
    assert "../../glossary/autoround/" in moved


def _boxes(page, selector):
    return page.evaluate(f"""() => Array.from(document.querySelectorAll({selector!r})).map(e => {{
        const r = e.getBoundingClientRect(); return {{text: e.textContent.trim(), l: r.left, r: r.right, t: r.top, b: r.bottom}}; }})""")


def _overlap(a, b) -> bool:
    return a["l"] < b["r"] - 1 and b["l"] < a["r"] - 1 and a["t"] < b["b"] - 1 and b["t"] < a["b"] - 1


@pytest.mark.parametrize("width", [1366, 390])
def test_the_home_request_flow_is_a_chain_and_the_neighbourhood_labels_never_collide(browser, base, width):
    """The home page's request path reads as a chain of steps (not one full-width box per
    line, which a clash with the guides' flowchart style once made it), and an entry's
    neighbourhood shows every label whole, inside the screen, none on top of another."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    goto(page, base + "/")
    steps = _boxes(page, ".atlas-reqflow a")
    assert len(steps) == 7
    rows = {round(s["t"]) for s in steps}
    assert len(rows) <= (2 if width == 1366 else 4), rows  # several steps share a line
    goto(page, base + "/glossary/kv-cache/")
    nodes = _boxes(page, ".atlas-local__node")
    assert len(nodes) >= 8
    for i, a in enumerate(nodes):
        assert 0 <= a["l"] and a["r"] <= width, a
        assert not any(_overlap(a, b) for b in nodes[i + 1:]), a
    whole = page.evaluate("Array.from(document.querySelectorAll('.atlas-local__node')).every(e => e.scrollWidth <= e.clientWidth + 1)")
    assert whole, "a neighbourhood label is cut off"
    page.close()


def test_no_generated_page_shows_markdown_syntax_as_text(site):
    """Attribute lists, wiki links, citation keys and code backticks are syntax for the build, never text a
    reader sees (a template's trimmed newline once left "{: .atlas-note }" at the end of a
    paragraph on every page with measurements); code is allowed to show them."""
    import re

    strip = re.compile(r"<(pre|code|script|style)\b.*?</\1>|<[^>]+>", re.S)
    shown = []
    for folder in ("glossary", "engines", "hardware", "models", "guides", "sources", "categories"):
        for html in (site / folder).rglob("index.html"):
            text = strip.sub(" ", html.read_text(encoding="utf-8"))
            for pattern in ("{: ", "{ .atlas", "[[", "[@", "`"):
                if pattern in text:
                    shown.append((str(html.relative_to(site)), pattern))
    assert not shown, shown[:10]


@pytest.mark.parametrize("width", [1366, 390])
def test_a_model_page_groups_devices_by_where_they_run(browser, base, width):
    """Issue 35 item 6: a model page's fit table listed the 24 devices with the most memory,
    so an RTX 3060 or an M3 Max owner found no row. Devices are now grouped (data centre,
    workstation, consumer GPU, unified memory, edge), one tab each: picking 'Consumer GPU'
    shows the consumer cards alone, the RTX 3060 among them, and hides the data-centre parts."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    goto(page, base + "/models/llama-3-1-8b/")
    labels = page.locator(".atlas-fit-groups .tabbed-labels label")
    assert [t.split(" (")[0] for t in labels.all_inner_texts()] == [
        "Data centre", "Workstation", "Consumer GPU", "Unified memory", "Edge"]
    shown = page.locator(".atlas-fit-groups .tabbed-block:visible tbody tr td:first-child")
    assert "NVIDIA H100 SXM" in shown.all_inner_texts() and "NVIDIA GeForce RTX 3060 12 GB" not in shown.all_inner_texts()
    labels.filter(has_text="Consumer GPU").click()
    names = shown.all_inner_texts()
    assert "NVIDIA GeForce RTX 3060 12 GB" in names and "NVIDIA H100 SXM" not in names
    assert labels.filter(has_text="Consumer GPU").inner_text() == f"Consumer GPU ({len(names)})"
    labels.filter(has_text="Unified memory").click()
    assert "Apple M3 Max" in shown.all_inner_texts()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()


def test_a_device_page_offers_every_model_grouped_by_size(site, atlas):
    """A device page listed the first 24 models in alphabetical order, so the L40S page had
    DeepSeek and Gemma but no Qwen3 or Phi-4. Now every model is there, grouped by total
    parameters, smallest first within a group; each tab's count is its rows."""
    from generator.knowledge.calc import model_spec

    soup = BeautifulSoup((site / "hardware/nvidia-l40s/index.html").read_text(), "html.parser")
    tabs = soup.find(id="fit").find_next("div", class_="atlas-fit-groups")
    labels = [lab.get_text(strip=True) for lab in tabs.select(".tabbed-labels label")]
    blocks = tabs.select(".tabbed-content > .tabbed-block")
    assert [lab.split(" (")[0] for lab in labels] == ["Up to 10B", "10B to 40B", "40B to 150B", "Over 150B"]
    names = [[tr.td.get_text(strip=True) for tr in b.select("tbody tr")] for b in blocks]
    assert [f"({len(n)})" for n in names] == [lab[lab.index("("):] for lab in labels]
    assert sorted(x for n in names for x in n) == sorted(m.title for m in atlas.of_kind("model"))
    bounds = [(0, 10), (10, 40), (40, 150), (150, float("inf"))]
    by_title = {m.title: model_spec(m).params_b for m in atlas.of_kind("model")}
    for (low, high), group in zip(bounds, names):
        sizes = [by_title[t] for t in group]
        assert all(low < b <= high for b in sizes) and sizes == sorted(sizes)
    assert "Qwen3 8B" in names[0] and "Phi-4" in names[1] and "DeepSeek-R1" in names[3]


def test_a_model_page_leaves_no_device_out(site, atlas):
    """Every device with a memory figure (racks and product families aside) has its row on a
    model page, in the tab of its segment: a T4 or A40 renter finds their card."""
    soup = BeautifulSoup((site / "models/qwen3-8b/index.html").read_text(), "html.parser")
    tabs = soup.find(id="fit").find_next("div", class_="atlas-fit-groups")
    shown = [tr.td.get_text(strip=True) for tr in tabs.select("tbody tr")]
    devices = [e.title for e in atlas.of_kind("hardware")
               if (e.get("specs") or {}).get("memory_gb") and e.get("class") not in ("cluster", "family")]
    assert sorted(shown) == sorted(devices) and "NVIDIA T4" in shown and "NVIDIA A40" in shown
