"""docs/assets/atlas-embed.js on another site, in Chromium: a host page served from a
second loopback port (another origin) adds the one script tag and gets hover cards for
the terms it mentions, read from this site's glossary.json without cookies; code, links
and headings are left alone, the keyboard works, and neither side's styles reach the
other. Also the entry pages' own 'Copy as Markdown'."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from playwright.sync_api import expect

from conftest import serve, goto

HOST_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A blog post</title>
<style>p {{ color: rgb(200, 0, 0); }} div {{ border: 7px solid rgb(0, 200, 0); }} strong {{ font-size: 40px; }}</style>
</head><body>
<h1>Why the KV cache matters</h1>
<p id="first">Serving a model means managing the KV cache well; PagedAttention does it in blocks.
The KV cache comes up again here, and vLLM uses PagedAttention too.</p>
<pre><code>prefill then decode</code></pre>
<p id="linked">Already a link: <a href="https://example.com/">prefill</a>.</p>
<p id="later">After the prompt's prefill, each decode step reads the weights.</p>
<p data-atlas-skip id="skipped">Speculative decoding is mentioned here but skipped.</p>
<button id="after">A button</button>
<script src="{site}/assets/atlas-embed.js" defer></script>
</body></html>
"""


@pytest.fixture
def host(tmp_path: Path, base: str):
    (tmp_path / "index.html").write_text(HOST_PAGE.format(site=base), encoding="utf-8")
    with serve(tmp_path) as url:
        yield url


@pytest.fixture
def tab(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def _wait_for_terms(tab) -> None:
    tab.wait_for_selector("a[data-atlas-embed]", timeout=15_000)


def test_the_embed_links_first_mentions_cross_origin_without_cookies(tab, host, base):
    assert urlparse(host).port != urlparse(base).port  # two origins
    requests = []
    tab.on("request", lambda r: requests.append(r))
    errors = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    # A cookie the host's origin holds: cookies ignore ports, so the glossary request would carry it
    tab.context.add_cookies([{"name": "session", "value": "secret", "url": host}])
    goto(tab, host + "/")
    _wait_for_terms(tab)
    assert errors == []
    glossary = [r for r in requests if r.url.endswith("/glossary.json")]
    assert len(glossary) == 1 and glossary[0].url.startswith(base)
    headers = glossary[0].all_headers()
    assert "cookie" not in headers and "referer" not in headers
    assert all(urlparse(r.url).hostname == "127.0.0.1" for r in requests)
    terms = tab.eval_on_selector_all("a[data-atlas-embed]", "els => els.map(a => [a.dataset.atlasEmbed, a.textContent, a.href, a.closest('p') && a.closest('p').id])")
    ids = [t[0] for t in terms]
    assert len(ids) == len(set(ids))  # each term once: its first mention
    by_id = {t[0]: t for t in terms}
    assert by_id["kv-cache"][1:] == ["KV cache", base + "/glossary/kv-cache/", "first"]  # not the heading's
    assert by_id["paged-attention"][3] == "first" and by_id["vllm"][2] == base + "/engines/vllm/"
    assert by_id["prefill"][3] == "later" and by_id["decode"][3] == "later"  # not in code, not inside a link
    assert "speculative-decoding" not in by_id
    assert tab.locator("h1 a, pre a, #linked a[data-atlas-embed], button a").count() == 0
    # No stylesheet added to the host page; the host's styles unchanged
    assert tab.evaluate("document.styleSheets.length") == 1
    assert tab.evaluate("getComputedStyle(document.getElementById('first')).color") == "rgb(200, 0, 0)"


def test_the_card_on_hover_and_keyboard_with_styles_kept_apart(tab, host, base):
    goto(tab, host + "/")
    _wait_for_terms(tab)
    term = tab.locator("a[data-atlas-embed='kv-cache']")
    card = tab.locator("#atlas-embed-card")
    term.hover()
    card.locator(".card").wait_for(state="visible")
    assert card.locator(".title").inner_text() == "KV cache"
    assert "keys and values" in card.locator(".short").inner_text()
    assert card.locator(".open").get_attribute("href") == base + "/glossary/kv-cache/"
    assert term.get_attribute("aria-describedby") == "atlas-embed-card" and card.get_attribute("role") == "tooltip"
    # The host's rules for p, div and strong do not reach into the card
    style = card.locator(".title").evaluate("el => [getComputedStyle(el).fontSize, getComputedStyle(el.parentNode).borderTopWidth]")
    assert style == ["15px", "1px"]
    assert card.locator(".short").evaluate("el => getComputedStyle(el).color") != "rgb(200, 0, 0)"
    # Keyboard: move away, then Tab to a term; Escape closes its card
    tab.mouse.move(5, 880)
    expect(card).to_be_hidden()  # waits out the card's 250 ms grace without a fixed sleep
    tab.locator("a[data-atlas-embed='paged-attention']").focus()
    card.locator(".card").wait_for(state="visible")
    assert card.locator(".title").inner_text() == "PagedAttention"
    tab.keyboard.press("Escape")
    assert not card.is_visible()
    tab.keyboard.press("Shift+Tab")  # the previous link is the KV cache term
    card.locator(".card").wait_for(state="visible")
    assert card.locator(".title").inner_text() == "KV cache"


def test_on_a_phone_the_card_is_a_sheet_within_the_screen(browser, host):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    tab = context.new_page()
    goto(tab, host + "/")
    _wait_for_terms(tab)
    term = tab.locator("a[data-atlas-embed='kv-cache']")
    term.tap()  # the first tap shows the card and stays on the page
    tab.locator("#atlas-embed-card .card").wait_for(state="visible")
    assert tab.url.startswith(host)
    box = tab.locator("#atlas-embed-card .card").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    context.close()


def test_copy_as_markdown_puts_the_entrys_markdown_on_the_clipboard(browser, base):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    goto(tab, base + "/glossary/kv-cache/")
    link = tab.locator("a[data-atlas-copy]")
    link.click()
    tab.wait_for_function("document.querySelector('a[data-atlas-copy]').textContent === 'Copied'")
    text = tab.evaluate("navigator.clipboard.readText()")
    assert text.startswith("# KV cache\n\n> ") and "## Sources" in text
    assert tab.url == base + "/glossary/kv-cache/"
    context.close()
