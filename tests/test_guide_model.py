"""Issue 47 item 3: a decision guide that knows the reader's model keeps only the engines that
load the model's released weights on the reader's hardware, says which cannot and why, and
links the calculator with the model and the engine's command. Checked over every answer of
every guide that names engines, for every model in the atlas, against the engines' own
format and backend cells; and in Chromium, where the page must agree with atlas recommend."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, goto
from generator.knowledge.guides import all_paths, guide_engines, platforms_on, walk
from generator.knowledge.launch import FORMAT_CELL, PLATFORM_CELL
from generator.pipeline import load_atlas

ATLAS = [str(Path(sys.executable).parent / "atlas")]


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def _guides(atlas):
    return [g for g in atlas.of_kind("guide") if guide_engines(atlas, g)]


def _cell_says_no(entry, group: str, key: str | None) -> bool:
    return bool(key) and ((entry.get(group) or {}).get(key) or {}).get("status") == "no"


def _format_cell(label: str) -> str | None:  # the longest FORMAT_CELL prefix of the released label
    up = label.upper()
    return next((FORMAT_CELL[p] for p in sorted(FORMAT_CELL, key=len, reverse=True) if up.startswith(p)), None)


def test_no_answer_recommends_an_engine_that_cannot_load_the_model_there(atlas):
    """Every answer x every model: an engine kept is one whose format cell for the released
    format is not "no", and whose backend cell is not "no" on every platform the path allows;
    an engine left out is one where one of those says no. Uses the cells, not for_model."""
    from generator.knowledge.guides import for_model

    models = [m for m in atlas.of_kind("model")]
    released = [m for m in models if (m.get("specs") or {}).get("checkpoint_format")]
    assert len(released) >= 3  # gpt-oss's MXFP4 and DeepSeek's FP8 among them
    checked = dropped = 0
    for g in _guides(atlas):
        for path in all_paths(g):
            w = walk(g, [s.option for s in path])
            plats = platforms_on(g, w.steps)
            for m in models:
                label = ((m.get("specs") or {}).get("checkpoint_format") or {}).get("value")
                cell = _format_cell(label) if label else None
                fm = for_model(atlas, g, w.steps, w.leaf, m)
                for r in w.leaf["recommend"]:
                    e = atlas.entries[r["entry"]]
                    if e.kind != "engine":
                        continue
                    cannot = _cell_says_no(e, "formats", cell) or (
                        bool(plats) and all(_cell_says_no(e, "backends", PLATFORM_CELL.get(p)) for p in plats if PLATFORM_CELL.get(p)))
                    assert (e.id in fm.keep) == (not cannot), (g.id, [s.option for s in path], m.id, e.id)
                    assert (e.id in fm.dropped) == cannot
                    checked += 1
                    dropped += cannot
    assert checked > 1000 and dropped > 0


def test_atlas_recommend_with_a_model_leaves_out_what_cannot_load_it(atlas):
    """The issue's case: gpt-oss-20b (MXFP4) for one person on one RTX card: ExLlamaV2 cannot
    load it, ExLlamaV3 only dequantized and after those that load it as released; vLLM and
    Ollama load it there too."""
    out = subprocess.run([*ATLAS, "recommend", "choose-an-engine", "--answer", "who=just-me", "--answer", "where=rtx",
                          "--answer", "rtx-count=one", "--model", "gpt-oss-20b", "--json"], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    ids = [r["id"] for r in got["recommend"]]
    assert "exllamav2" not in ids and "llama-cpp" in ids and ids[-1] == "exllamav3"
    assert "dequantized" in got["recommend"][-1]["caveat"]
    assert got["model"]["released"] == "mxfp4" and got["model"]["platforms"] == ["cuda"]
    assert [c["id"] for c in got["model"]["cannot"]] == ["exllamav2"]
    assert {"vllm", "ollama"} <= set(got["model"]["also"])
    assert "model=gpt-oss-20b&" in got["url"]
    bad = subprocess.run([*ATLAS, "recommend", "choose-an-engine", "--model", "gpt-oss-2"], capture_output=True, text=True, cwd=REPO)
    assert bad.returncode == 2 and "no model 'gpt-oss-2'" in bad.stderr


def test_the_page_agrees_with_python_for_every_answer_and_model(site, browser, atlas):
    from conftest import serve
    from generator.knowledge.guides import for_model

    models = [m.id for m in atlas.of_kind("model")]
    with serve(site) as base:
        page = browser.new_page()
        for g in _guides(atlas):
            goto(page, base + "/" + g.url.strip("/") + "/")
            paths = [[s.option for s in p] for p in all_paths(g)]
            got = page.evaluate("""([paths, models]) => {
                const guide = JSON.parse(document.getElementById('atlas-guide').dataset.guide);
                return paths.map(p => models.map(m => window.Atlas.guideForModel(guide, p, m)));
            }""", [paths, models])
            for p, row in zip(paths, got):
                w = walk(g, p)
                for mid, js in zip(models, row):
                    fm = for_model(atlas, g, w.steps, w.leaf, atlas.entries[mid])
                    assert (js["keep"], sorted(js["dropped"]), js["also"]) == (list(fm.keep), sorted(fm.dropped), list(fm.also)), (g.id, p, mid)
                    assert js["caveats"] == dict(fm.caveats), (g.id, p, mid)
        page.close()


@pytest.mark.parametrize("width", [1366, 390])
def test_a_reader_picks_a_model_and_gets_to_the_command(site, browser, width):
    from conftest import serve

    with serve(site) as base:
        page = browser.new_page(viewport={"width": width, "height": 900})
        goto(page, base + "/guides/choose-an-engine/?answers=just-me,rtx,one")
        assert page.locator(".atlas-guide__rec[data-entry='exllamav2']").count() == 1  # no model: the answer as written
        page.select_option("#guide-model", "gpt-oss-20b")
        assert "model=gpt-oss-20b" in page.url and "answers=just-me,rtx,one" in page.url
        assert page.locator(".atlas-guide__rec[data-entry='exllamav2']").count() == 0
        assert "does not load MXFP4" in page.locator(".atlas-guide__dropped li[data-entry='exllamav2']").inner_text()
        assert "dequantized" in page.locator(".atlas-guide__rec[data-entry='exllamav3'] .atlas-guide__caveat").inner_text()
        assert page.locator(".atlas-guide__also a[data-entry='vllm']").count() == 1
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # the model stays while the reader walks back and forth
        page.locator(".atlas-guide__back").click()
        assert "model=gpt-oss-20b" in page.url and page.locator("#guide-model").input_value() == "gpt-oss-20b"
        page.locator("button[data-option='one']").click()
        page.locator(".atlas-guide__rec[data-entry='llama-cpp'] a.atlas-guide__launch").click()
        page.wait_for_load_state("load")
        page.wait_for_load_state("networkidle")
        assert "/calculator/" in page.url and page.locator("#calc-model").input_value() == "gpt-oss-20b"
        assert page.locator("#calc-run-with").input_value() == "llama-cpp"
        assert "llama-server" in page.locator(".atlas-calc__command").inner_text()
        page.close()


def test_a_hardware_guide_starts_from_the_model_and_says_what_runs_it_on_each_device(site, browser, atlas):
    """The hardware guide answers "how big is the model" from the model picked (each size
    option describes models by total parameters and mixture of experts, and at most one
    describes any model); each device answer then names the engines that load the model's
    released weights on that device's platform, as the engines' cells say, and sizes it."""
    from conftest import serve
    from generator.knowledge.guides import model_matches, option_for_model
    from generator.knowledge.loads import loads

    g = atlas.entries["choose-hardware-for-a-model"]
    sizes = g.get("questions")[g.get("start")]["options"]
    for m in atlas.of_kind("model"):
        hits = [o["id"] for o in sizes if o.get("models") and model_matches(o["models"], m)]
        assert len(hits) <= 1, (m.id, hits)
    assert option_for_model(g, "size", atlas.entries["gpt-oss-120b"]) == "moe"
    assert option_for_model(g, "size", atlas.entries["llama-3-70b"]) == "large"
    spark = atlas.entries["nvidia-dgx-spark"]
    expect = [e for e in ("vllm", "sglang", "llama-cpp", "ollama", "mlx-lm", "tensorrt-llm", "exllamav3")
              if loads(atlas, atlas.entries[e], atlas.entries["gpt-oss-120b"], ["cuda"]).status == "yes"]
    assert "vllm" in expect and "llama-cpp" in expect
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 390, "height": 900})
        goto(page, base + "/guides/choose-hardware-for-a-model/")
        models = [m.id for m in atlas.of_kind("model")]
        got = page.evaluate("""(models) => { const g = JSON.parse(document.getElementById('atlas-guide').dataset.guide);
            return models.map(m => window.Atlas.guideOptionFor(g, g.start, m)); }""", models)
        assert got == [option_for_model(g, "size", atlas.entries[m]) for m in models]
        page.select_option("#guide-model", "gpt-oss-120b")
        assert "answers=moe" in page.url and "model=gpt-oss-120b" in page.url
        page.locator("button[data-option='me']").click()
        line = page.locator(".atlas-guide__rec", has=page.locator(f"a[href$='{spark.url.strip('/')}/']")).locator(".atlas-guide__ondevice")
        text = line.inner_text()
        titles = [atlas.entries[e].title for e in expect]
        assert text.startswith("Loads gpt-oss-120b as released on it: " + ", ".join(titles) + ".")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        line.locator("a").click()
        page.wait_for_load_state("load")
        page.wait_for_load_state("networkidle")
        assert page.locator("#calc-model").input_value() == "gpt-oss-120b" and page.locator("#calc-run-on").input_value() == "nvidia-dgx-spark"
        page.close()
