"""Hostile text in every field of every kind renders inert: built for real, parsed, and
opened in Chromium to check that no injected script runs."""

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import minikb
from conftest import mkdocs_build, serve, goto

PAYLOAD = ' <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> </script><!-- -->'


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    root = minikb.write(tmp_path_factory.mktemp("hostile") / "repo", PAYLOAD)
    site = root / "site"
    result = mkdocs_build(root, site)
    assert result.returncode == 0, result.stderr[-4000:]
    return site


def test_no_injected_element_or_handler_reaches_any_page(hostile_site):
    pages = list(hostile_site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for script in soup.find_all("script"):
            if script.get("type") == "application/ld+json":  # the entry's data, as JSON: it may hold the
                text = script.string or ""                   # payload, escaped, but can never close the element
                assert "<" not in text and json.loads(text), page
                continue
            assert "__pwned" not in (script.string or ""), page
        assert not soup.find_all(attrs={"onerror": True}), page
    # The payload is still there as visible text (escaped), not silently dropped.
    text = (hostile_site / "glossary/decode/index.html").read_text()
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in text


def test_embedded_guide_data_stays_data(hostile_site):
    html = (hostile_site / "guides/pick/index.html").read_text()
    soup = BeautifulSoup(html, "html.parser")
    widget = soup.find(id="atlas-guide")
    parsed = json.loads(widget["data-guide"])  # the attribute parses back to the original text
    assert PAYLOAD.strip() in parsed["questions"]["who"]["text"]
    raw = html[html.index('data-guide="'):]
    raw = raw[: raw.index('" data-atlas-nolink')]
    assert "<" not in raw and '"' not in raw[len('data-guide="'):]  # nothing can close the attribute or open a tag


def test_no_injected_script_runs_in_chromium(hostile_site, browser):
    with serve(hostile_site) as base:
        page = browser.new_page()
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for path in ["/glossary/decode/", "/engines/engine-x/", "/hardware/gpu-y/", "/models/model-z/",
                     "/guides/pick/", "/glossary/", "/sources/src-a/", "/graph/", "/calculator/", "/engines/compare/"]:
            goto(page, base + path)
            assert page.evaluate("window.__pwned") is None, path
        # Walk the guide: its questions and answers are injected text too.
        goto(page, base + "/guides/pick/?answers=me,laptop#walk")
        assert "Our answer" in page.locator("#atlas-guide").inner_text()
        # The hover card shows the hostile definition as text.
        goto(page, base + "/glossary/decode/")
        page.locator("article a.atlas-term").first.hover()
        assert page.evaluate("window.__pwned") is None
        assert dialogs == []
        page.close()
