"""The calculator page in Chromium: same numbers as the Python calculator, clear messages
for bad input, and the state kept in the URL."""

from pathlib import Path

import pytest

from generator.knowledge.calc import device_spec, estimate, model_spec
from generator.pipeline import load_atlas
from conftest import REPO, goto


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
    goto(page, base + "/calculator/")
    page.select_option("#calc-format", "q4_k_m")  # a variant of the FP16 term in this knowledge base
    page.fill("#calc-context", "8192")
    page.fill("#calc-seqs", "2")
    row = page.locator("tr[data-device='gpu-y']")
    assert row.locator(".atlas-calc__fits").inner_text() == ("yes" if expected.fits else f"no: needs {expected.devices_needed}")
    # two sequences share each step: per sequence and for both, as the Python calculator says
    decode = f"{expected.decode_tps:,.0f} tok/s each, {expected.decode_total_tps:,.0f} in total"
    assert row.locator(".atlas-calc__decode").inner_text().split("\n")[0] == decode  # (a cost line follows)
    assert f"Needs {expected.total_gb:,.1f} GB" in page.locator(".atlas-calc__summary").inner_text()
    # The state is in the URL: reloading it gives the same answer.
    goto(page, page.url)
    assert page.locator("tr[data-device='gpu-y'] .atlas-calc__decode").inner_text().split("\n")[0] == decode
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
    goto(page, base + "/calculator/")
    page.fill(field, value)
    assert message in page.locator(".atlas-calc__error").inner_text()
    assert page.locator(".atlas-calc__table tr").count() == 0
    page.close()


def test_a_70b_model_at_4_bits_on_rtx_4090s_says_how_many_and_why(site, browser):
    """Worked by hand from the entries' figures: Llama 3 70B (70.6 B parameters, 80 layers,
    8 KV heads of 128, a 128,256-token vocabulary of 8,192 wide) at Q4_K_M, part by part
    (llama.cpp's rule: the output head's 1.05 B at Q6_K, 6.5625 bits; the embedding's 1.05 B at
    4.5; attention's 12.08 B at 4.6; the MLP's 56.37 B at 4.84375, its FFN width 28,672 from
    Meta's model arguments) with 4,096 tokens needs 42.53 + 1.34 GB, plus 10%: 48.26 GB, so two
    24 GB RTX 4090s (24 GiB, 25.77 GB each). A token reads every weight but the embedding table,
    41.94 GB, and the cache: 1,008 GB/s ÷ 43.28 GB = 23.3 tok/s alone, 46.6 on two; offloading
    48.26 - 25.77 = 22.49 GB to 76.8 GB/s system memory gives
    1 ÷ ((41.94 - 22.49 + 1.34) ÷ 1,008 + 22.49 ÷ 76.8) = 3.2 tok/s.
    Split two ways it draws two 450 W boards."""
    from conftest import serve

    with serve(site) as base:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        goto(page, base + "/calculator/?model=llama-3-70b&format=q4_k_m&context=4096&n=1&rows=all")
        row = page.locator("tr[data-device='nvidia-rtx-4090']")
        assert row.locator(".atlas-calc__fits").inner_text() == "no: needs 2"
        # and draws two boards' 450 W: 46.5 / 900 W = 0.05 tokens per joule
        assert row.locator(".atlas-calc__decode").inner_text() == "47 tok/s on 2 (split)\n0.05 tok/J"
        notes = row.locator(".atlas-calc__why").text_content()  # the device's own notes, with its row
        assert "Needs 48.3 GB" in notes and "offload 22.5 GB" in notes and "at most 3.2 tok/s" in notes
        assert "tok/s" not in row.locator(".atlas-calc__fits").inner_text()  # no decode figure that cannot happen
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.close()


def test_the_calculator_opens_on_something_that_fits_common_hardware(site, browser):
    from conftest import serve

    with serve(site) as base:
        page = browser.new_page()
        goto(page, base + "/calculator/")
        assert page.locator("#calc-model").input_value() == "llama-3-1-8b"
        assert page.locator("#calc-format").input_value() == "q4_k_m"
        assert page.locator("tr[data-device='nvidia-rtx-4090'] .atlas-calc__fits").inner_text() == "yes"
        labels = page.locator("#calc-format option").all_inner_texts()
        names = [t.split(" \u2014 ")[0].casefold() for t in labels]
        assert len(names) == len(set(names))  # each format once
        assert page.locator("#calc-format optgroup").count() >= 5  # grouped by family
        assert "bits per weight" in page.locator(".atlas-calc__meaning").inner_text()
        page.close()


@pytest.mark.parametrize("width", [1366, 390])
def test_decode_bars_chart_the_readers_choice_on_one_scale(site, browser, width):
    """The decode column is also a bar chart of the reader's model and format: each bar's
    length is its figure over the fastest in the table, a split (no-fit) figure is drawn
    hatched, a measurement is a tick at its own figure; on a phone every device is a block
    with its decode figure and bar in view, nothing off to the right."""
    from conftest import serve

    with serve(site) as base:
        page = browser.new_page(viewport={"width": width, "height": 900})
        goto(page, base + "/calculator/?model=llama-3-1-8b&format=bf16&context=2048&n=1&rows=all")
        bars = page.evaluate("""() => Array.from(document.querySelectorAll('.atlas-calc__table tbody tr')).map(tr => {
            const cell = tr.querySelector('.atlas-calc__decode'), track = cell.querySelector('.atlas-calc__bar');
            const fill = track && track.querySelector('.atlas-calc__fill'), tick = track && track.querySelector('.atlas-calc__tick');
            const r = track && track.getBoundingClientRect();
            return {device: tr.dataset.device, text: cell.firstChild.textContent,
                    track: r && r.width, right: cell.getBoundingClientRect().right, fill: fill && fill.getBoundingClientRect().width,
                    split: !!(fill && fill.classList.contains('atlas-calc__fill--split')),
                    tick: tick && tick.getBoundingClientRect().left + 1.5 - r.left}; })""")
        assert len(bars) > 20
        figures = {b["device"]: float(b["text"].split(" tok/s")[0].replace(",", "")) for b in bars if "tok/s" in b["text"]}
        top = max(figures.values())
        for b in bars:
            if b["device"] not in figures:
                assert b["track"] is None, b  # no figure, no bar
                continue
            assert b["track"] > 60 and abs(b["fill"] - b["track"] * figures[b["device"]] / top) <= max(2.0, b["track"] * 0.006), b
            assert b["split"] == ("split" in b["text"]), b
            assert b["right"] <= width, b  # the figure and its bar are on screen
        h100 = next(b for b in bars if b["device"] == "nvidia-h100-sxm")
        measured = float(page.locator("tr[data-device='nvidia-h100-sxm'] .atlas-calc__decode .atlas-calc__measured").inner_text().split()[1].replace(",", ""))
        assert abs(h100["tick"] - h100["track"] * measured / top) <= 2.0
        assert "fastest here" in page.locator(".atlas-calc__legend").inner_text()
        # The whole table is in view: no sideways scrolling to reach the prefill column.
        assert page.evaluate("(() => { const s = document.querySelector('.atlas-calc__scroll'); return s.scrollWidth <= s.clientWidth; })()")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.close()


CONFIGS = Path(__file__).parent / "configs"


def test_a_pasted_config_is_read_as_python_reads_it_and_sized_on_every_device(served):
    """The browser's reading of a config.json (atlas-calc.js specFromConfig) gives the same
    parameters and cache as generator/knowledge/shape.py, and the pasted model is sized in
    the table like any other."""
    from generator.knowledge.shape import read_text

    _, base, browser = served
    page = browser.new_page()
    goto(page, base + "/calculator/")
    for f in sorted(CONFIGS.glob("*.json")):
        text = f.read_text()
        py = read_text(text)
        js = page.evaluate("t => { const r = window.atlasSpecFromConfig(t, 'x'); return [r.params_total_b, r.params_active_b, r.spec.sliding_layers, r.spec.attention]; }", text)
        assert js[0] == pytest.approx(py.params_total_b, rel=1e-12) and js[1] == pytest.approx(py.params_active_b, rel=1e-12), f.name
        assert js[2] == py.spec.sliding_layers and js[3] == py.spec.attention, f.name
    page.locator(".atlas-calc__paste summary").click()
    page.fill("#calc-config", (CONFIGS / "gemma-3-27b.json").read_text())
    page.fill("#calc-context", "32768")
    assert page.locator("#calc-model").input_value() == "custom"
    info = page.locator("#calc-config-info").inner_text()
    assert "52 layers windowed at 1,024 tokens" in info and "layer_types" in info
    spec = read_text((CONFIGS / "gemma-3-27b.json").read_text()).spec
    expected = estimate(spec, None, 4.85, 32768, 1)
    page.select_option("#calc-format", "q4_k_m")
    assert f"Needs {expected.total_gb:,.1f} GB" in page.locator(".atlas-calc__summary").inner_text()
    assert "model=" not in page.url  # the pasted text is not put in the address
    page.fill("#calc-config", '{"num_hidden_layers": 32, "hidden_size": "big"}')
    assert "must be a whole number" in page.locator(".atlas-calc__error").inner_text()
    assert page.locator("#calc-model option[value='custom']").count() == 0
    page.close()


def test_cost_and_energy_match_the_python_calculator_and_stay_in_the_url(served):
    """Dollars per million tokens and tokens per joule in the page are calc.cost's: first at
    the entry's own cloud price (GPU Y: $0.69 a device-hour, 450 W), then at the reader's
    price plus electricity, which the address keeps."""
    from generator.knowledge.calc import cost

    root, base, browser = served
    atlas = load_atlas(root)
    m, d = model_spec(atlas.entries["model-z"]), device_spec(atlas.entries["gpu-y"])
    both, one = estimate(m, d, 4.85, 8192, 2), estimate(m, d, 4.85, 8192, 1)
    page = browser.new_page()
    goto(page, base + "/calculator/")
    page.select_option("#calc-format", "q4_k_m")
    page.fill("#calc-context", "8192")
    page.fill("#calc-seqs", "2")
    row = page.locator("tr[data-device='gpu-y']")

    def money(x):
        return f"${x:,.3f}" if x < 1 else f"${x:,.2f}"

    c = cost(both, d, single=one)
    line = row.locator(".atlas-calc__decode .atlas-calc__costline").inner_text()
    assert line == (f"{money(c.output_usd_per_m)}/M alone, {money(c.batch_output_usd_per_m)}/M with all 2"
                    f" · {c.tokens_per_joule:,.2f} tok/J alone, {c.batch_tokens_per_joule:,.2f} with all")
    assert "Priced at $0.69 a device-hour (Cloud Q, one-card instance" in row.locator(".atlas-calc__why").text_content()
    page.fill("#calc-price", "2")
    page.fill("#calc-kwh", "0.3")
    c = cost(both, d, hourly_usd=2, kwh_usd=0.3, single=one)
    assert row.locator(".atlas-calc__decode .atlas-calc__costline").inner_text().startswith(f"{money(c.output_usd_per_m)}/M alone")
    assert "price=2" in page.url and "kwh=0.3" in page.url
    goto(page, page.url)
    assert page.locator("#calc-price").input_value() == "2"
    assert page.locator("tr[data-device='gpu-y'] .atlas-calc__decode .atlas-calc__costline").inner_text().startswith(money(c.output_usd_per_m))
    page.fill("#calc-price", "-1")
    assert "Price per device-hour must be greater than zero" in page.locator(".atlas-calc__error").inner_text()
    page.close()


def test_a_device_of_your_own_is_sized_like_the_others(served):
    from generator.knowledge.calc import custom_device

    root, base, browser = served
    m = model_spec(load_atlas(root).entries["model-z"])
    page = browser.new_page()
    goto(page, base + "/calculator/")
    page.locator("#calc-own summary").click()
    page.fill("#calc-dev-mem", "12")
    assert "needs both its memory" in page.locator(".atlas-calc__error").inner_text()
    page.fill("#calc-dev-bw", "360")
    page.fill("#calc-dev-tflops", "50")
    page.select_option("#calc-format", "q4_k_m")
    expected = estimate(m, custom_device(12, 360, 50), 4.85, 4096, 1)
    row = page.locator("tbody tr").first
    assert row.get_attribute("data-device") == "custom" and row.locator("th").inner_text() == "Your device"
    assert row.locator(".atlas-calc__decode").inner_text().startswith(f"{expected.decode_tps:,.0f} tok/s")
    assert row.locator(".atlas-calc__prefill").inner_text().startswith(f"{expected.prefill_tps:,.0f} tok/s")
    assert "dev_mem=12" in page.url and "dev_bw=360" in page.url
    page.close()


@pytest.mark.parametrize("width", [1366, 390])
def test_the_model_list_is_grouped_and_a_model_is_found_by_name(site, browser, width):
    """Issue 34 item 8: 45+ models grouped by developer, and found by typing a name or alias."""
    from conftest import serve

    with serve(site) as base:
        page = browser.new_page(viewport={"width": width, "height": 900})
        goto(page, base + "/calculator/")
        groups = page.locator("#calc-model optgroup").evaluate_all("gs => gs.map(g => g.label)")
        assert len(groups) >= 8 and groups == sorted(groups, key=str.casefold)
        assert page.locator("#calc-model optgroup[label='OpenAI'] option").count() == 2  # gpt-oss-20b and -120b together
        page.fill("#calc-model-find", "gpt-oss-120b")
        assert page.locator("#calc-model").input_value() == "gpt-oss-120b"
        assert "model=gpt-oss-120b" in page.url
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.close()


def test_devices_are_grouped_and_filtered_by_where_a_reader_meets_them(site, browser):
    """Issue 35 item 6: the calculator filters devices by group (data centre, workstation,
    consumer GPU, unified memory, edge), kept in the address; the hardware index is grouped the
    same way and fits its column at 1366 px."""
    from conftest import serve

    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        goto(page, base + "/calculator/?model=llama-3-1-8b&format=q4_k_m")
        everything = page.locator(".atlas-calc__table tbody tr").count()
        page.select_option("#calc-where", "unified-memory")
        rows = page.locator(".atlas-calc__table tbody tr").evaluate_all("rs => rs.map(r => r.dataset.device)")
        import yaml
        unified = {p.stem for p in (REPO / "glossary/hardware").glob("*.yaml")
                   if yaml.safe_load(p.read_text(encoding="utf-8")).get("segment") == "unified-memory"}
        # a Mac sold in several memory sizes is one row a size (apple-m2-max@64)
        assert 0 < len(rows) < everything and {r.split("@")[0] for r in rows} <= unified and "apple-m4-max" in rows
        assert "where=unified-memory" in page.url
        goto(page, page.url)
        assert page.locator("#calc-where").input_value() == "unified-memory"
        goto(page, base + "/hardware/")
        wraps = page.evaluate("""() => Array.from(document.querySelectorAll('article .md-typeset__table, article table'))
            .map(t => [t.scrollWidth, t.clientWidth])""")
        assert wraps[0][0] <= wraps[0][1] + 1, wraps[0]  # the index table needs no sideways scroll
        page.close()


@pytest.mark.parametrize("width", [1366, 390])
def test_a_format_is_offered_only_on_devices_that_run_it(site, browser, width):
    """Issue 34 item 6: picking EXL2 (ExLlamaV2: CUDA and ROCm wheels) leaves Apple, Intel and
    TPU devices out of the table and says so; GGUF Q4_K_M lists them again, and the devices
    whose entries lack a figure are named together in one note."""
    from conftest import serve

    with serve(site) as base:
        page = browser.new_page(viewport={"width": width, "height": 900})
        goto(page, base + "/calculator/?model=llama-3-1-8b&format=4_0_bpw")
        rows = page.locator(".atlas-calc__table tbody tr").evaluate_all("rs => rs.map(r => r.dataset.device)")
        assert "nvidia-rtx-4090" in rows and "amd-instinct-mi300x" in rows
        assert not [r for r in rows if r.startswith(("apple-", "intel-", "google-"))], rows
        said = page.locator("#calc-verdict").inner_text()  # what the table leaves out is said with the answer
        assert "EXL2 runs on NVIDIA (CUDA) and AMD (ROCm)" in said and "devices that do not are left out" in said
        page.select_option("#calc-format", "q4_k_m")
        rows = page.locator(".atlas-calc__table tbody tr").evaluate_all("rs => rs.map(r => r.dataset.device)")
        assert "apple-m4-max" in rows and "left out" not in page.locator("#calc-verdict").inner_text()
        # Devices without a figure are named in one note, not one note each (a phone scrolled
        # past dozens of identical lines).
        items = page.locator(".atlas-calc__notes li").all_text_contents()  # behind one disclosure
        gaps = [i for i in items if i.startswith("No prefill ceiling for")]
        assert len(gaps) == 1 and "DGX Station" in gaps[0] and "Apple M4 Max" not in gaps[0], items
        assert "Apple M5 Max" not in gaps[0] and "Raspberry Pi 5" not in gaps[0]  # rates derived now (issue 46 item 3)
        assert not [i for i in items if "so there is no prefill ceiling" in i]
        page.close()


@pytest.mark.parametrize("query, where", [
    ("model=llama-3-70b&format=fp8&context=4096&n=1", "data-centre"),  # some devices lack a calibrated speed: all at the ceiling
    ("model=llama-3-1-8b&format=q4_k_m&context=4096&n=1", "workstation"),  # measured speeds for every device
])
def test_the_answer_comes_first_with_the_cheapest_device_and_the_price_that_would_change_it(site, browser, query, where):
    """Issue 47: above the table, how many devices hold the model, the fastest and the cheapest
    per million output tokens; the ranking under it gives, for each device, the hourly price at
    which it would pass the one above. Order, cost and those prices are atlas fit's, on one
    basis for every device."""
    import json
    import subprocess
    import sys

    from conftest import serve

    params = dict(p.split("=") for p in query.split("&"))
    fit = json.loads(subprocess.run([str(Path(sys.executable).parent / "atlas"), "fit", params["model"], "--format", params["format"],
                                     "--context", params["context"], "--where", where, "--json"],
                                    capture_output=True, text=True, cwd=REPO, check=True).stdout)
    ranking = fit["cost_ranking"]
    assert len(ranking) >= 2 and len({r["basis"] for r in ranking}) == 1
    assert [r["usd_per_m"] for r in ranking] == sorted(r["usd_per_m"] for r in ranking)

    def money(x):
        return f"${x:,.3f}" if x < 1 else f"${x:,.2f}"

    with serve(site) as base:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        goto(page, base + f"/calculator/?{query}&where={where}")
        verdict = page.locator("#calc-verdict").inner_text()
        holds = sum(1 for d in fit["devices"] if d["fits"])
        assert f"{holds} of the {len(fit['devices'])} devices listed hold it" in verdict
        top = next(d for d in fit["devices"] if d["device"] == ranking[0]["key"])
        assert f"Cheapest per million output tokens: {top['title']}" in verdict and money(ranking[0]["usd_per_m"]) in verdict
        page.locator(".atlas-calc__rankbox summary").click()
        items = page.locator("#calc-rank li")
        assert items.evaluate_all("ls => ls.map(l => l.dataset.device)") == [r["key"] for r in ranking]
        for i, r in enumerate(ranking):
            text = items.nth(i).inner_text()
            assert money(r["usd_per_m"]) + " per million" in text
            if i:
                assert f"under {money(r['flip_usd_per_hour'])}/h" in text
                # at that price it would cost what the one above costs per token
                above = ranking[i - 1]
                assert abs(r["flip_usd_per_hour"] / (r["tokens_per_s"] * 3600) * 1e6 - above["usd_per_m"]) < 0.01 * above["usd_per_m"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.close()


def test_a_price_of_your_own_for_one_device_changes_that_device_alone(site, browser):
    """Issue 47 item 4: a reader prices one device (an MI300X at $1.99 an hour) without
    touching the others; the page's cost ranking then equals atlas fit --price DEVICE=USD,
    says "your price" for that device only, and the address keeps it."""
    import json
    import subprocess
    import sys

    from conftest import serve

    fit = json.loads(subprocess.run([str(Path(sys.executable).parent / "atlas"), "fit", "llama-3-3-70b", "--format", "fp8", "--context", "4096",
                                     "--concurrency", "32", "--where", "data-centre", "--price", "amd-instinct-mi300x=1.99", "--json"],
                                    capture_output=True, text=True, cwd=REPO, check=True).stdout)
    ranking = fit["cost_ranking"]
    mi300x = next(r for r in ranking if r["key"] == "amd-instinct-mi300x")
    assert mi300x["hourly_usd"] == 1.99 and mi300x["price_read"] is None
    assert all(r["price_read"] for r in ranking if r["key"] != "amd-instinct-mi300x")  # the others keep their dated prices

    def money(x):
        return f"${x:,.3f}" if x < 1 else f"${x:,.2f}"

    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        goto(page, base + "/calculator/?model=llama-3-3-70b&format=fp8&context=4096&n=32&where=data-centre")
        before = page.locator("tr[data-device='nvidia-h200'] .atlas-calc__decode .atlas-calc__costline").inner_text()
        page.locator("#calc-prices summary").click()
        page.locator("#calc-prices input[data-device='amd-instinct-mi300x']").fill("1.99")
        href = page.evaluate("location.href")  # page.url follows history.replaceState a moment later
        assert "prices=amd-instinct-mi300x%3A1.99" in href or "prices=amd-instinct-mi300x:1.99" in href
        assert page.locator("tr[data-device='nvidia-h200'] .atlas-calc__decode .atlas-calc__costline").inner_text() == before
        page.locator(".atlas-calc__rankbox summary").click()
        items = page.locator("#calc-rank li")
        assert items.evaluate_all("ls => ls.map(l => l.dataset.device)") == [r["key"] for r in ranking]
        mine = page.locator("#calc-rank li[data-device='amd-instinct-mi300x']").inner_text()
        assert money(mi300x["usd_per_m"]) + " per million" in mine and "your price" in mine
        assert "your price" not in page.locator("#calc-rank li[data-device='nvidia-h200']").inner_text()
        goto(page, page.url)  # the address keeps it
        assert page.locator("#calc-prices input[data-device='amd-instinct-mi300x']").input_value() == "1.99"
        page.locator("#calc-prices input[data-device='amd-instinct-mi300x']").fill("cheap")
        assert "Your price for AMD Instinct MI300X" in page.locator(".atlas-calc__error").inner_text()
        page.close()


@pytest.mark.parametrize("width", [1366, 390])
def test_a_typical_answer_is_read_in_three_screens_and_the_rest_is_one_click_away(site, browser, width):
    """Issue 47 item 5: Qwen3-30B-A3B for 50 users in the data-centre group. At 1366 px the page
    is at most three 768 px screens: the answer above the table, the devices that hold it first
    (the smallest first), eight rows, the shared notes and each flag's meaning behind one
    disclosure each. One button shows every device, and the address keeps it."""
    from conftest import serve

    with serve(site) as base:
        page = browser.new_page(viewport={"width": width, "height": 768 if width > 500 else 844})
        goto(page, base + "/calculator/?model=qwen3-30b-a3b&n=50&where=data-centre")
        if width == 1366:
            assert page.evaluate("document.documentElement.scrollHeight") <= 3 * 768
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        rows = page.locator(".atlas-calc__table tbody tr")
        total, shown = rows.count(), page.locator(".atlas-calc__table tbody tr:visible")
        assert total > 20 and shown.count() == 8
        verdict = page.locator("#calc-verdict").bounding_box()
        assert verdict["y"] < page.locator(".atlas-calc__table").bounding_box()["y"]
        # the devices that hold it come first, smallest memory first; those that do not, after
        fits = rows.evaluate_all("rs => rs.map(r => [r.querySelector('.atlas-calc__fits').textContent, parseFloat(r.querySelector('.atlas-calc__memory').textContent)])")
        holding = [mem for text, mem in fits if text.startswith("yes")]
        assert holding == sorted(holding) and fits[: len(holding)] == [f for f in fits if f[0].startswith("yes")]
        more = page.locator("#calc-more")
        assert more.inner_text() == f"Show all {total} devices ({total - 8} more)"
        more.click()
        assert shown.count() == total and "rows=all" in page.evaluate("location.href")
        goto(page, page.evaluate("location.href"))
        assert page.locator(".atlas-calc__table tbody tr:visible").count() == total
        page.locator("#calc-more").click()
        assert page.locator(".atlas-calc__table tbody tr:visible").count() == 8 and "rows=all" not in page.evaluate("location.href")
        # the notes the rows share, behind one disclosure that says how many
        assert page.locator("#calc-notes summary").inner_text().split()[0].isdigit()
        page.close()
