"""Search that forgives, in real Chromium on the real site: a misspelling finds the entry,
"A vs B" finds their comparison, a question about choosing or sizing finds the guide or
the calculator, and each result shows its title, kind and definition once. Nothing of it
is downloaded before the reader starts a search. (How fast it answers is measured by
`make bench-browser`, not asserted here.)"""

import json
from pathlib import Path

import pytest

from conftest import REPO, serve, goto


@pytest.fixture(scope="module")
def search_page(site: Path, browser):
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        requests = []
        page.on("request", lambda r: requests.append(r.url))
        goto(page, base + "/glossary/kv-cache/")
        before = list(requests)
        page.locator(".md-search__input").click()

        def ask(query: str) -> list[tuple[str, str, str]]:
            page.locator(".md-search__input").fill(query)
            page.wait_for_function("q => { const l = document.querySelector('.atlas-search');"
                                   " return l && l.dataset.query === q; }", arg=query, timeout=60_000)
            out = []
            for item in page.locator(".atlas-search .md-search-result__item").all():
                title = item.locator("h1").evaluate("h => h.firstChild.textContent.trim()")
                kind = item.locator(".atlas-search__kind").inner_text()
                out.append((title, kind, item.locator("p").inner_text(), item.locator("a").get_attribute("href")))
            return out
        yield ask, before, requests
        page.close()


def test_nothing_is_fetched_for_search_until_the_reader_starts_one(search_page):
    ask, before, requests = search_page
    assert not any("entries.json" in u or "minisearch" in u or "search_index" in u for u in before)
    ask("decode")
    assert any(u.endswith("/search/entries.json") for u in requests)


def test_the_entries_file_comes_before_the_full_text_index(search_page):
    """Issue 48: on a slow connection the small file that answers titles and aliases does not
    share the line with the definitions or the index of every word; each follows the one before."""
    import time

    ask, _, requests = search_page
    ask("prefill")
    for _ in range(300):  # waiting for the second request, not timing it
        if any("search_index.json" in u for u in requests):
            break
        time.sleep(0.1)
    order = [u.rsplit("/", 1)[-1] for u in requests if "/search/" in u and u.endswith(".json")]
    # the records that answer first, then the definitions the results show, then the full text
    assert order == ["entries.json", "definitions.json", "search_index.json"], order


@pytest.mark.parametrize("query, title", [("pagedatention", "PagedAttention"), ("qunatization", "Quantization"),
                                          ("kv cache", "KV cache"), ("H100 SXM", "NVIDIA H100 SXM"),
                                          ("speculativ decodng", "Speculative decoding"),
                                          ("kv cahce", "KV cache"), ("prefil", "Prefill"),  # a typo of the title itself
                                          ("wired limit", "Unified memory"), ("iogpu", "Unified memory")])  # the Mac's GPU-memory setting (issue 48)
def test_misspellings_and_exact_names_find_the_entry_first(search_page, query, title):
    ask, _, _ = search_page
    assert ask(query)[0][0] == title


def test_a_vs_query_finds_the_comparison_first(search_page):
    ask, _, _ = search_page
    results = ask("vllm vs sglang")
    assert results[0][:2] == ("vLLM vs SGLang", "Comparison")
    assert results[0][3].rstrip("/").endswith("/engines/compare/vllm-vs-sglang")
    assert {r[0] for r in results[1:3]} == {"vLLM", "SGLang"}


@pytest.mark.parametrize("query, kind", [("which gpu should I buy", "Decision guide"),
                                         ("how much vram do I need", "Calculator"),
                                         ("which engine should I use", "Decision guide")])
def test_questions_about_choosing_or_sizing_reach_a_guide_or_the_calculator(search_page, query, kind):
    ask, _, _ = search_page
    assert ask(query)[0][1] == kind


def test_a_result_shows_title_kind_and_definition_once(search_page, site):
    ask, _, _ = search_page
    results = ask("sglang")
    entries = {e["id"]: e for e in json.loads((site / "glossary.json").read_text())}
    title, kind, short, href = results[0]
    assert (title, kind) == ("SGLang", "Engine")
    assert short == entries["sglang"]["short"]
    assert len(results) == len({r[3] for r in results})  # no result twice


def test_entries_rank_above_source_pages_in_the_full_text_index(site):
    docs = json.loads((site / "search/search_index.json").read_text())["docs"]
    boost = {d["location"].split("#")[0]: d.get("boost", 1) for d in docs}
    sources = [b for loc, b in boost.items() if loc.startswith("sources/") and loc != "sources/"]
    entries = [b for loc, b in boost.items() if loc.startswith(("glossary/", "engines/")) and loc.count("/") == 2]
    assert sources and entries and max(sources) < min(entries)


def test_the_vendored_minisearch_is_the_npm_package_unchanged():
    vendored = (REPO / "docs/assets/vendor/minisearch.js").read_text().split("\n", 2)[2]
    assert vendored == (REPO / "node_modules/minisearch/dist/umd/index.js").read_text()


def test_full_text_results_do_not_repeat_entries_or_deny_them(site, browser):
    """Under the entries found for a query, Material's full-text list leaves out the pages
    already shown above it, and does not say "No matching documents" under a misspelling
    whose entry was found (both contradicted the results a reader had just been given)."""
    from urllib.parse import urlparse

    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        goto(page, base + "/")
        page.keyboard.press("/")
        box = page.locator("input.md-search__input")
        box.press_sequentially("H100", delay=30)  # Material reacts to key events
        page.wait_for_function("() => document.querySelectorAll('.md-search-result__list:not(.atlas-search) > li').length > 0"
                               " && (document.querySelector('.atlas-search') || {dataset: {}}).dataset.query === 'H100'", timeout=60_000)
        ours = {urlparse(h).path for h in page.eval_on_selector_all(".atlas-search a", "as => as.map(a => a.href)")}
        shown = page.eval_on_selector_all(".md-search-result__list:not(.atlas-search) > li:not([hidden]) a.md-search-result__link",
                                          "as => as.map(a => a.href)")
        hidden = page.eval_on_selector_all(".md-search-result__list:not(.atlas-search) > li[hidden]", "ls => ls.length")
        assert ours and hidden >= 1, (ours, hidden)
        assert not ({urlparse(h).path for h in shown} & ours), shown
        box.fill("")
        box.press_sequentially("pagedatention", delay=30)
        page.wait_for_function("() => (document.querySelector('.atlas-search') || {dataset: {}}).dataset.query === 'pagedatention'"
                               " && /matching/i.test((document.querySelector('.md-search-result__meta') || {}).textContent || '')", timeout=60_000)
        assert page.locator(".atlas-search .md-search-result__item").count() >= 1
        meta = page.locator(".md-search-result__meta")
        assert "No matching" not in meta.inner_text() or not meta.is_visible()
        page.close()


def test_a_source_page_reads_as_a_sentence_in_search_results(site):
    """Issue 37: a source page's search result ran its fact table together ('Publisher NVIDIA
    Kind datasheet Address https://... Checked 2026-11-21'); it now leads with a sentence and
    the table is left out of the index."""
    import json as _json

    docs = _json.loads((site / "search/search_index.json").read_text())["docs"]
    first = next(d for d in docs if d["location"] == "sources/nvidia-h100-datasheet/")
    text = first["text"]
    assert text.startswith("<p>Datasheet by NVIDIA; last checked ") and "Publisher" not in text and "Address" not in text
