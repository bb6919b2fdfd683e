"""Budgets a reader feels: the home page, a glossary entry and a guide page each transfer
at most 500 KB with nothing fetched from outside the site, and Lighthouse (the npm package,
run against Debian's Chromium, offline) scores accessibility >= 95 and finds the page within
budgets that do not depend on the machine's speed: bytes, requests, script size, layout
shift. Timings and the performance score are in the browser benchmark.

The site is served gzip-compressed, as every static host serves it; see conftest."""

from pathlib import Path
from urllib.parse import urlparse

import pytest

from conftest import serve, goto
from bench.browser import LIGHTHOUSE, PAGES, lighthouse

BUDGET_BYTES = 500 * 1000
MAX_REQUESTS = 25  # the page, Material's bundle and styles, our assets: a fixed set, not one per entry
MAX_SCRIPT_BYTES = 150 * 1000  # gzip-compressed JavaScript a page view transfers
MAX_LAYOUT_SHIFT = 0.1  # Google's "good" threshold for cumulative layout shift


@pytest.fixture(scope="module")
def gz_server(site: Path):
    with serve(site, compress=True) as url:
        yield url


@pytest.mark.parametrize("path", PAGES)
def test_page_weight_within_budget_and_nothing_from_outside(browser, gz_server, path):
    context = browser.new_context()
    page = context.new_page()
    responses = []
    page.on("requestfinished", lambda r: responses.append(r))
    goto(page, gz_server + path)
    page.wait_for_timeout(500)  # late requests (workers, lazy scripts) get their chance
    outside = [r.url for r in responses if urlparse(r.url).hostname != "127.0.0.1" and not r.url.startswith("data:")]
    assert outside == []
    total = sum(r.sizes()["responseBodySize"] + r.sizes()["responseHeadersSize"] for r in responses)
    context.close()
    assert total <= BUDGET_BYTES, f"{path} transferred {total:,} bytes"
    assert total > 50_000  # the measurement saw the page's styles and scripts


@pytest.fixture(scope="module")
def lighthouse_reports(gz_server, tmp_path_factory):
    """One Lighthouse run per page. Only its deterministic findings are asserted below; its
    performance score and paint timings move with the machine's load (0.88 to 0.97 for
    the same page), so they are measured, with their spread, by `make bench-browser`."""
    assert LIGHTHOUSE.exists(), "Lighthouse is not installed: run `make test`, which runs `npm ci`"
    out = tmp_path_factory.mktemp("lighthouse")
    return {path: lighthouse(gz_server + path, out / f"{path.strip('/').replace('/', '_') or 'home'}.json")
            for path in PAGES}


def _failing(report, category):
    audits = report["audits"]
    return [f"{a}: {audits[a].get('title')}" for a in (ref["id"] for ref in report["categories"][category]["auditRefs"])
            if audits[a].get("score") is not None and audits[a]["score"] < 1 and audits[a].get("scoreDisplayMode") == "binary"]


@pytest.mark.parametrize("path", PAGES)
def test_lighthouse_accessibility_and_deterministic_budgets(lighthouse_reports, path):
    report = lighthouse_reports[path]
    a11y = report["categories"]["accessibility"]["score"]
    assert a11y >= 0.95, (a11y, _failing(report, "accessibility"))
    audits = report["audits"]
    assert audits["total-byte-weight"]["numericValue"] <= BUDGET_BYTES
    summary = {item["resourceType"]: item for item in audits["resource-summary"]["details"]["items"]}
    assert summary["total"]["requestCount"] <= MAX_REQUESTS, summary["total"]
    assert summary["script"]["transferSize"] <= MAX_SCRIPT_BYTES, summary["script"]
    assert summary.get("third-party", {"requestCount": 0})["requestCount"] == 0
    assert audits["cumulative-layout-shift"]["numericValue"] <= MAX_LAYOUT_SHIFT
