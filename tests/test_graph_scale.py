"""The global graph page at 5,000 nodes, in Chromium: the real page and scripts, fed a
graph built by the real pipeline from a synthetic 5,000-entry knowledge base. Every action
(zoom, filter, find) redraws the canvas, and find then a click opens the found entry's neighbourhood, at
the real size and at 5,000 nodes. How long the redraws take is measured by the browser
benchmark (`make bench-browser`), not asserted here: it depends on the machine's load."""

from pathlib import Path

import pytest

from conftest import serve
from bench.browser import big_graph_site, graph_session


@pytest.fixture(scope="module")
def big_site(site: Path, tmp_path_factory):
    out, g = big_graph_site(site, tmp_path_factory.mktemp("graph5k"))
    assert g.number_of_nodes() >= 5000
    return out, g


def test_graph_page_redraws_and_opens_the_found_entry_at_the_real_size_and_at_5000_nodes(browser, site, big_site):
    out, g = big_site
    some = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "engine")[0]
    with serve(site) as base:
        real = graph_session(browser, base, "vLLM")
    with serve(out) as base:
        big = graph_session(browser, base, g.nodes[some]["title"])
    for session in (real, big):
        assert len(session["frames_ms"]) == 6  # three zooms, a filter off and on, a find: each redrew
    assert real["opened"] == "vllm"  # the click shows the found node's neighbourhood
    assert big["opened"] == some
