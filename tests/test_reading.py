"""Reading in Chromium: hover cards on linked terms, keyboard access, and search by alias."""

import pytest
from playwright.sync_api import expect
from conftest import goto



@pytest.fixture(scope="module")
def served(mini_site, browser):
    return mini_site[1], browser


@pytest.fixture
def engine_page(served):
    """Engine X's page, whose body mentions the KV cache (auto-linked), and that term link."""
    base, browser = served
    page = browser.new_page()
    goto(page, base + "/engines/engine-x/")
    yield page, page.locator("article a.atlas-term[data-atlas-id='kv-cache']").first
    page.close()


def test_hovering_a_term_shows_its_card(engine_page):
    page, term = engine_page
    term.hover()
    card = page.locator("#atlas-card")
    expect(card).to_be_visible()
    assert card.locator(".atlas-card__cat").inner_text() == "Memory"
    assert "Stored keys and values of processed tokens" in card.inner_text()
    assert card.locator("a.atlas-card__open").get_attribute("href").rstrip("/").endswith("/glossary/kv-cache")


def test_keyboard_focus_shows_the_card_and_escape_hides_it(engine_page):
    page, term = engine_page
    term.focus()
    card = page.locator("#atlas-card")
    expect(card).to_be_visible()
    assert term.get_attribute("aria-describedby") == "atlas-card"
    page.keyboard.press("Escape")
    expect(card).to_be_hidden()


@pytest.mark.parametrize("width", [390, 1366])
def test_on_a_touch_screen_one_tap_goes_and_a_long_press_shows_the_card(served, width):
    """Issue 37: a tap on a term link opens the entry at once (it used to take two taps);
    holding the link shows its card and stays on the page, at phone and tablet-landscape widths."""
    base, browser = served
    context = browser.new_context(viewport={"width": width, "height": 844}, has_touch=True, is_mobile=width < 600)
    page = context.new_page()
    goto(page, base + "/engines/engine-x/")
    term = page.locator("article a.atlas-term[data-atlas-id='kv-cache']").first
    card = page.locator("#atlas-card")
    box = term.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = context.new_cdp_session(page)
    # a long press: the finger stays down past the press time, then lifts
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    page.wait_for_timeout(700)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    expect(card).to_be_visible()
    assert "Stored keys and values of processed tokens" in card.inner_text()
    page.wait_for_timeout(300)
    assert page.url.endswith("/engines/engine-x/")  # the press showed the card; it did not navigate
    # a tap elsewhere closes it; a tap on the term follows the link
    page.touchscreen.tap(5, 400)
    expect(card).to_be_hidden()
    page.wait_for_timeout(900)  # past the window in which a tap's synthesised mouse events are ignored
    term.tap()
    page.wait_for_url("**/glossary/kv-cache/")
    context.close()


def test_without_javascript_a_term_is_a_plain_link(served):
    base, browser = served
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(base + "/engines/engine-x/")
    link = page.locator("article a.atlas-term[data-atlas-id='kv-cache']").first
    link.click()
    page.wait_for_url("**/glossary/kv-cache/")
    context.close()


@pytest.mark.parametrize("query, title", [("decoding", "Decode"), ("KV-cache", "KV cache"), ("half precision", "FP16")])
def test_search_finds_an_entry_by_alias_first(served, query, title):
    base, browser = served
    page = browser.new_page()
    goto(page, base + "/")
    page.keyboard.press("/")
    page.locator("input.md-search__input").press_sequentially(query, delay=20)  # Material reacts to key events
    # Material's full-text index ranks the entry first too; the page is already the first of
    # the entry results above, so the full-text list keeps it hidden rather than show it twice.
    first = page.locator(".md-search-result__list:not(.atlas-search) .md-search-result__item").first
    first.wait_for(state="attached", timeout=120_000)  # its index builds in a worker: slow on a loaded machine
    assert first.locator("h1, h2").first.text_content().strip() == title
    assert page.locator(".atlas-search .md-search-result__item h1").first.evaluate("h => h.firstChild.textContent.trim()") == title
    expect(first).to_be_hidden()
    page.close()
