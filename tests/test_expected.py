"""Speed you can expect (issue 46): published measurements as data (glossary/benchmarks), each
beside its ceiling; expected speed calibrated from them with a band and a basis, the same in
`atlas fit`, the pages and the calculator; honest where the data is thin.

Expected figures here are worked out from the data set with calc.calibrate's public functions
and checked for the properties a reader relies on (inside the band, under the ceiling, the same
everywhere), never copied from a page."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import REPO, goto
from generator.kb.load import load_tree
from generator.kb.validate import validate
from generator.knowledge.calc import (
    device_spec,
    estimate,
    expected,
    families,
    model_spec,
    points,
    precision_for,
    sized_devices,
)
from generator.knowledge.calc.calibrate import MIN_ROWS, _usable, predict
from generator.pipeline import load_atlas


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def soup(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path / "index.html").read_text(encoding="utf-8"), "html.parser")


def test_the_data_set_is_broad_and_every_row_cites_a_source_a_reader_can_open(atlas):
    rows = atlas.benchmarks
    assert len(rows) >= 100
    assert len({r.device for r in rows}) >= 20
    assert len({(r.engine, r.backend) for r in rows}) >= 4
    for r in rows:
        s = atlas.sources[r.source]
        assert s.url and s.url.startswith("https://"), r
        assert atlas.entries[r.device].kind == "hardware" and atlas.entries[r.model].kind == "model"
        assert r.tps > 0 and math.isfinite(r.tps)
    # this project's own GPU records are not in it: they calibrate nothing
    assert not {r.source for r in rows} & set(atlas.measurements)


def test_each_row_stands_beside_its_ceiling(atlas):
    for p in points(atlas):
        if p.ratio is None:
            assert p.why_not, p.row
            continue
        m, d = model_spec(atlas.entries[p.row.model]), device_spec(atlas.entries[p.row.device])
        if p.kind == "decode" and p.row.devices == 1 and p.row.batch == 1:
            e = estimate(m, d, precision_for(atlas, p.row.format, None), max(1, p.row.depth + p.row.tokens // 2), 1,
                         overhead=0)
            assert p.ceiling == pytest.approx(e.decode_tps if e.decode_bound != "compute" else p.ceiling, rel=1e-9)
        assert p.ratio == pytest.approx(p.row.tps / p.ceiling)


def test_expected_never_exceeds_the_ceiling_and_its_band_holds_it(atlas):
    models = ["llama-3-1-8b", "llama-3-3-70b", "gpt-oss-20b", "qwen3-30b-a3b"]
    checked = 0
    for e in sized_devices(atlas):
        for mid in models:
            for fmt in ("q4_k_m", "fp16"):
                for ceiling in (50.0, 1000.0):
                    x = expected(atlas, mid, e.id, fmt, ceiling)
                    if x.tps is None:
                        assert x.basis == "ceiling only" and x.basis_text
                        continue
                    checked += 1
                    assert x.low <= x.tps <= x.high <= ceiling, (e.id, mid, fmt, x)
                    assert x.basis in ("measured", "calibrated") and x.n >= 1
    assert checked > 100


def test_every_calibrating_row_falls_inside_the_band_of_its_own_engine_and_backend(atlas):
    """Done when published measurements of models in the atlas fall inside their bands."""
    for p in points(atlas):
        if not _usable(p):
            continue
        x = expected(atlas, p.row.model, p.row.device, p.row.format, p.ceiling, p.kind, engine=p.row.engine, backend=p.row.backend)
        assert x.basis == "measured", p.row
        assert x.low * (1 - 1e-9) <= p.row.tps <= x.high * (1 + 1e-9), (p.row, x)


def test_a_reader_naming_only_the_engine_gets_a_band_that_holds_every_run_of_it(atlas):
    """A reader names an engine, not a backend: the band `atlas fit --engine` gives must hold the
    engine's published runs on every backend (llama.cpp's ROCm and Vulkan runs on one machine
    differ by half in prefill), and say which backends it rests on."""
    many = 0
    for p in points(atlas):
        if not _usable(p):
            continue
        x = expected(atlas, p.row.model, p.row.device, p.row.format, p.ceiling, p.kind, engine=p.row.engine)
        assert x.low * (1 - 1e-9) <= p.row.tps <= x.high * (1 + 1e-9), (p.row, x)
        many += " and " in x.basis_text
    assert many, "some device, model and format was measured on two backends of one engine"


def test_gguf_gpt_oss_is_sized_as_its_file_and_its_runs_stay_under_the_ceiling(atlas):
    """ggml-org's gpt-oss GGUFs are llama.cpp's MXFP4_MOE type (experts MXFP4, every other matrix
    Q8_0): llama-bench prints 11.27 GiB for the 20b file and 59.02 GiB for the 120b, well under the
    release's BF16-attention size, so a ceiling for the release would sit under their decode runs."""
    for model, gib in (("gpt-oss-20b", 11.27), ("gpt-oss-120b", 59.02)):
        gguf = estimate(model_spec(atlas.entries[model]), None, precision_for(atlas, "mxfp4_moe", None), 4096)
        release = estimate(model_spec(atlas.entries[model]), None, precision_for(atlas, "mxfp4", None), 4096)
        assert abs(gguf.weights_gb * 1e9 / 2**30 - gib) / gib < 0.01, (model, gguf.weights_gb)
        assert release.weights_gb * 1e9 / 2**30 > gib * 1.02
    runs = [p for p in points(atlas) if p.row.format == "mxfp4_moe" and p.kind == "decode"]
    assert len(runs) >= 10 and all(p.ratio is not None and p.ratio <= 1.0 for p in runs), \
        [(p.row.device, p.ratio) for p in runs if p.ratio and p.ratio > 1]


def test_a_device_served_only_at_scale_calibrates_on_its_own_runs_before_its_vendors_other_devices(atlas):
    """Gaudi 3 has vLLM runs of its own, all at 64 requests at once; Intel's one-request runs are
    llama.cpp on Arc graphics cards. Its own kind of device at scale is the nearer evidence."""
    x = expected(atlas, "llama-3-1-8b", "intel-gaudi-3", "bf16", 200.0)
    assert x.basis == "calibrated" and x.engine == "vllm" and "several requests" in x.basis_text, x
    assert "other Intel devices" not in x.basis_text
    arc = expected(atlas, "llama-3-1-8b", "intel-arc-b580", "q4_k_m", 80.0)
    assert arc.engine == "llama-cpp" and "several" not in arc.basis_text  # Arc keeps its own runs
    at_scale = {f.devices for f in families(atlas, "decode", at_scale=True)}
    assert "Intel accelerators with HBM" in at_scale


def test_a_thin_family_says_so_and_its_band_is_wider_than_its_rows(atlas):
    thin = [f for k in ("decode", "prefill") for f in families(atlas, k) if f.band.n < MIN_ROWS]
    assert thin, "the data set has families of one or two rows"
    rows = {}
    for p in points(atlas):
        if _usable(p):
            rows.setdefault((p.kind, *p.family), []).append(p.ratio)
    for f in thin:
        ratios = rows[(f.kind, f.engine, f.backend, f.devices)]
        assert f.band.low < min(ratios) and (f.band.high > max(ratios) or f.band.high == 1.0)
    x = expected(atlas, "llama-3-1-8b", "apple-m1-max", "q4_k_m", 80.0, engine="llama-cpp")
    assert x.basis == "measured" and "too few for a narrow band" in x.basis_text


def test_rows_that_all_come_from_one_source_give_a_wide_band_that_says_so(atlas):
    """Three runs from one table share its machine, build and method: their agreement is no
    reason for a narrow band. llama.cpp on NVIDIA HBM rests on one pull request's table."""
    sources: dict[tuple, set] = {}
    rows: dict[tuple, list] = {}
    for p in points(atlas):
        if _usable(p):
            sources.setdefault((p.kind, *p.family), set()).add(p.row.source)
            rows.setdefault((p.kind, *p.family), []).append(p.ratio)
    one = [f for k in ("decode", "prefill") for f in families(atlas, k)
           if f.band.n >= MIN_ROWS and len(sources[(f.kind, f.engine, f.backend, f.devices)]) == 1]
    assert one, "some family of three or more rows rests on one source"
    for f in one:
        ratios = rows[(f.kind, f.engine, f.backend, f.devices)]
        assert f.band.thin and f.band.low < min(ratios) and (f.band.high > max(ratios) or f.band.high == 1.0), f
    x = expected(atlas, "llama-3-1-8b", "nvidia-h100-sxm", "q4_k_m", 200.0, engine="llama-cpp")
    assert x.basis == "calibrated" and "all from one source" in x.basis_text, x


def test_an_engine_measured_on_one_vendor_calibrates_nothing_on_another(atlas):
    x = expected(atlas, "llama-3-1-8b", "google-tpu-v6e", "fp16", 500.0, engine="llama-cpp")
    assert x.tps is None and x.basis == "ceiling only" and "Google" in x.basis_text
    x = expected(atlas, "llama-3-1-8b", "nvidia-rtx-4090", "q4_k_m", 200.0, engine="mlx-lm")
    assert x.tps is None and x.basis == "ceiling only" and "MLX-LM" in x.basis_text


def test_accelerators_served_only_at_scale_get_a_wide_band_that_says_so(atlas):
    """Every published run on TPUs and Trainium is split over several chips or serves several
    requests at once: with nothing of one request on one chip, those runs calibrate, the band is
    widened, and the basis says why (issue 46: an expected speed on any device with a bandwidth)."""
    from generator.knowledge.calc.calibrate import WIDEN, points

    for device in ("aws-trainium3", "google-tpu-v5p"):
        x = expected(atlas, "llama-3-1-8b", device, "bf16", 300.0)
        assert x.basis == "calibrated" and "several chips" in x.basis_text, x
        assert x.low < x.tps < x.high <= 300.0
        # the band reaches a third past the lowest and highest ratio of the runs it rests on
        vendor = atlas.entries[device].get("vendor")
        ratios = [p.ratio for p in points(atlas) if p.kind == "decode" and p.ratio is not None and not p.row.excluded
                  and atlas.entries[p.row.device].get("vendor") == vendor]
        assert x.low >= min(ratios) * (1 - WIDEN) ** 2 * 300.0 - 1e-6 and x.low < min(ratios) * 300.0
    # where one request on one chip was measured, runs at scale do not dilute it
    x = expected(atlas, "llama-3-1-8b", "nvidia-rtx-4090", "q4_k_m", 200.0)
    assert "several chips" not in x.basis_text


def test_held_back_rows_are_predicted_and_reported_on_the_page(atlas, site):
    page = soup(site, "calculator/expected-speed")
    text = page.get_text(" ")
    table = page.find(id="families").find_next("table")
    shown = {tuple(td.get_text(" ", strip=True) for td in tr.find_all("td"))[:3] for tr in table.find("tbody").find_all("tr")}
    for kind in ("decode", "prefill"):
        for f in families(atlas, kind):
            assert (kind, f.label, str(f.band.n)) in shown
            if f.loo_n:
                # each held-back row predicted from all the others, by the same rules as any reader's query
                errors = []
                for p in points(atlas):
                    if _usable(p) and p.kind == kind and (p.row.engine, p.row.backend, p.family[2]) == (f.engine, f.backend, f.devices):
                        rest = [q for q in points(atlas) if _usable(q) and q.kind == kind and q is not p and q.row.engine == f.engine]
                        pr = predict(atlas, rest, p.row.model, atlas.entries[p.row.device], p.format_label)
                        if pr is not None:
                            errors.append(abs(pr.band.ratio - p.ratio) / p.ratio)
                assert len(errors) == f.loo_n and sorted(errors)[len(errors) // 2] >= 0
    assert "Held-out error" in text and f"{len(points(atlas))} speeds" in text
    # the families that rest on runs at scale (TPUs, Trainium) have a table of their own, checked the same way
    table = page.find(id="families-at-scale").find_next("table")
    shown = {tuple(td.get_text(" ", strip=True) for td in tr.find_all("td"))[:3] for tr in table.find("tbody").find_all("tr")}
    scaled = [f for kind in ("decode", "prefill") for f in families(atlas, kind, at_scale=True)]
    assert scaled and {(f.kind, f.label, str(f.band.n)) for f in scaled} == shown
    assert any("Neuron" in f.label for f in scaled) and any("TPU" in f.label for f in scaled)
    assert all(f.band.low < f.band.ratio < f.band.high for f in scaled)


def test_device_and_model_pages_show_their_rows_beside_the_ceiling(atlas, site):
    for path, key in (("hardware/apple-m2-ultra", "device"), ("models/llama-2-7b", "model")):
        section = soup(site, path).find(id="expected")
        assert section is not None, path
        table = section.find_next("table")
        mine = [p for p in points(atlas) if getattr(p.row, key) == path.split("/")[1]]
        assert len(table.find("tbody").find_all("tr")) == len(mine)
        for p in mine:
            if p.ratio is not None:
                assert f"{p.ratio:.2f}" in table.get_text(" ")
    # the device page says what its own figures rest on, and the fit table carries the expected figure
    m2 = soup(site, "hardware/apple-m2-ultra")
    assert "expect about" in m2.find(id="expected").find_next("p").get_text(" ")
    assert m2.select(".atlas-expected")


def test_atlas_fit_json_gives_expected_speed_with_band_and_basis(atlas):
    out = subprocess.run([sys.executable, "-m", "generator.cli", "fit", "llama-3-1-8b", "--format", "q4_k_m", "--device", "RTX 4090",
                          "--device", "RTX 5090", "--device", "TPU v6e", "--prompt", "1000", "--json"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = {r["device"]: r for r in json.loads(out.stdout)["devices"]}
    for dev, basis in (("nvidia-rtx-4090", "measured"), ("nvidia-rtx-5090", "calibrated"), ("google-tpu-v6e", "calibrated")):
        r = rows[dev]
        assert r["decode_expected_basis"] == basis and r["prefill_expected_basis"] in ("measured", "calibrated", "ceiling only")
        x = expected(atlas, "llama-3-1-8b", dev, "q4_k_m", r["decode_tps"])
        assert r["decode_expected_tps"] == (pytest.approx(x.tps, abs=0.01) if x.tps else None)  # the JSON's ceiling is rounded
        if x.tps:
            assert r["decode_expected_low"] <= r["decode_expected_tps"] <= r["decode_expected_high"] <= r["decode_tps"]
        if r["prefill_expected_tps"]:
            assert r["ttft_expected_s"] == pytest.approx(1000 / r["prefill_expected_tps"], rel=1e-3)
            assert r["ttft_ceiling_s"] <= r["ttft_expected_s"]
    # naming an engine gives that engine's figure, or says plainly there is none
    out = subprocess.run([sys.executable, "-m", "generator.cli", "fit", "llama-3-1-8b", "--format", "q4_k_m", "--device", "RTX 4090",
                          "--engine", "vLLM", "--json"], cwd=REPO, capture_output=True, text=True, timeout=120)
    row = json.loads(out.stdout)["devices"][0]
    assert row["decode_expected_basis"] == "ceiling only" and "vLLM" in row["decode_expected_from"]


@pytest.mark.parametrize("bad, message", [
    ("tps: 127.74", "tps: .nan"),
    ("device: nvidia-rtx-4090", "device: nvidia-rtx-4909"),
    ("format: q4_k_m", "format: q9_z"),
    ('checkpoint: "Meta-Llama-3-8B, Q4_K_M GGUF"', 'checkpoint: "<script>alert(1)</script>"'),
    ("test: tg1024", "test: tg1024; rm"),
])
def test_a_bad_row_is_refused_where_it_is(kb, bad, message):
    path = kb / "glossary/benchmarks/xiongjiedai-llama-3.yaml"
    text = path.read_text(encoding="utf-8")
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "nvidia-rtx-4090" in x and bad.split(":")[0] + ":" in x)
    assert bad in text.splitlines()[line - 1]
    lines = text.splitlines()
    lines[line - 1] = lines[line - 1].replace(bad, message, 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    docs, problems = load_tree(kb)
    found = [f for f in problems + validate(docs) if f.path.endswith("xiongjiedai-llama-3.yaml")]
    assert found and all(f.line == line for f in found), found


def test_the_calculator_gives_the_same_expected_speed_as_python(atlas, base, browser):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    goto(page, f"{base}/calculator/?model=llama-3-1-8b&format=q4_k_m&context=4096&where=consumer")
    m = model_spec(atlas.entries["llama-3-1-8b"])
    prec = precision_for(atlas, "q4_k_m", None)
    for dev in ("nvidia-rtx-4090", "nvidia-rtx-5090", "nvidia-rtx-3090", "amd-radeon-rx-7900-xtx"):
        e = estimate(m, device_spec(atlas.entries[dev]), prec, 4096, 1)
        x = expected(atlas, "llama-3-1-8b", dev, "q4_k_m", e.decode_tps)
        line = page.locator(f"tr[data-device='{dev}'] .atlas-calc__expected").inner_text()
        fmt = lambda v: f"{v:,.1f}" if v < 10 else f"{v:,.0f}"  # noqa: E731
        assert line.startswith(f"expect about {fmt(x.tps)} ({fmt(x.low)}–{fmt(x.high)}) tok/s"), line
        assert line.endswith(x.basis)
    # TPUs, Trainium and Gaudi, calibrated only from runs at scale: the page's port takes the same
    # second step, and for Gaudi takes it before Intel's graphics cards
    goto(page, f"{base}/calculator/?model=llama-3-1-8b&format=bf16&context=4096&where=data-centre&rows=all")
    prec16 = precision_for(atlas, "bf16", None)
    for dev in ("google-tpu-v6e", "aws-trainium2", "intel-gaudi-3"):
        e = estimate(m, device_spec(atlas.entries[dev]), prec16, 4096, 1)
        x = expected(atlas, "llama-3-1-8b", dev, "bf16", e.decode_tps)
        line = page.locator(f"tr[data-device='{dev}'] .atlas-calc__expected").inner_text()
        assert x.basis == "calibrated" and line.startswith(f"expect about {fmt(x.tps)} ({fmt(x.low)}–{fmt(x.high)}) tok/s"), line
        assert "several chips" in page.locator(f"tr[data-device='{dev}'] .atlas-calc__expected").get_attribute("title")
    # a family resting on one source is widened in the page's port too (llama.cpp on H100s: one table)
    e = estimate(m, device_spec(atlas.entries["nvidia-h100-sxm"]), prec16, 4096, 1)
    x = expected(atlas, "llama-3-1-8b", "nvidia-h100-sxm", "bf16", e.decode_tps)
    cell = page.locator("tr[data-device='nvidia-h100-sxm'] .atlas-calc__expected")
    assert cell.inner_text().startswith(f"expect about {fmt(x.tps)} ({fmt(x.low)}–{fmt(x.high)}) tok/s"), cell.inner_text()
    assert "all from one source" in x.basis_text and "all from one source" in (cell.get_attribute("title") or "")
    goto(page, f"{base}/calculator/?model=llama-3-1-8b&format=q4_k_m&context=4096&where=consumer")
    # an engine with no published rows there: ceiling only, said plainly; the choice stays in the URL
    page.select_option("#calc-engine", "mlx-lm")
    assert "ceiling only" in page.locator("tr[data-device='nvidia-rtx-4090'] .atlas-calc__expected").inner_text()
    assert "engine=mlx-lm" in page.url
    # a wait of minutes reads in minutes: a Raspberry Pi 5 reads a 4,096-token prompt to an 8B model
    # at about 19 tokens/s at best, so the first token comes minutes later
    goto(page, f"{base}/calculator/?model=llama-3-1-8b&format=q4_k_m&context=4096&where=edge")
    ttft = page.locator("tr[data-device='raspberry-pi-5'] .atlas-calc__ttft").inner_text()
    assert re.match(r"4,096-token TTFT: expect [\d.,]+ \([\d.,]+–[\d.,]+\) min, at best [\d.,]+ (s|min) · calibrated$", ttft), ttft
    page.close()


def test_the_expected_line_is_readable_on_a_phone(base, browser):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    goto(page, f"{base}/calculator/?model=llama-3-1-8b&format=q4_k_m&where=consumer&rows=all")
    line = page.locator("tr[data-device='nvidia-rtx-4090'] .atlas-calc__expected")
    box = line.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert float(line.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 12
    page.close()
