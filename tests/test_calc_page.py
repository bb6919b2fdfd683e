"""The calculator page in Chromium: same numbers as the Python calculator, clear messages
for bad input, and the state kept in the URL."""

import pytest

from generator.calc import device_spec, estimate, model_spec
from generator.pipeline import load_atlas


@pytest.fixture(scope="module")
def served(mini_site, browser):
    root, url = mini_site
    return root, url, browser


def test_page_numbers_match_the_python_calculator(served):
    root, base, browser = served
    atlas = load_atlas(root)
    m, d = model_spec(atlas.entries["model-z"]), device_spec(atlas.entries["gpu-y"])
    expected = estimate(m, d, 4.85, 8192, 2)
    page = browser.new_page()
    page.goto(base + "/calculator/", wait_until="networkidle")
    page.select_option("#calc-format", "4.85")
    page.fill("#calc-context", "8192")
    page.fill("#calc-seqs", "2")
    row = page.locator("tr[data-device='gpu-y']")
    assert row.locator(".atlas-calc__fits").inner_text() == ("yes" if expected.fits else "no")
    assert row.locator(".atlas-calc__decode").inner_text() == f"{expected.decode_tps:,.0f} tok/s"
    assert f"Needs {expected.total_gb:,.1f} GB" in page.locator(".atlas-calc__summary").inner_text()
    # The state is in the URL: reloading it gives the same answer.
    page.goto(page.url, wait_until="networkidle")
    assert page.locator("tr[data-device='gpu-y'] .atlas-calc__decode").inner_text() == f"{expected.decode_tps:,.0f} tok/s"
    page.close()


@pytest.mark.parametrize("field, value, message", [
    ("#calc-context", "0", "Tokens per sequence must be greater than zero"),
    ("#calc-context", "-5", "Tokens per sequence must be greater than zero"),
    ("#calc-context", "abc", "must be a number"),
    ("#calc-seqs", "", "Sequences at once is empty"),
    ("#calc-seqs", "1000000", "outside the range"),
])
def test_bad_input_is_explained_in_the_page(served, field, value, message):
    _, base, browser = served
    page = browser.new_page()
    page.goto(base + "/calculator/", wait_until="networkidle")
    page.fill(field, value)
    assert message in page.locator(".atlas-calc__error").inner_text()
    assert page.locator(".atlas-calc__table tr").count() == 0
    page.close()
