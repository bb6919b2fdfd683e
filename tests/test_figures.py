"""Figures drawn from the knowledge base's own data (generator/figures/charts.py): the roofline
follows the devices' figures, the tables beside the charts are the entries' numbers, and
in real Chromium no label is below 12 px on a laptop or a phone, nor any page too wide."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from dom import table_rows
from generator.figures import charts as figures
from generator.pipeline import build

ROOFLINE_PAGES = ["glossary/memory-bandwidth.md", "glossary/arithmetic-intensity.md", "glossary/roofline-model.md",
                  "hardware/index.md"]


def _specs(root: Path, kind: str) -> dict[str, dict]:
    """Every entry of one kind straight from its YAML: id -> the whole document."""
    return {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((root / "glossary" / kind).glob("*.yaml"))}


def _svg(md: str, kind: str) -> str:
    m = re.search(rf'<div class="atlas-fig atlas-fig--{kind}">(?:<p class="atlas-fig__hint">[^<]*</p>)?(<svg .*?</svg>)</div>', md)
    assert m, f"no {kind} figure"
    return m.group(1)


def _ridge(svg: str, device: str) -> tuple[float, float]:
    m = re.search(rf'<circle class="atlas-fig__ridge" data-id="{device}" cx="([\d.]+)" cy="([\d.]+)"', svg)
    assert m, f"no ridge point for {device}"
    return float(m.group(1)), float(m.group(2))


def _table(md: str, first_header: str) -> dict[str, list[str]]:
    """The table whose header starts with `first_header`: first cell's text -> the other cells,
    citations and links reduced to their text."""
    return table_rows(md, first_header)


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def test_the_roofline_follows_a_devices_bandwidth(kb):
    files = build(kb)[1]
    before = _svg(files["hardware/index.md"], "roofline")
    x0, y0 = _ridge(before, "nvidia-h100-sxm")
    path = kb / "glossary/hardware/nvidia-h100-sxm.yaml"
    text = path.read_text(encoding="utf-8")
    assert "bandwidth_gbs: {value: 3350," in text
    path.write_text(text.replace("bandwidth_gbs: {value: 3350,", "bandwidth_gbs: {value: 1675,"), encoding="utf-8")
    files = build(kb)[1]
    after = _svg(files["hardware/index.md"], "roofline")
    x1, y1 = _ridge(after, "nvidia-h100-sxm")
    # Ridge = TFLOPS / bandwidth: half the bandwidth, twice the intensity, so one log10(2)
    # of a decade further right on the log axis; the roof (989 TFLOPS) stays where it was.
    lo, hi = figures.INTENSITY
    per_decade = (figures.WIDTH - figures.RIGHT - figures.LEFT) / math.log10(hi / lo)
    assert x1 - x0 == pytest.approx(per_decade * math.log10(2), abs=0.15)
    assert y1 == pytest.approx(y0, abs=0.1)
    # Nothing else moved, and the table and the label say the new ridge.
    assert _ridge(after, "nvidia-h200") == _ridge(before, "nvidia-h200")
    assert "H100 SXM · ridge 590" in after and "H100 SXM · ridge 295" in before
    row = _table(files["hardware/index.md"], "Device</th><th style=\"text-align:right\">Memory bandwidth")["NVIDIA H100 SXM"]
    assert _num(row[0]) == 1675 and _num(row[2]) == round(989e12 / 1675e9)
    for src in ROOFLINE_PAGES:  # every page that shows the roofline shows the same one
        assert _svg(files[src], "roofline") == after


@pytest.fixture(scope="module")
def built() -> dict[str, str]:
    return build(REPO)[1]


def test_the_roofline_table_is_the_devices_figures(built):
    expected = {}
    for doc in _specs(REPO, "hardware").values():
        s = doc.get("specs") or {}
        flops = s.get("fp16_tflops") or s.get("bf16_tflops")
        if "bandwidth_gbs" in s and flops and doc.get("class") not in ("cluster", "family"):
            bw, tf = s["bandwidth_gbs"]["value"], flops["value"]
            expected[doc["title"]] = (bw, tf, tf * 1000 / bw)
    assert "NVIDIA H100 SXM" in expected and len(expected) >= 5
    for src in ROOFLINE_PAGES:
        rows = _table(built[src], "Device</th><th style=\"text-align:right\">Memory bandwidth")
        assert set(rows) == set(expected), src
        for title, (bw, tf, ridge) in expected.items():
            cells = rows[title]
            assert _num(cells[0]) == pytest.approx(bw) and _num(cells[1]) == pytest.approx(tf)
            assert _num(cells[2]) == round(ridge), (title, cells)
            assert _num(cells[3]) == pytest.approx(bw / 1000, rel=1e-2)
        svg = _svg(built[src], "roofline")
        assert svg.count('class="atlas-fig__ridge"') == len(expected)
    # Each figure cites where its numbers come from, as entry pages do.
    md = built["hardware/index.md"]
    assert '<sup class="atlas-cite">' in md[md.index("<th>Device</th><th style=\"text-align:right\">Memory bandwidth"):]
    assert '<a href="#src-nvidia-h100-datasheet"' in md and '<p class="atlas-source" id="src-nvidia-h100-datasheet">' in md


def _kv_bytes(s: dict, tokens: int | None = None) -> float | None:
    """16-bit KV cache, worked out here from the YAML rather than by the generator: per token
    of growth (the layers that keep every token), or one sequence's whole cache at `tokens`
    (local layers capped at their window, a hybrid model's recurrent state added once)."""
    v = lambda k: s[k]["value"] if k in s else None  # noqa: E731
    local = v("sliding_layers") if v("sliding_window") else 0
    if v("kv_bytes_per_token"):
        grow = v("kv_bytes_per_token")
    elif v("attention") == "mla":
        grow = v("layers") * (v("kv_lora_rank") + v("rope_head_dim")) * 2 if v("kv_lora_rank") and v("rope_head_dim") else None
    elif v("attention") == "other" or not (v("kv_heads") and v("head_dim")):
        grow = None
    else:
        layers = v("full_attention_layers") if v("attention") == "hybrid-linear" and v("full_attention_layers") else v("layers")
        grow = 2 * (layers - (local or 0)) * v("kv_heads") * v("head_dim") * 2
    if grow is None or tokens is None:
        return grow
    window = 2 * local * v("kv_heads") * v("head_dim") * 2 * min(tokens, v("sliding_window")) if local and v("attention") != "mla" else 0
    state = 0
    if v("attention") == "hybrid-linear" and v("full_attention_layers") and v("linear_heads") and v("linear_key_dim") and v("linear_value_dim"):
        # every recurrent layer (Nemotron-H: only its Mamba layers, not its MLP-only ones) keeps
        # heads x key x value, plus the convolution's last kernel - 1 inputs over q, k and v
        recurrent = v("linear_layers") or v("layers") - v("full_attention_layers")
        conv = 0
        if v("linear_conv_kernel"):
            k_heads = v("linear_key_heads") or v("linear_heads")
            conv = (2 * k_heads * v("linear_key_dim") + v("linear_heads") * v("linear_value_dim")) * (v("linear_conv_kernel") - 1)
        state = recurrent * (v("linear_heads") * v("linear_key_dim") * v("linear_value_dim") + conv) * 2
    return grow * tokens + window + state


def test_the_kv_table_is_the_models_figures_and_each_model_page_highlights_its_own(built):
    expected = {}
    for mid, doc in _specs(REPO, "models").items():
        b = _kv_bytes(doc["specs"])
        if b:
            expected[mid] = (doc["title"], b, doc["specs"].get("context_length", {}).get("value"), doc["specs"])
    assert len(expected) >= 5 and expected["llama-3-1-8b"][1] == 131072
    titles = {t for t, _, _, _ in expected.values()}
    for src in ["glossary/kv-cache.md"] + [f"models/{m}.md" for m in expected]:
        md = built[src]
        rows = _table(md, "Model</th><th>Attention")
        drawn = re.findall(r'class="atlas-fig__line[^"]*" data-id="([\w-]+)"', _svg(md, "kv"))
        if src.startswith("glossary/"):
            assert set(rows) == titles, src  # the KV-cache page lists every model
        else:  # a model page lists the ones its chart draws, and says where the rest are (issue 48: pages stay light)
            assert set(rows) == {expected[m][0] for m in drawn}, src
            assert len(expected) <= 12 or ("KV-cache page" in md and "#fig-kv-cache" in md), src
        for title, b, ctx, specs in (v for v in expected.values() if v[0] in rows):
            cells = rows[title]
            assert _num(cells[1]) == round(b)
            assert _num(cells[2]) == pytest.approx(round(_kv_bytes(specs, 8192) / 1e9, 2))
            if ctx:
                tokens, gb = cells[3].split(" → ")
                assert _num(tokens) == ctx and _num(gb) == pytest.approx(round(_kv_bytes(specs, ctx) / 1e9, 2))
        svg = _svg(md, "kv")
        hi = re.findall(r'class="atlas-fig__line atlas-fig__line--hi" data-id="([\w-]+)"', svg)
        assert hi == ([] if src.startswith("glossary/") else [src[len("models/"):-3]]), src
        drawn = re.findall(r'class="atlas-fig__line[^"]*" data-id="([\w-]+)"', svg)
        # past a dozen lines cannot be told apart: at most 12, every one a model of the table
        assert 8 <= len(drawn) <= 12 and set(drawn) <= set(expected), (src, drawn)
        if len(expected) > 12:
            assert f"of the {len(expected)} models" in md
        assert "<sup class=\"atlas-cite\">" in md[md.index("<th>Model</th><th>Attention"):]


def test_the_sanitizer_keeps_every_part_of_the_charts(built, site):
    """The charts use only tags and attributes on sanitize.py's lists: the built page has
    every shape, label, class and the accessible name that the generator wrote."""
    from bs4 import BeautifulSoup

    for src, html, kind in (("hardware/index.md", "hardware/index.html", "roofline"),
                            ("models/llama-3-1-8b.md", "models/llama-3-1-8b/index.html", "kv")):
        wrote = BeautifulSoup(_svg(built[src], kind), "html.parser").svg
        svg = BeautifulSoup((site / html).read_text(encoding="utf-8"), "html.parser").select_one(f".atlas-fig--{kind} svg")
        assert svg is not None and svg.get("role") == "img" and svg.get("aria-label") == wrote.get("aria-label")
        assert svg.get("viewbox") or svg.get("viewBox")
        for tag in ("polyline", "circle", "line", "rect", "text"):
            assert len(svg.find_all(tag)) == len(wrote.find_all(tag)), (html, tag)
        assert [t.get("class") for t in svg.find_all(True)] == [t.get("class") for t in wrote.find_all(True)]


FIGURE_PAGES = ["/glossary/roofline-model/", "/glossary/memory-bandwidth/", "/glossary/arithmetic-intensity/",
                "/hardware/", "/glossary/kv-cache/", "/models/llama-3-1-8b/"]

MEASURE = """() => {
  const out = {texts: 0, smallest: 1e9, smallestBox: 1e9, width: document.documentElement.scrollWidth, figures: 0, cut: []};
  for (const svg of document.querySelectorAll('.atlas-fig svg')) {
    out.figures++;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    for (const t of svg.querySelectorAll('text')) {
      out.texts++;
      out.smallest = Math.min(out.smallest, parseFloat(getComputedStyle(t).fontSize) * scale);
      out.smallestBox = Math.min(out.smallestBox, t.getBoundingClientRect().height);
      const b = t.getBBox();  // in the drawing's own units: a label past the viewBox is cut off
      if (b.x < -1 || b.x + b.width > svg.viewBox.baseVal.width + 1) out.cut.push(t.textContent);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("width", [1366, 390])
def test_every_chart_label_is_at_least_12px_and_no_page_is_wider_than_the_screen(browser, base, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        for path in FIGURE_PAGES:
            page.goto(base + path, wait_until="load", timeout=120_000)
            m = page.evaluate(MEASURE)
            assert m["figures"] == 1 and m["texts"] > 10, (path, m)
            assert m["smallest"] >= 12, f"{path} at {width} px: a chart label renders at {m['smallest']:.1f} px"
            assert m["smallestBox"] >= 12, (path, width, m)
            assert m["width"] <= width, f"{path} is {m['width']} px wide on a {width} px screen"
            assert not m["cut"], f"{path}: labels run past the chart's edge: {m['cut']}"
    finally:
        page.close()
