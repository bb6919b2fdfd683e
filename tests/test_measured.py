"""Measured beside computed (issue 25): the GPU suite's records (bench/gpu/results) are
sources the pages cite, and their decode figures stand beside the computed ceilings on the
H100 SXM and model pages, in the fit tables, in `atlas fit` and in the calculator.

Expected numbers are worked out here from the records and calc.py, never copied from the
pages: a record added or rerun keeps these tests true."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

from conftest import REPO, goto
from generator.knowledge.calc import measured_for, measured_points
from generator.kb.load import load_tree, measurement_source_id
from generator.pipeline import load_atlas
from generator.kb.validate import validate

RESULTS = REPO / "bench/gpu/results"
RECORDS = sorted(RESULTS.glob("*.yaml"))
MODEL, DEVICE = "llama-3-1-8b", "nvidia-h100-sxm"


def tps(x: float) -> str:
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def soup(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path / "index.html").read_text(encoding="utf-8"), "html.parser")


def test_every_record_is_a_measurement_source_with_its_provenance(atlas):
    assert RECORDS, "the suite has committed records"
    for path in RECORDS:
        rec = yaml.safe_load(path.read_text(encoding="utf-8"))
        s = atlas.sources[measurement_source_id(path.stem)]
        assert s.kind == "measurement" and "measured by this project" in s.title
        assert rec["model"]["title"] in s.title and rec["environment"]["device_name"] in s.title and rec["date"] in s.title
        assert s.date == rec["date"] and s.path == f"bench/gpu/results/{path.name}"
        assert rec["environment"]["git_commit"][:7] in s.summary and rec["environment"]["torch_version"] in s.summary
        if rec["built"]["slice"]:
            assert f"{rec['built']['layers_built']} of {rec['shape']['layers']} layers" in (s.summary + s.reliability)


def test_a_record_naming_no_model_entry_fails_the_check_where_it_says_so(kb):
    record = next(p for p in (kb / "bench/gpu/results").glob("*.yaml"))
    text = record.read_text(encoding="utf-8")
    line = text.splitlines().index("  id: " + yaml.safe_load(text)["model"]["id"]) + 1
    record.write_text(text.replace("  id: " + yaml.safe_load(text)["model"]["id"], "  id: lama-3-1-8b", 1), encoding="utf-8")
    docs, _ = load_tree(kb)
    found = [f for f in validate(docs) if f.path.endswith(record.name)]
    assert any(f.line == line and "model 'lama-3-1-8b' is not a model entry" in f.message for f in found), found
    # A record the schema refuses is reported too, at the key.
    record.write_text(text.replace("schema_version: 1", "schema_version: one", 1), encoding="utf-8")
    docs, _ = load_tree(kb)
    assert any(f.path.endswith(record.name) and "schema_version" in f.message for f in validate(docs))


def _measured_rows(page: BeautifulSoup) -> list[list]:
    table = page.find(id="measured").find_next("table")
    return [tr for tr in table.select("tbody tr")]


def _check_measured_section(site: Path, path: str, atlas, other_title: str):
    page = soup(site, path)
    assert page.find(id="measured"), f"{path} has no 'Measured by this project' section"
    rows = _measured_rows(page)
    expected = [p for p in measured_points(atlas, MODEL, DEVICE) if p.batch == 1]
    assert expected
    for p in expected:
        texts = [[td.get_text(" ", strip=True) for td in tr.find_all("td")] for tr in rows]
        hit = [t for t in texts if t[0] == other_title and t[2] == f"1 × {p.context:,}" and t[3].startswith(f"{tps(p.tokens_per_s)} tok/s")]
        assert hit, (path, p.context, p.tokens_per_s, texts)
        assert hit[0][4] == f"{tps(p.ceiling_tps)} tok/s" and hit[0][5] == f"{p.ratio:.2f}"
        assert abs(p.ratio - p.tokens_per_s / p.ceiling_tps) < 1e-9
    # Each figure cites its record, and the citation leads to the source page, which links the record as committed.
    cites = {a["href"].split("#src-")[1] for tr in rows for a in tr.select("sup.atlas-cite a")}
    assert {p.source for p in expected} <= cites
    for sid in {p.source for p in expected}:
        item = page.find(id=f"src-{sid}")
        assert item is not None and "measured by this project" in item.get_text()
        about = item.find("a", string="About this source")
        assert (site / path / about["href"]).resolve() == (site / "sources" / sid).resolve()
        src = soup(site, f"sources/{sid}")
        record = src.find("a", href=lambda h: h and h.endswith(".yaml"))
        served = (site / f"sources/{sid}" / record["href"]).resolve()
        assert served.read_bytes() == (REPO / atlas.measurements[sid].path).read_bytes()
    return page


def test_the_h100_page_shows_measured_ceiling_and_ratio_with_the_source(site, atlas):
    page = _check_measured_section(site, "hardware/nvidia-h100-sxm", atlas, "Llama 3.1 8B")
    # The slice is said to be a slice, with how many layers ran.
    texts = [tr.get_text(" ", strip=True) for tr in _measured_rows(page)]
    rec70 = atlas.measured("llama-3-70b", DEVICE)[0]
    assert any(t.startswith("Llama 3 70B") and f"{rec70.layers_built} of {rec70.layers} layers, scaled to {rec70.layers}" in t for t in texts)
    # The fit table's 16-bit cell carries the measured figure beside the ceiling, citing the record.
    got = measured_for(atlas, MODEL, DEVICE, 4096)
    fit = page.find(id="fit").find_next("table")
    row = next(tr for tr in fit.select("tbody tr") if tr.td.get_text(strip=True) == "Llama 3.1 8B")
    cell = row.select_one(".atlas-measured")
    assert cell is not None and f"measured {tps(got.tokens_per_s)} ({got.ratio:.2f})" in cell.get_text(" ", strip=True)
    assert cell.select_one("sup.atlas-cite a")["href"].endswith(f"#src-{got.source}")


def test_the_llama_8b_page_shows_measured_ceiling_and_ratio_with_the_source(site, atlas):
    page = _check_measured_section(site, "models/llama-3-1-8b", atlas, "NVIDIA H100 SXM")
    # The claim about 64 concurrent requests on an H200 has the measurement beside it, with its limits.
    body = page.find(id="the-vllm-and-llamacpp-benchmark").find_next("p").find_next("p").get_text(" ", strip=True)
    # Measured on the claim's own card, the H200, with the H100 beside it; the figures are the records'.
    assert "6,180 tokens/s" in body and "4,670" in body and "H200" in body and "random" in body
    h200 = [p for p in measured_points(atlas, MODEL, "nvidia-h200") if p.batch == 64 and p.context == 2048]
    assert h200 and all(abs(p.tokens_per_s - 6180) < 10 for p in h200)
    rec64 = [p for p in measured_points(atlas, MODEL, DEVICE) if p.batch == 64 and p.context == 2048]
    assert any(abs(p.tokens_per_s - 4670) < 10 for p in rec64)


def test_atlas_fit_json_includes_the_measurement(atlas):
    out = subprocess.run([sys.executable, "-m", "generator.cli", "fit", MODEL, "--device", "H100 SXM", "--json"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)["devices"][0]
    got = measured_for(atlas, MODEL, DEVICE, 4096)
    m = row["measured"]
    assert m["source"] == got.source and m["record"] == got.record and m["context"] == got.context == 2048
    assert m["tokens_per_s"] == round(got.tokens_per_s, 3) and m["ceiling_tps"] == round(got.ceiling_tps, 3)
    assert m["ratio"] == round(got.ratio, 3) and m["comparable"] is True and m["batch"] == 1
    assert "measured by this project" in m["source_title"]
    # In another format the measurement is still named, but marked as not comparable.
    out = subprocess.run([sys.executable, "-m", "generator.cli", "fit", MODEL, "--device", "H100 SXM", "--format", "q4_k_m", "--json"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert json.loads(out.stdout)["devices"][0]["measured"]["comparable"] is False


def _calc_data(site: Path) -> dict:
    return json.loads(soup(site, "calculator").find(id="atlas-calc")["data-calc"])


def test_the_calculator_data_carries_the_measurements(site, atlas):
    data = _calc_data(site)
    points = [p for p in data["measured"]["points"] if p["model"] == MODEL and p["device"] == DEVICE]
    expected = [p for p in measured_points(atlas, MODEL, DEVICE) if p.batch == 1]
    assert {(p["context"], p["source"]) for p in points} == {(p.context, p.source) for p in expected}
    for p in points:
        assert p["url"].startswith("../sources/measured-") and p["ratio"] == pytest.approx(p["tokens_per_s"] / p["ceiling_tps"], abs=1e-3)
    assert data["measured"]["bits"] == 16


def test_the_calculator_shows_the_measurement_for_that_model_device_and_format(base, site, browser, atlas):
    data = _calc_data(site)
    sixteen = next(o["id"] for g in data["formats"] for o in g["options"] if o["bits"] == 16)
    got = measured_for(atlas, MODEL, DEVICE, 2048)
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    goto(page, f"{base}/calculator/?model={MODEL}&format={sixteen}&context=2048")
    cell = page.locator(f"tr[data-device='{DEVICE}'] .atlas-calc__decode .atlas-calc__measured")
    text = cell.inner_text()
    assert f"measured {tps(got.tokens_per_s)} tok/s at 2,048 tokens, {got.ratio:.2f} of the ceiling there ({got.ceiling_tps:,.0f})" in text
    href = cell.locator("a").get_attribute("href")
    assert href.endswith(f"/sources/{got.source}/")
    assert page.locator("tr[data-device='nvidia-b200'] .atlas-calc__measured").count() == 0  # no record, no figure
    # The same nearest-context rule as calc.py: 4,096 tokens shows the 2,048-token figure.
    page.fill("#calc-context", "4096")
    assert "at 2,048 tokens" in cell.inner_text()
    # A 4-bit format: no measured figure in the row, a note saying why.
    goto(page, f"{base}/calculator/?model={MODEL}&format=q4_k_m&context=2048")
    assert cell.count() == 0
    assert "16-bit weights and KV cache only" in page.locator(f"tr[data-device='{DEVICE}'] .atlas-calc__why").text_content()
    page.close()


def _prefill_expected(atlas, record: Path) -> list[tuple[int, float, float, float]]:
    """(prompt, time to first token in ms, prompt tok/s, ratio to the prefill ceiling), read
    from the record file itself and the entries' own figures: dense 16-bit TFLOPS of the
    device over 2 FLOP per active parameter."""
    from generator.knowledge.calc import device_spec, model_spec

    rec = yaml.safe_load(record.read_text(encoding="utf-8"))
    m = model_spec(atlas.entries[rec["model"]["id"]])
    d = device_spec(atlas.entries[rec["datasheet"]["hardware_id"]])
    tflops = d.tflops.get("fp16") or d.tflops.get("bf16")
    ceiling = tflops * 1e12 / (2 * m.active_b * 1e9)
    return [(x["prompt_length"], x["time_to_first_token_s"]["median"] * 1000, x["prompt_tokens_per_s"]["median"],
             x["prompt_tokens_per_s"]["median"] / ceiling) for x in rec["prefill"] if x["status"] == "measured"]


def test_prefill_is_measured_beside_its_ceiling_on_the_pages_the_calculator_and_atlas_fit(site, atlas, browser, base):
    """The records' prefill (time to first token, prompt tokens per second) stands beside the
    prefill ceiling: in a table on the H200 page, on the record's source page, in the
    calculator's prefill column and in `atlas fit --json`."""
    record = RESULTS / "nvidia-h200-llama-3-1-8b-2026-11-25.yaml"
    expected = _prefill_expected(atlas, record)
    assert len(expected) >= 3
    page = soup(site, "hardware/nvidia-h200")
    table = page.find(id="measured").find_next("table").find_next("table")
    rows = [[td.get_text(" ", strip=True) for td in tr.find_all("td")] for tr in table.select("tbody tr")]
    src = soup(site, f"sources/{measurement_source_id(record.stem)}")
    src_rows = [[td.get_text(" ", strip=True) for td in tr.find_all("td")]
                for tr in src.find(id="prefill-measured").find_next("table").select("tbody tr")]
    for prompt, ttft, rate, ratio in expected:
        hit = [r for r in rows if r[0] == "Llama 3.1 8B" and r[2] == f"{prompt:,}"]
        assert hit and hit[0][3] == f"{ttft:,.1f} ms" and hit[0][4].startswith(f"{rate:,.0f} tok/s") and hit[0][6] == f"{ratio:.2f}", (hit, rows)
        assert any(r[0] == f"{prompt:,}" and r[1] == f"{ttft:,.1f} ms" and r[5] == f"{ratio:.2f}" for r in src_rows), src_rows
    # The calculator: 16-bit weights and cache, 2,048 tokens -> the 2,048-token prompt.
    prompt, ttft, rate, ratio = next(x for x in expected if x[0] == 2048)
    tab = browser.new_page(viewport={"width": 390, "height": 900})
    goto(tab, f"{base}/calculator/?model={MODEL}&format=bf16&context=2048")
    text = tab.locator("tr[data-device='nvidia-h200'] .atlas-calc__prefill .atlas-calc__measured").inner_text()
    assert f"measured {rate:,.0f} tok/s for a 2,048-token prompt (first token in {ttft:,.0f} ms), {ratio:.2f} of the ceiling" in text
    goto(tab, f"{base}/calculator/?model={MODEL}&format=q4_k_m&context=2048")
    assert tab.locator("tr[data-device='nvidia-h200'] .atlas-calc__prefill .atlas-calc__measured").count() == 0  # measured in 16-bit only
    tab.close()
    out = subprocess.run([sys.executable, "-m", "generator.cli", "fit", MODEL, "--format", "bf16", "--context", "2048",
                          "--device", "nvidia-h200", "--json"], cwd=REPO, capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)["devices"][0]["measured_prefill"]
    assert got["prompt"] == 2048 and abs(got["tokens_per_s"] - rate) < 0.5 and abs(got["ratio"] - ratio) < 1e-6
