"""Diagrams of the core ideas, the decode-ceiling chart and the batching simulator
(generator/figures/diagrams.py, figures.decode_md, docs/assets/atlas-figures.js): each is on the
pages it explains, survives the sanitizer whole, carries a text alternative, follows the
entries' data, reads at 12 px or more on a laptop and a phone, and the simulator answers
a reader's input with the same schedule as the Python drawing."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from conftest import REPO
from dom import table_rows
from generator.figures import charts as figures
from generator.figures import diagrams
from generator.render import sanitize
from generator.pages.handwritten import problems

from generator.pipeline import build, load_atlas

LEARN = ["request-flow", "gpu-memory-math", "memory-bandwidth", "quantization", "engines", "hardware-strategy",
         "production-serving", "benchmarking"]

# The ideas issue 23 lists, each with an entry page and a learn chapter that must show it.
IDEAS = {
    "request-path": ["glossary/inference", "learn/request-flow"],
    "prefill-decode": ["glossary/prefill", "glossary/decode", "learn/request-flow", "learn/memory-bandwidth"],
    "kv-growth": ["glossary/kv-cache", "learn/request-flow", "learn/gpu-memory-math"],
    "paged-attention": ["glossary/paged-attention", "learn/production-serving", "learn/engines"],
    "batching": ["glossary/continuous-batching", "glossary/static-batching", "learn/request-flow"],
    "chunked-prefill": ["glossary/chunked-prefill", "learn/production-serving"],
    "prefix-tree": ["glossary/prefix-caching", "glossary/radix-attention", "learn/production-serving"],
    "speculative": ["glossary/speculative-decoding", "glossary/draft-model", "learn/request-flow"],
    "parallelism": ["glossary/tensor-parallelism", "glossary/pipeline-parallelism", "glossary/expert-parallelism",
                    "learn/hardware-strategy", "learn/production-serving"],
    "disaggregated": ["glossary/disaggregated-serving", "learn/production-serving"],
}


def _soup(site, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path / "index.html").read_text(encoding="utf-8"), "html.parser")


# --- without a build ----------------------------------------------------------------------

def test_every_entry_the_diagrams_name_exists():
    atlas = load_atlas(REPO)
    assert set(diagrams.FOR_ENTRY) <= set(atlas.entries), set(diagrams.FOR_ENTRY) - set(atlas.entries)
    assert len(diagrams.DIAGRAMS) >= 10


@pytest.mark.parametrize("name", sorted(diagrams.DIAGRAMS))
def test_a_diagram_is_two_drawings_within_their_width_and_the_sanitizer_keeps_all_of_it(name):
    html = diagrams.figure(name)
    soup = BeautifulSoup(html, "html.parser")
    svgs = soup.find_all("svg")
    assert [s["class"] for s in svgs] == [["atlas-dg__wide"], ["atlas-dg__narrow"]]
    for svg, width in zip(svgs, (diagrams.WIDE, diagrams.NARROW)):
        assert svg["viewbox" if "viewbox" in svg.attrs else "viewBox"].startswith(f"0 0 {width} ")
        assert svg["role"] == "img" and len(svg["aria-label"]) > 80
        for t in svg.find_all("text"):  # every label inside the drawing, by the wrap estimate
            x, anchor = float(t["x"]), t.get("text-anchor", "middle")
            size = diagrams.FONT if t.get("class") == ["atlas-dg__strong"] else diagrams.SMALL
            half = len(t.text) * size * diagrams.CHAR / 2
            lo, hi = {"start": (x, x + 2 * half), "end": (x - 2 * half, x), "middle": (x - half, x + half)}[anchor]
            assert lo >= -2 and hi <= width + 10, (name, width, t.text)
    assert soup.figcaption and soup.figcaption.strong
    clean = BeautifulSoup(sanitize.clean(html), "html.parser")
    assert [(t.name, t.get("class")) for t in clean.find_all(True)] == [(t.name, t.get("class")) for t in soup.find_all(True)]


def test_hostile_svg_is_still_stripped():
    """The lists that let diagrams through keep script, handlers, foreignObject and outside links out."""
    bad = ('<svg viewBox="0 0 10 10" onload="alert(1)"><script>alert(2)</script><foreignObject><iframe src="//x"></iframe>'
           '</foreignObject><a href="javascript:alert(3)"><text x="1" y="1" onclick="alert(4)">t</text></a>'
           '<image href="https://evil.example/x.png"/><use href="https://evil.example/s.svg#a"/>'
           '<rect style="fill:url(https://evil.example/p)" x="0" y="0" width="1" height="1"/></svg>')
    out = sanitize.clean(bad).lower()
    for needle in ("onload", "onclick", "<script", "alert(2)", "foreignobject", "<iframe", "javascript:", "evil.example", "<use", "<image"):
        assert needle not in out, needle


def test_the_static_drawing_and_its_words_agree_with_the_schedule():
    static = diagrams.schedule(diagrams.LENGTHS, 4, False)
    cont = diagrams.schedule(diagrams.LENGTHS, 4, True)
    assert (len(static), len(cont)) == (13, 8)
    alt = diagrams.DIAGRAMS["batching"].alt
    assert "after 13 steps" in alt and "after 8 steps" in alt
    # Every request gets exactly its length of working cells under both policies.
    for steps in (static, cont):
        work = diagrams._finished(steps, diagrams.LENGTHS)
        assert [sum(row.count(i) for row in work) for i in range(len(diagrams.LENGTHS))] == diagrams.LENGTHS
    assert "after 13 steps" in diagrams.figure("batching") and "after 8 steps" in diagrams.figure("batching")


def test_the_chunked_prefill_figure_marks_where_each_step_ends():
    """Issue 48: each row shows its forward passes: a dashed mark at every step boundary and
    the step's number, in the wide and the narrow drawing; without chunking the long prefill
    is one step of its own."""
    import re

    html = diagrams.figure("chunked-prefill")
    for svg in re.findall(r"<svg.*?</svg>", html, re.S):
        marks = len(re.findall(r'class="atlas-dg__mark"', svg))
        numbers = [int(n) for n in re.findall(r">(\d+)</text>", svg)]
        # two rows: 6 steps without chunking, then as many whole steps as the width holds
        first = numbers[:6]
        rest = numbers[6:]
        assert first == [1, 2, 3, 4, 5, 6] and rest == list(range(1, len(rest) + 1)) and len(rest) >= 6
        assert marks == (6 + 1) + (len(rest) + 1)
    assert "step 3 is long" in html


def test_an_unknown_figure_name_is_a_finding_with_a_suggestion():
    atlas = load_atlas(REPO)
    found = problems("Intro [[kv-cache]].\n\n<!-- atlas:figure batchin -->\n", atlas, "docs/learn/x.md")
    assert len(found) == 1 and found[0].line == 3 and "did you mean 'batching'" in found[0].message


def _bars(md: str) -> dict[str, float]:
    fig = md[md.index('data-chart="decode-ceiling"'):]
    wide = fig[:fig.index("</svg>")]
    return {m.group(1): float(m.group(2)) for m in re.finditer(r'data-id="([\w-]+)" x="[\d.]+" y="[\d.]+" width="([\d.]+)"', wide)}


def test_the_decode_ceiling_follows_the_devices_bandwidth_and_its_table_is_the_arithmetic(kb):
    files = build(kb)[1]
    md = files["hardware/index.md"]
    before = _bars(md)
    assert len(before) >= 10 and "nvidia-rtx-4090" in before
    # The table: bandwidth / (weights a token reads at Q4_K_M, part by part, + 4,096 tokens of 16-bit KV), worked
    # out here from Llama 3.1 8B's config: the head at Q6_K, attention 4.6 bits, the MLP 4.84, one embedding row at Q4_K.
    rows = table_rows(md[md.index('data-chart="decode-ceiling"'):], "Device")
    row = next(cells for name, cells in rows.items() if "RTX 4090" in name)
    weights = (128_256 * 4096 * 6.5625 + 32 * (4096 * 4096 * 2 + 4096 * 1024 * 2) * 4.6 + 32 * 3 * 4096 * 14336 * 4.84375
               + 4096 * 4.5) / 8
    read = weights + 2 * 32 * 8 * 128 * 2 * 4096
    assert row[-1] == f"{1008e9 / read:,.0f}"
    path = kb / "glossary/hardware/nvidia-rtx-4090.yaml"
    text = path.read_text(encoding="utf-8")
    bw = re.search(r"bandwidth_gbs: \{value: ([\d.]+),", text)
    assert bw and float(bw.group(1)) == 1008
    path.write_text(text.replace(bw.group(0), "bandwidth_gbs: {value: 2016,"), encoding="utf-8")
    after = _bars(build(kb)[1]["hardware/index.md"])
    assert after["nvidia-rtx-4090"] == pytest.approx(2 * before["nvidia-rtx-4090"], rel=0.01)
    assert after["nvidia-h100-sxm"] == before["nvidia-h100-sxm"]


def test_entry_pages_show_their_idea_by_id():
    files = build(REPO)[1]
    for eid, names in diagrams.FOR_ENTRY.items():
        md = files[f"glossary/{eid}.md"]
        for n in names:
            assert f'data-diagram="{n}"' in md, (eid, n)
        # Below the marker the term linker stops at: no link is ever put inside a drawing.
        assert md.index(f'data-diagram="{names[0]}"') > md.index("<!-- atlas:no-term-links -->")
    for eid in figures.DECODE_TERMS:
        assert 'data-chart="decode-ceiling"' in files[f"glossary/{eid}.md"]


# --- the real site --------------------------------------------------------------------------

def test_every_learn_chapter_shows_a_figure_with_a_text_alternative(site):
    for page in LEARN:
        figs = _soup(site, f"learn/{page}").select("figure.atlas-dg")
        assert figs, page
        for f in figs:
            assert f.figcaption and len(f.figcaption.get_text(strip=True)) > 30, (page, f.get("id"))
            for svg in f.find_all("svg"):
                assert svg.get("role") == "img" and len(svg.get("aria-label", "")) > 60, (page, f.get("id"))


def test_the_ten_ideas_are_on_their_pages_whole(site):
    for name, pages in IDEAS.items():
        wrote = BeautifulSoup(diagrams.figure(name), "html.parser")
        for page in pages:
            fig = _soup(site, page).select_one(f'figure[data-diagram="{name}"]')
            assert fig is not None, (name, page)
            for tag in ("rect", "text", "line", "polygon", "path"):
                assert len(fig.find_all(tag)) == len(wrote.find_all(tag)), (name, page, tag)


def test_the_decode_chart_and_the_simulator_are_where_they_explain(site):
    for page in ("hardware", "learn/memory-bandwidth", "learn/hardware-strategy", "glossary/memory-bound"):
        fig = _soup(site, page).select_one('figure[data-chart="decode-ceiling"]')
        assert fig is not None and fig.find("table") is None, page
        assert fig.find_next("table").find("th").get_text() == "Device", page
    sim = _soup(site, "learn/production-serving").select_one('[data-atlas-sim="batching"]')
    assert sim is not None and sim.select_one('input[type="range"][data-sim="len"]') and sim.select_one('button[data-sim="add"]')
    assert sim.select_one(".atlas-sim__controls").has_attr("hidden")  # shown by the script; without it, the drawing
    assert sim.select("svg.atlas-dg__wide") and sim.select("svg.atlas-dg__narrow")


FIGURE_PAGES = sorted({p for pages in IDEAS.values() for p in pages} | {f"learn/{p}" for p in LEARN}
                      | {"hardware", "glossary/ttft", "glossary/quantization"})

MEASURE = """() => {
  const out = {figures: 0, texts: 0, smallest: 1e9, smallestBox: 1e9, who: '', width: document.documentElement.scrollWidth, bad: []};
  for (const fig of document.querySelectorAll('figure.atlas-dg')) {
    out.figures++;
    const shown = [...fig.querySelectorAll('svg')].filter(s => s.getBoundingClientRect().width > 0);
    if (shown.length !== 1) out.bad.push(fig.id + ': ' + shown.length + ' drawings shown');
    for (const svg of shown) {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const box = svg.getBoundingClientRect();
      if (box.right > document.documentElement.clientWidth + 1) out.bad.push(fig.id + ' overflows');
      for (const t of svg.querySelectorAll('text')) {
        out.texts++;
        const px = parseFloat(getComputedStyle(t).fontSize) * scale;
        if (px < out.smallest) { out.smallest = px; out.who = fig.id + ': ' + t.textContent; }
        const r = t.getBoundingClientRect();
        out.smallestBox = Math.min(out.smallestBox, r.height);
        if (r.left < box.left - 2 || r.right > box.right + 2) out.bad.push(fig.id + ' text outside: ' + t.textContent);
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("width", [1366, 390])
def test_no_figure_text_is_under_12px_and_one_drawing_shows(browser, base, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    smallest = []
    try:
        for path in FIGURE_PAGES:
            page.goto(f"{base}/{path}/", wait_until="load", timeout=120_000)
            m = page.evaluate(MEASURE)
            assert m["figures"] >= 1 and m["texts"] >= 4, (path, m)
            assert not m["bad"], (path, width, m["bad"][:5])
            assert m["smallest"] >= 12 and m["smallestBox"] >= 12, f"{path} at {width} px: {m['who']} at {m['smallest']:.1f} px"
            assert m["width"] <= width, f"{path} is {m['width']} px wide on a {width} px screen"
            smallest.append(m["smallest"])
    finally:
        page.close()
    print(f"smallest figure text at {width} px: {min(smallest):.2f} px")


@pytest.mark.parametrize("width", [1366, 390])
def test_the_simulator_answers_the_reader(browser, base, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto(f"{base}/learn/production-serving/", wait_until="load", timeout=120_000)
        sim = page.locator('[data-atlas-sim="batching"]')
        sim.scroll_into_view_if_needed()
        assert sim.locator(".atlas-sim__controls").is_visible()
        assert sim.get_attribute("data-static-steps") == "13" and sim.get_attribute("data-continuous-steps") == "8"
        summary = sim.locator(".atlas-sim__summary").inner_text()
        assert "continuous batching finishes them all in 8 steps, static in 13" in summary
        # A long request: static batching pays for it with a whole batch, continuous only with its slot.
        sim.locator('[data-sim="len"]').fill("12")
        sim.locator('[data-sim="add"]').click()
        py = [len(diagrams.schedule(diagrams.LENGTHS + [12], 4, c)) for c in (False, True)]
        assert [int(sim.get_attribute("data-static-steps")), int(sim.get_attribute("data-continuous-steps"))] == py
        assert "9 requests on 4 slots" in sim.locator(".atlas-sim__summary").inner_text()
        assert sim.locator("svg.atlas-sim__svg text", has_text="I").count() >= 1  # the new request, drawn
        # Fewer slots: both policies take longer, and the browser agrees with Python once more.
        sim.locator('[data-sim="slots"]').fill("2")
        py = [len(diagrams.schedule(diagrams.LENGTHS + [12], 2, c)) for c in (False, True)]
        assert [int(sim.get_attribute("data-static-steps")), int(sim.get_attribute("data-continuous-steps"))] == py
        for lengths, slots in (([1, 9, 1, 9, 5, 5, 2], 3), ([4] * 10, 4), ([12], 1)):
            js = page.evaluate("([l, s]) => [false, true].map(c => AtlasSim.schedule(l, s, c).length)", [lengths, slots])
            assert js == [len(diagrams.schedule(lengths, slots, c)) for c in (False, True)], (lengths, slots)
        m = page.evaluate("""() => { const svg = document.querySelector('.atlas-sim__svg'); const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return [Math.min(...[...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * k)), document.documentElement.scrollWidth]; }""")
        assert m[0] >= 12 and m[1] <= width, m
        sim.locator('[data-sim="reset"]').click()
        assert sim.get_attribute("data-static-steps") == "13"
    finally:
        page.close()
