"""Compare any engines: the matrix page as a compare view in real Chromium (pick engines,
differences only, must-support filters, state in the URL, at 1366 px and on a 390 px
phone), pair pages that lead with what differs, `atlas compare`, and device names as
people type them."""

import json
import subprocess

import pytest
from bs4 import BeautifulSoup

from conftest import BIN, REPO, goto

WANT = ["vllm", "sglang", "tensorrt-llm"]


def _visible(page):
    """Per visible table: the engine ids of its visible columns, and its visible rows' cell texts."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.atlas-matrix table'))
      .filter(t => !t.closest('.atlas-matrix').hidden)
      .map(t => ({cols: Array.from(t.tHead.rows[0].cells).slice(1).filter(c => !c.hidden)
                        .map(c => c.querySelector('a').dataset.atlasId),
                  rows: Array.from(t.tBodies[0].rows).filter(r => !r.hidden)
                        .map(r => Array.from(r.cells).slice(1).filter(c => !c.hidden).map(c => c.textContent.trim()))}))""")


@pytest.mark.parametrize("width", [1366, 390])
def test_three_engines_side_by_side_showing_only_their_differences(browser, base, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    goto(page, base + "/engines/compare/?engines=" + ",".join(WANT) + "&diff=1")
    tables = _visible(page)
    assert tables, "no table left"
    for t in tables:
        assert set(t["cols"]) <= set(WANT) and len(t["cols"]) >= 2
        for cells in t["rows"]:
            assert len(set(cells)) > 1, cells  # only rows where they differ
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Every shown answer still links its source.
    links = page.locator(".atlas-matrix td:not([hidden]) a.atlas-cell").all()
    assert links and all("/sources/" in (a.get_attribute("href") or "") for a in links[:20])
    page.close()


def test_picking_engines_and_requirements_updates_the_view_and_the_url(browser, base):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    goto(page, base + "/engines/compare/")
    for engine in ("vllm", "llama-cpp"):
        page.locator(f".atlas-compare__engines input[value='{engine}']").check()
    assert "engines=vllm%2Cllama-cpp" in page.url or "engines=vllm,llama-cpp" in page.url
    assert {c for t in _visible(page) for c in t["cols"]} == {"vllm", "llama-cpp"}
    page.locator(".atlas-compare__clear").click()
    page.locator(".atlas-compare__need").select_option("gguf")
    assert "need=gguf" in page.url
    # Every engine left standing supports GGUF in some form.
    gguf = page.evaluate("""() => { const out = {};
      for (const t of document.querySelectorAll('.atlas-matrix table')) {
        const ids = Array.from(t.tHead.rows[0].cells).map(c => (c.querySelector('a') || {dataset: {}}).dataset.atlasId);
        for (const r of t.tBodies[0].rows) { const a = r.cells[0].querySelector('a'); if (!a || a.dataset.atlasId !== 'gguf') continue;
          Array.from(r.cells).forEach((c, i) => { if (i && !c.hidden) out[ids[i]] = c.textContent.trim(); }); } }
      return out; }""")
    assert gguf and all(v in ("yes", "partial", "plugin") for v in gguf.values()), gguf
    page.close()


def test_the_matrix_filters_by_licence(browser, base, site):
    """Each engine's licence is a row of the matrix with its source, and a filter keeps the
    engines under one licence (in the URL too)."""
    soup = BeautifulSoup((site / "engines/compare/index.html").read_text(), "html.parser")
    row = soup.select_one(".atlas-matrix--licence tbody tr")
    cells = row.select("a.atlas-cell")
    assert len(cells) >= 15 and all("/sources/" in a["href"] for a in cells)
    page = browser.new_page(viewport={"width": 390, "height": 900})
    goto(page, base + "/engines/compare/")
    page.locator(".atlas-compare__licence").select_option("MIT")
    assert "licence=MIT" in page.url
    shown = page.evaluate("""() => { const t = document.querySelector('.atlas-matrix--licence table');
      return Array.from(t.tBodies[0].rows[0].cells).slice(1).filter(c => !c.hidden).map(c => c.textContent.trim()); }""")
    assert shown and set(shown) == {"MIT"}
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()


def test_pair_pages_lead_with_what_differs(site):
    soup = BeautifulSoup((site / "engines/compare/vllm-vs-sglang/index.html").read_text(), "html.parser")
    first_h2 = soup.select_one("article h2")
    assert first_h2.get("id") == "differ"
    items = first_h2.find_next("ul").find_all("li")
    assert items and all("vLLM" in li.get_text() and "SGLang" in li.get_text() for li in items)


def test_atlas_compare_in_the_terminal(tmp_path):
    r = subprocess.run([str(BIN / "atlas"), "compare", "vLLM", "sglang", "TensorRT-LLM", "--json"], capture_output=True,
                       text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [e["id"] for e in data["engines"]] == WANT
    for group in data["groups"]:
        for row in group["rows"]:
            statuses = {c["status"] for c in row["cells"].values()}
            assert row["differs"] == (len(statuses) > 1)
            assert all(c["source"] for c in row["cells"].values() if c["status"] != "unknown")
    r = subprocess.run([str(BIN / "atlas"), "compare", "vllm", "sglang", "--diff"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0 and all(line.startswith(("*", " ", "\n")) or not line or line[0].isupper()
                                     for line in r.stdout.splitlines())
    r = subprocess.run([str(BIN / "atlas"), "compare", "vllm"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2


@pytest.mark.parametrize("typed, device", [("H100 SXM", "nvidia-h100-sxm"), ("4090", "nvidia-rtx-4090"),
                                           ("h100-sxm", "nvidia-h100-sxm"), ("RTX 5090", "nvidia-rtx-5090")])
def test_devices_are_found_by_the_names_people_type(typed, device):
    r = subprocess.run([str(BIN / "atlas"), "fit", "llama-3-1-8b", "--device", typed, "--json"], capture_output=True,
                       text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert json.dumps(json.loads(r.stdout)).count(device) >= 1


def test_an_ambiguous_or_unknown_device_says_what_it_could_be():
    r = subprocess.run([str(BIN / "atlas"), "fit", "llama-3-1-8b", "--device", "rtx 4900"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2 and "did you mean" in r.stderr and "4090" in r.stderr


def test_no_matrix_cell_is_blank_and_few_are_unknown():
    """Every engine answers every row of the matrix with a sourced status; 'unknown' is said
    explicitly (with the source that was read), and at most one cell in ten says it."""
    from generator.pipeline import load_atlas

    atlas = load_atlas(REPO)
    engines = atlas.of_kind("engine")
    cells, blank = [], []
    for group in ("features", "backends", "formats", "api"):
        rows = {k for e in engines for k in (e.get(group) or {})}
        for e in engines:
            for row in sorted(rows):
                cell = (e.get(group) or {}).get(row)
                (cells.append(cell) if cell is not None else blank.append((e.id, group, row)))
    assert blank == []
    assert all(c["source"] in atlas.sources for c in cells)
    unknown = [c for c in cells if c["status"] == "unknown"]
    assert len(unknown) <= 0.1 * len(cells) and all(c.get("note") for c in unknown)


@pytest.mark.parametrize("width", [1366, 390])
def test_the_header_row_and_feature_column_stay_in_view_while_the_matrix_scrolls(browser, base, width):
    """Scrolled down and right inside the largest matrix, its engine names still head the
    columns and its feature names still start the rows (Material made each table its own
    scroll box, so the sticky cells used to scroll away with the rest)."""
    page = browser.new_page(viewport={"width": width, "height": 800})
    goto(page, base + "/engines/compare/")
    got = page.evaluate("""() => {
      const wrap = Array.from(document.querySelectorAll('.atlas-matrix .md-typeset__scrollwrap')).sort((a, b) => b.scrollHeight - a.scrollHeight)[0];
      const t = wrap.querySelector('table'), box = wrap.getBoundingClientRect();
      wrap.scrollTop = 300; wrap.scrollLeft = 300;
      const head = t.tHead.rows[0].cells[1].getBoundingClientRect(), row = Array.from(t.tBodies[0].rows).find(r => r.getBoundingClientRect().top > box.top + 120);
      return {scrolled: [wrap.scrollTop, wrap.scrollLeft], wrapTop: box.top, wrapLeft: box.left,
              headTop: head.top, featureLeft: row.cells[0].getBoundingClientRect().left}; }""")
    assert got["scrolled"][0] == 300 and got["scrolled"][1] > 0, got  # the matrix did scroll both ways
    assert abs(got["headTop"] - got["wrapTop"]) <= 2, got
    assert abs(got["featureLeft"] - got["wrapLeft"]) <= 2, got
    page.close()


OTHER_PLATFORMS = {"metal", "sycl", "xpu", "tpu", "npu", "mlx-format", "cpu-inference"}


@pytest.mark.parametrize("width", [1366, 390])
def test_differences_for_your_platform_leave_out_other_platforms_rows(browser, base, width):
    """Issue 37: vLLM, SGLang and TensorRT-LLM for someone on NVIDIA GPUs: 'Differences only'
    listed Metal, NPU, TPU, SYCL and MLX rows; with 'I run on NVIDIA (CUDA)' those go, the
    differences that matter there stay, and the choice is in the address."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    goto(page, base + "/engines/compare/?engines=" + ",".join(WANT) + "&diff=1")

    def row_ids():
        return set(page.evaluate("""() => Array.from(document.querySelectorAll('.atlas-matrix tbody tr'))
          .filter(r => !r.hidden && !r.closest('.atlas-matrix').hidden)
          .map(r => r.cells[0].querySelector('a[data-atlas-id]')).filter(Boolean).map(a => a.dataset.atlasId)""")) - {None}

    everywhere = row_ids()
    assert everywhere & OTHER_PLATFORMS, everywhere  # the noise the issue saw
    page.select_option(".atlas-compare__platform", "cuda")
    on_cuda = row_ids()
    assert not on_cuda & OTHER_PLATFORMS, on_cuda & OTHER_PLATFORMS
    assert on_cuda and on_cuda <= everywhere and "gguf" in on_cuda  # a format every platform runs stays
    assert "platform=cuda" in page.url and "NVIDIA (CUDA)" in page.locator(".atlas-compare__status").inner_text()
    goto(page, page.url)
    assert row_ids() == on_cuda and page.locator(".atlas-compare__platform").input_value() == "cuda"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()


def test_atlas_compare_takes_a_platform():
    r = subprocess.run([str(BIN / "atlas"), "compare", "vllm", "sglang", "tensorrt-llm", "--diff", "--platform", "cuda", "--json"],
                       capture_output=True, text=True, cwd=REPO)
    rows = {row["id"] for g in json.loads(r.stdout)["groups"] for row in g["rows"]}
    assert r.returncode == 0 and rows and not rows & OTHER_PLATFORMS
    bad = subprocess.run([str(BIN / "atlas"), "compare", "vllm", "sglang", "--platform", "amiga"], capture_output=True, text=True, cwd=REPO)
    assert bad.returncode == 2 and "cuda" in bad.stderr
