"""Issue 44 item 4: what a page says fits is the calculator's arithmetic. Every sentence of a
device or model page that names a model (or a device) and says it fits or holds has a claim
in the entry's `fits`, and every claim is sized with the calculator: weights, a 16-bit KV
cache for one sequence and 10% overhead, against what the GPU may use (a Mac's default share,
at the memory size the claim names). A device sold in several memory sizes gets each one, on
its page, in the calculator and in `atlas fit`."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml

from conftest import REPO, goto

FIT_WORDS = re.compile(r"\b(fits?|holds?|squeezes)\b|does not fit", re.IGNORECASE)
LINK = re.compile(r"\[\[([a-z0-9-]+)(?:\|[^\]]*)?\]\]")


def _entries(kind: str) -> dict[str, dict]:
    return {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((REPO / "glossary" / kind).glob("*.yaml"))}


def _sentences(body: str):
    """A body's sentences: paragraphs, list items and headings apart, then split at full stops."""
    for para in re.split(r"\n\s*\n|\n(?=\s*(?:[-*] |#))", body):
        yield from re.split(r"(?<=[.!?])\s+(?=[A-Z\[*])", re.sub(r"\s+", " ", para).strip())


def _claims():
    out = []
    for kind, other in (("hardware", "model"), ("models", "device")):
        for eid, d in _entries(kind).items():
            for c in d.get("fits") or ():
                model, device = (c["model"], eid) if kind == "hardware" else (eid, c["device"])
                out.append(pytest.param(model, device, c, id=f"{eid}:{c[other]}:{c.get('format', c.get('bits'))}"))
    return out


@pytest.fixture(scope="module")
def atlas():
    from generator.pipeline import load_atlas

    return load_atlas(REPO)


@pytest.mark.parametrize("model, device, claim", _claims())
def test_every_fit_claim_holds_by_the_calculators_arithmetic(atlas, model, device, claim):
    from generator.knowledge.calc import estimate, model_spec, pick_device, precision_for

    d = pick_device(atlas, device, claim.get("memory_gb"))
    m = model_spec(atlas.entries[model])
    p = precision_for(atlas, claim.get("format"), claim.get("bits"))
    est = estimate(m, d, p, min(claim.get("context", 4096), m.context_length or 4096), 1, devices=claim.get("devices", 1))
    # a device's GB are binary (an 80 GB card holds 80 GiB); what a model needs is in 10^9-byte GB
    room = (d.memory_gb if claim.get("raised") else d.usable_gb) * claim.get("devices", 1) * 2**30 / 1e9
    assert (est.total_gb <= room) is claim["fits"], (
        f"{model} in {p.label} on {claim.get('devices', 1)} x {d.title}: {est.total_gb:.1f} GB against {room:g} GB; "
        f"the page says it {'fits' if claim['fits'] else 'does not fit'}")


def test_every_sentence_that_says_a_model_fits_has_its_claim():
    """A sentence naming a model on a device page (or a device on a model page) with 'fits',
    'holds' or 'squeezes' is checked only through a claim: none may go without one."""
    devices, models = _entries("hardware"), _entries("models")
    missing = []
    for entries, names, key in ((devices, models, "model"), (models, devices, "device")):
        for eid, d in entries.items():
            have = {c[key] for c in d.get("fits") or ()}
            for s in _sentences(d.get("body") or ""):
                named = [x for x in LINK.findall(s) if x in names]
                if named and FIT_WORDS.search(s) and not set(named) <= have:
                    missing.append((eid, sorted(set(named) - have), s[:120]))
    assert missing == []
    # the scan finds what it is for: the M2 Max page's sentence on Llama 3.3 70B
    m2 = [s for s in _sentences(devices["apple-m2-max"]["body"]) if "llama-3-3-70b" in s and FIT_WORDS.search(s)]
    assert m2, "the scan no longer finds the M2 Max's sentence"


def test_a_64_gb_mac_is_not_the_96_gb_one(atlas):
    """The issue's case: Llama 3.3 70B in Q4_K_M at 32K needs 42.5 GB of weights + 10.7 GB of
    cache + 10% = 58.6 GB: more than the 48 GB (48 GiB: 51.5 GB) a 64 GB M2 Max's GPU may use,
    less than the 72 GB (77.3 GB) of a 96 GB one. At 8K (49.7 GB) the 64 GB machine holds it."""
    from generator.knowledge.calc import CalcError, configurations, estimate, model_spec, pick_device, precision_for

    sizes = configurations(atlas.entries["apple-m2-max"])
    assert [(d.memory_gb, d.gpu_default_gb) for d in sizes] == [(32, 21.33), (64, 48), (96, 72)]
    m, p = model_spec(atlas.entries["llama-3-3-70b"]), precision_for(atlas, "q4_k_m", None)
    kv = 80 * 8 * 128 * 2 * 2 * 32768  # 80 layers, 8 KV heads of 128, K and V, 2 bytes
    est = estimate(m, sizes[1], p, 32768, 1)
    assert est.kv_gb * 1e9 == pytest.approx(kv, rel=1e-9) and est.total_gb == pytest.approx((est.weights_gb + kv / 1e9) * 1.1)
    assert est.total_gb > 48 * 2**30 / 1e9 and est.fits is False
    assert estimate(m, sizes[2], p, 32768, 1).fits is True and estimate(m, sizes[1], p, 8192, 1).fits is True
    # names people type: a size at the end, or --memory; a size it is not sold in is refused
    assert pick_device(atlas, "M2 Max 64GB").id == "apple-m2-max@64"
    assert pick_device(atlas, "apple-m2-max", 32).gpu_default_gb == 21.33
    with pytest.raises(CalcError, match="not sold with 48 GB; its sizes: 32, 64, 96"):
        pick_device(atlas, "M2 Max", 48)


def test_atlas_fit_sizes_a_device_in_the_memory_it_was_bought_with():
    run = lambda *a: subprocess.run([sys.executable, "-m", "generator.cli", "fit", *a], cwd=REPO,  # noqa: E731
                                    capture_output=True, text=True)
    r = run("llama-3-3-70b", "--format", "q4_k_m", "--context", "32768", "--device", "M2 Max", "--memory", "64")
    assert r.returncode == 0, r.stderr
    assert "Apple M2 Max, 64 GB" in r.stdout and "more than the 48 GiB (51.5 GB) its GPU may use by default" in r.stdout
    r = run("llama-3-3-70b", "--format", "q4_k_m", "--device", "M2 Max", "--memory", "48")
    assert r.returncode == 2 and "its sizes: 32, 64, 96 GB" in r.stderr and "Traceback" not in r.stderr


def test_a_claim_or_size_that_names_nothing_is_a_located_error(kb):
    """`atlas check` refuses a claim about a model the atlas lacks, a size the device is not
    sold in, and sizes out of order (and nothing else is wrong)."""
    p = kb / "glossary/hardware/apple-m2-max.yaml"
    text = p.read_text(encoding="utf-8")
    text = text.replace("- {model: llama-3-3-70b, format: q4_k_m, context: 8192, fits: true}",
                        "- {model: llama-9-70b, format: q4_k_m, context: 8192, fits: true}")
    text = text.replace("memory_gb: 64, fits: false}", "memory_gb: 80, fits: false}")
    text = text.replace("  - memory_gb: 32\n", "  - memory_gb: 65\n", 1)
    p.write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "generator.cli", "--root", str(kb), "check"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 2, r.stdout + r.stderr
    out = r.stdout + r.stderr
    assert "apple-m2-max.yaml:" in out and "'llama-9-70b' is not a model of the atlas" in out
    assert "80 GB is not one of its sizes (65, 64, 96 GB)" in out
    assert "give each memory size once, smallest first" in out
    # the claim at 32 GB no longer names a size either, since 32 became 65: four errors, no others
    assert "32 GB is not one of its sizes" in out and out.count("apple-m2-max.yaml:") == 4 and "4 errors" in out, out


@pytest.mark.parametrize("width", [1366, 390])
def test_the_device_page_and_the_calculator_show_each_memory_size(site, browser, width, atlas):
    """The M2 Max page's 'By memory size' table has a row per size with the GPU's share, and
    the largest dense model it names at each size fits there by the calculator while the next
    larger dense model of the atlas does not; the calculator lists the 64 GB machine."""
    from conftest import serve
    from generator.knowledge.calc import configurations, estimate, model_spec, precision_for

    p = precision_for(atlas, "q4_k_m", None)
    dense = sorted((model_spec(x) for x in atlas.of_kind("model")), key=lambda m: m.params_b)
    dense = [m for m in dense if m.params_b and m.active_b == m.params_b]
    with serve(site) as base:
        page = browser.new_page(viewport={"width": width, "height": 900})
        goto(page, base + "/hardware/apple-m2-max/")
        rows = page.locator("xpath=//h2[@id='sizes']/following::table[1]").locator("tbody tr")
        assert rows.count() == 3
        for i, d in enumerate(configurations(atlas.entries["apple-m2-max"])):
            cells = rows.nth(i).locator("td").all_inner_texts()
            assert cells[0].startswith(f"{d.memory_gb:g} GB") and cells[1].startswith(f"{d.gpu_default_gb:g} GB")
            named = rows.nth(i).locator("td").nth(2).locator("a").first.get_attribute("href").rstrip("/").split("/")[-1]
            m = next(x for x in dense if x.id == named)
            assert estimate(m, d, p, min(8192, m.context_length or 8192), 1).fits
            bigger = [x for x in dense if x.params_b > m.params_b]
            assert all(not estimate(x, d, p, min(8192, x.context_length or 8192), 1).fits for x in bigger)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        goto(page, base + "/calculator/?model=llama-3-3-70b&format=q4_k_m&context=32768")
        row = page.locator("tr[data-device='apple-m2-max@64']")
        assert row.count() == 1 and row.locator(".atlas-calc__fits").inner_text().startswith("no")
        assert page.locator("tr[data-device='apple-m2-max'] .atlas-calc__fits").inner_text() == "yes"
        page.close()
