"""Real Chromium (Debian's /usr/bin/chromium, driven by Playwright) against the built site
served on loopback: what a reader's browser loads and sees."""

import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def server(site: Path):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture(scope="session")
def browser():
    assert Path(CHROMIUM).exists(), "Debian's chromium is required (make test installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


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
    tab.goto(server + path, wait_until="networkidle")
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
