"""The concept graph page a reader can use, in real Chromium: a legend, filters folded away
with human labels, typed relations by default, find and path by title or alias, and a
phone layout."""

import pytest
from conftest import goto



@pytest.mark.parametrize("width", [1366, 390])
def test_graph_page_reads_and_fits(browser, base, width):
    page = browser.new_page(viewport={"width": width, "height": 844})
    goto(page, base + "/graph/")
    page.wait_for_function("document.querySelector('#atlas-graph').dataset.frames >= '1'", timeout=120_000)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    legend = page.locator(".atlas-graph__legend").inner_text()
    assert all(k in legend for k in ("Engine", "Hardware", "Model", "Term", "Guide"))
    assert page.evaluate("document.querySelector('.atlas-graph__filters').open") is False  # folded away
    labels = page.locator(".atlas-graph__filter label").all_text_contents()
    assert labels and not [t for t in labels if "_" in t]  # "is bottlenecked by", not bottlenecked_by
    mentions = page.locator(".atlas-graph__filter input[data-key='r'][value='mentions']")
    assert mentions.count() == 1 and not mentions.is_checked()  # typed relations by default
    page.close()


def test_find_and_path_accept_aliases_and_prefer_typed_relations(browser, base):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    goto(page, base + "/graph/")
    page.wait_for_function("document.querySelector('#atlas-graph').dataset.frames >= '1'", timeout=120_000)
    page.locator(".atlas-path__from").fill("vLLM")
    page.locator(".atlas-path__to").fill("memory bandwidth")
    page.locator(".atlas-path__go").click()
    steps = page.locator(".atlas-path__steps li").all_inner_texts()
    assert steps[0] == "vLLM" and steps[-1].endswith("Memory bandwidth")
    assert not any(s.lower().startswith(("mentions", "is mentioned by")) for s in steps[1:])
    page.locator(".atlas-graph__search").fill("H100 SXM5")  # an alias, not the title
    page.locator(".atlas-graph__search").press("Enter")
    page.wait_for_url("**/hardware/nvidia-h100-sxm/", timeout=120_000)
    page.close()
