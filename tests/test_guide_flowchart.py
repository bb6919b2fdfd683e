"""Guide flowcharts a reader can read, measured in real Chromium on the real site: at
1366 px no label is drawn smaller than 12 px and each chart fits its column; on a 390 px
phone the same holds and nothing is wider than the screen; every entry named in a box
links to that entry. The walk-through shows each disagreement with every side's sources."""

import pytest

from conftest import REPO, goto
from generator.knowledge.guides import all_paths, walk
from generator.pipeline import load_atlas

GUIDES = ["choose-an-engine", "choose-hardware-by-budget", "choose-a-quantization-format", "choose-hardware-for-a-model"]

# Every element of the charts that draws text of its own, with its rendered size: the
# computed font size times any scaling the layout applies (a transform or an SVG viewBox
# would show up as a box narrower or wider than its layout width).
MEASURE = """() => {
  const out = [];
  for (const chart of document.querySelectorAll('.atlas-flow__chart')) {
    const box = chart.getBoundingClientRect();
    const scale = chart.offsetWidth ? box.width / chart.offsetWidth : 1;
    for (const el of chart.querySelectorAll('*')) {
      const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (!own) continue;
      out.push({ text: el.textContent.trim().slice(0, 40), px: parseFloat(getComputedStyle(el).fontSize) * scale });
    }
  }
  return out;
}"""

FIT = """() => [...document.querySelectorAll('.atlas-flow__chart')].map(c => {
  const r = c.getBoundingClientRect();
  return { id: c.id, left: r.left, right: r.right, overflow: c.scrollWidth - c.clientWidth };
})"""


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("guide", GUIDES)
def test_flowchart_labels_are_at_least_12px_and_charts_fit(browser, base, guide, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    goto(page, f"{base}/guides/{guide}/")
    labels = page.evaluate(MEASURE)
    assert len(labels) > 10
    small = [x for x in labels if x["px"] < 12]
    assert not small, small[:5]
    for chart in page.evaluate(FIT):
        assert chart["overflow"] <= 1, chart  # nothing inside the chart is cut off or scrolls
        assert chart["left"] >= 0 and chart["right"] <= width, chart
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()


@pytest.mark.parametrize("guide", GUIDES)
def test_every_entry_named_in_a_box_links_to_it(browser, base, atlas, guide):
    g = atlas.entries[guide]
    expected = []
    for qid, q in g.get("questions").items():
        for o in q["options"]:
            expected += [(qid, atlas.entries[r["entry"]].url) for r in o.get("recommend", ())]
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    goto(page, f"{base}/guides/{guide}/")
    found = page.evaluate("""() => [...document.querySelectorAll('.atlas-flow__chart')].flatMap(c =>
        [...c.querySelectorAll('.atlas-flow__answers li')].map(li => {
          const a = li.querySelector('a.atlas-flow__entry');
          return [c.id.replace('chart-', ''), a ? new URL(a.href).pathname : null];
        }))""")
    page.close()
    assert [tuple(f) for f in found] == expected


def test_the_walk_through_shows_both_sides_and_the_advice(browser, base, atlas):
    guide = atlas.entries["choose-an-engine"]
    path = ["many-users", "servers", "servers", "general"]
    leaf = walk(guide, path).leaf
    page = browser.new_page(viewport={"width": 390, "height": 844})
    goto(page, f"{base}/guides/choose-an-engine/?answers={','.join(path)}#walk")
    box = page.locator("#atlas-guide")
    text = box.inner_text()
    for d in leaf["disputes"]:
        assert "Sources disagree: " + d["claim"] in text
    sides = page.locator(".atlas-guide__dispute li")
    assert sides.count() == sum(len(d["positions"]) for d in leaf["disputes"])
    assert all("Sources:" in t for t in sides.all_inner_texts())  # every side carries its own sources
    assert "published benchmark scores" in text  # the question's advice, where the choice was made
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()


def test_every_guide_page_is_checked_here(atlas):
    assert sorted(GUIDES) == sorted(g.id for g in atlas.of_kind("guide"))
    assert all(list(all_paths(atlas.entries[g])) for g in GUIDES)
