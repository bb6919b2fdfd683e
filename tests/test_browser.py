"""Real Chromium (Debian's /usr/bin/chromium, driven by Playwright) against the built site
served on loopback: what a reader's browser loads and sees."""

from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import serve, goto

@pytest.fixture(scope="session")
def server(site: Path):
    with serve(site) as url:
        yield url


@pytest.fixture
def tab(browser):
    context = browser.new_context()
    page = context.new_page()
    yield page
    context.close()


@pytest.mark.parametrize("path", ["/", "/glossary/kv-cache/", "/glossary/"])
def test_pages_render_and_request_nothing_outside_the_machine(tab, server, path):
    requested: list[str] = []
    tab.on("request", lambda r: requested.append(r.url))
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    goto(tab, server + path)
    assert tab.locator("article h1").first.is_visible()
    outside = [u for u in requested if urlparse(u).hostname not in ("127.0.0.1",) and not u.startswith("data:")]
    assert outside == []
    assert errors == []


def test_entry_page_links_lead_to_other_entries(tab, server):
    tab.goto(server + "/glossary/kv-cache/")
    lead = tab.locator(".atlas-lead")
    assert "keys and values" in lead.inner_text()
    tab.locator("article a[href*='paged-attention']").first.click()
    tab.wait_for_url("**/glossary/paged-attention/")
    assert tab.locator("article h1").first.inner_text().startswith("PagedAttention")


def test_guide_walk_share_reload_and_back(tab, server):
    goto(tab, server + "/guides/choose-an-engine/")
    guide = tab.locator("#atlas-guide")
    assert "Who will use the model?" in guide.inner_text()
    # Keyboard: focus the option and press Enter.
    tab.locator(".atlas-guide__option[data-option='just-me']").focus()
    tab.keyboard.press("Enter")
    assert "Where will the model run?" in guide.inner_text()
    tab.locator(".atlas-guide__option[data-option='rtx']").click()
    tab.locator(".atlas-guide__option[data-option='two-to-four']").click()
    answer = guide.inner_text()
    assert "Our answer" in answer and "ExLlamaV3" in answer and "Why this answer" in answer
    assert "Sources disagree" in answer
    shared = tab.url
    assert "answers=just-me,rtx,two-to-four" in shared
    goto(tab, shared)  # a reader opening the shared link
    assert tab.locator("#atlas-guide").inner_text() == answer
    tab.locator(".atlas-guide__back").click()
    assert "How many RTX cards?" in tab.locator("#atlas-guide").inner_text()
    assert "answers=just-me,rtx" in tab.url and "two-to-four" not in tab.url


def test_guide_flowchart_is_html_and_loads_nothing_from_outside(tab, server):
    # The flowcharts are drawn in HTML at build time (one per question, readable at any
    # width: tests/test_guide_flowchart.py): no diagram renderer, nothing from elsewhere.
    requested = []
    tab.on("request", lambda r: requested.append(r.url))
    goto(tab, server + "/guides/choose-an-engine/")
    assert tab.locator(".atlas-flow__chart").count() >= 5
    assert all(urlparse(u).hostname == "127.0.0.1" for u in requested if not u.startswith("data:"))


def test_local_graph_shows_the_neighbours(tab, server):
    goto(tab, server + "/engines/vllm/")
    nodes = tab.locator(".atlas-local .atlas-local__node[href]")
    assert nodes.count() >= 5
    hrefs = [nodes.nth(i).get_attribute("href") for i in range(nodes.count())]
    assert any("paged-attention" in h for h in hrefs)
    nodes.first.click()
    tab.wait_for_url(lambda url: "/engines/vllm/" not in url)  # the click navigates to the node's page


def test_graph_page_click_shows_the_neighbourhood_and_open_entry_goes_there(tab, server):
    goto(tab, server + "/graph/?view=all")
    canvas = tab.locator("canvas.atlas-graph__canvas")
    canvas.wait_for()
    # Find vLLM: the view centres on it, so a click at the canvas centre shows its neighbourhood.
    tab.fill(".atlas-graph__search", "vLLM")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    tab.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tab.wait_for_function("document.querySelector('#atlas-graph').dataset.centre === 'vllm'")
    tab.click(".atlas-near__open")
    tab.wait_for_url("**/engines/vllm/")
    assert tab.locator("article h1").first.inner_text().startswith("vLLM")


def test_graph_page_finds_a_typed_path(tab, server):
    goto(tab, server + "/graph/")
    tab.fill(".atlas-path__from", "vLLM")
    tab.fill(".atlas-path__to", "Memory bandwidth")
    tab.click(".atlas-path__go")
    steps = tab.locator(".atlas-path__steps li:not(.atlas-path__used)")
    assert steps.count() >= 2
    assert steps.first.inner_text() == "vLLM"
    assert steps.last.inner_text().endswith("Memory bandwidth")


def test_hardware_guide_hands_the_model_to_the_calculator(tab, server):
    goto(tab, server + "/guides/choose-hardware-for-a-model/?answers=large,me#walk")
    guide = tab.locator("#atlas-guide")
    assert "Apple M4 Max" in guide.inner_text()
    guide.locator("a", has_text="Check fit and speed in the calculator").click()
    tab.wait_for_url("**/calculator/?model=llama-3-70b*")
    tab.wait_for_selector("tr[data-device='nvidia-rtx-pro-6000-blackwell']", state="attached")  # among the rows behind "show all"
    assert tab.locator("#calc-model").input_value() == "llama-3-70b"
    assert tab.locator("#calc-bits").input_value() == "4.89"
    # 70B at 4.89 bits (49.0 GB with a 4K cache and 10%) does not fit a single 24 GB card (24 GiB,
    # 25.8 GB): two, split; it does fit a 96 GB one.
    assert tab.locator("tr[data-device='nvidia-rtx-4090'] .atlas-calc__fits").inner_text() == "no: needs 2"
    assert tab.locator("tr[data-device='nvidia-rtx-pro-6000-blackwell'] .atlas-calc__fits").inner_text() == "yes"


def test_search_index_waits_for_the_reader_and_then_finds_aliases_first(tab, server):
    """The index (which grows with the corpus) is not part of a page view; the first search
    fetches it, and an abbreviation or spelling variant puts its entry first."""
    requested = []
    tab.on("request", lambda r: requested.append(r.url))
    goto(tab, server + "/glossary/kv-cache/")
    assert not any("search_index.json" in u for u in requested)
    box = tab.locator("input.md-search__input")
    tab.keyboard.press("/")
    for query, title in [("TTFT", "Time to first token"), ("MTP", "Multi-token prediction"), ("TP", "Tensor parallelism"),
                         ("MoE", "Mixture of experts"), ("key-value cache", "KV cache"), ("KV-cache", "KV cache"),
                         ("TPOT", "Time per output token"), ("GQA", "Grouped-query attention"), ("tok/s", "Tokens per second"),
                         ("paged attention", "PagedAttention"), ("llama.cpp", "llama.cpp"), ("H100", "NVIDIA H100")]:
        box.fill("")
        box.press_sequentially(query, delay=20)  # Material reacts to key events
        first = tab.locator(".md-search-result__item").first
        first.wait_for(timeout=120_000)
        # The worker answers each keystroke in turn (about 0.15 s a query here when idle, but
        # up to 6 s for the last of T, TP, TPO, TPOT with both cores busy): wait for the
        # final query's answer, then judge its ranking.
        try:
            tab.wait_for_function("t => { const h = document.querySelector('.md-search-result__item h1, .md-search-result__item h2');"
                                  " return h && h.textContent.trim().toLowerCase().startsWith(t); }", arg=title.lower(), timeout=120_000)
        except PlaywrightTimeout:
            top = tab.locator(".md-search-result__item h1, .md-search-result__item h2").first.text_content()
            pytest.fail(f"searching {query!r} puts {top!r} first, not {title!r}")
    assert sum("search_index.json" in u for u in requested) == 1
