"""From the answer to a running server (issue 47): `atlas fit --engine` writes the command that
starts that engine for the fit, and every flag and value in it is one the engine's pinned
release accepts, as read from its released package (glossary/engine-flags)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from conftest import REPO, goto
from generator.kb.load import load_tree
from generator.kb.validate import validate
from generator.knowledge.calc import CalcError, estimate, model_spec, pick_device, precision_for
from generator.knowledge.launch import BUILDERS, Answer, Flag, launch, problems
from generator.pipeline import load_atlas

MODELS = ["llama-3-1-8b", "gpt-oss-20b", "qwen3-30b-a3b", "llama-3-3-70b", "gemma-3-27b"]
DEVICES = [("RTX 4090", 1), ("RTX 4090", 2), ("H100 SXM", 1), ("H100 SXM", 4), ("M2 Max 96GB", 1), ("MI300X", 1)]
FORMATS = {"llama-server": "q4_k_m", "llama-cpp": "q4_k_m", "ollama": "q4_k_m", "tabbyapi": "3.75 bpw", "exllamav3": "3.75 bpw",
           "mlx-lm": "mlx affine 4-bit"}


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def test_every_engine_has_its_pinned_releases_flags(atlas):
    for engine in BUILDERS:
        server = {"llama-cpp": "llama-server", "exllamav3": "tabbyapi"}.get(engine, engine)
        data = atlas.engine_flags[server]
        assert data.release == atlas.entries[server].get("as_of")["version"]
        assert data.read_from and (data.flags or data.env or data.config_keys)


def test_every_generated_command_uses_only_flags_and_values_its_release_accepts(atlas):
    made = 0
    for engine, model, (device, n), kv, seqs in itertools.product(BUILDERS, MODELS, DEVICES, (16, 8, 4), (1, 16)):
        m = model_spec(atlas.entries[model])
        d = pick_device(atlas, device)
        prec = precision_for(atlas, FORMATS.get(engine, "bf16"), None)
        e = estimate(m, d, prec, 8192, seqs, kv, devices=min(n, d.max_devices))
        try:
            cmd = launch(atlas, engine, Answer(atlas=atlas, model=atlas.entries[model], device=d, fmt=prec.label, context=8192,
                                               sequences=seqs, kv_bits=kv, devices=e.devices, fit=e))
        except CalcError as exc:
            assert str(exc)  # refused with a reason: does not fit, cannot load the format, does not run there
            continue
        made += 1
        assert problems(atlas, cmd) == [], (engine, model, device, cmd.text())
        text = cmd.text()
        if cmd.kind == "flags" and cmd.engine in ("vllm", "sglang", "tensorrt-llm"):
            assert "8192" in text and str(seqs) in text
        if e.devices > 1 and cmd.engine in ("vllm", "sglang"):
            assert f" {e.devices}" in text  # tensor parallel over the reader's devices
    assert made > 200


def test_a_flag_or_value_the_release_does_not_accept_is_caught(atlas):
    m, d = atlas.entries["llama-3-1-8b"], pick_device(atlas, "H100 SXM")
    e = estimate(model_spec(m), d, 16, 4096, 1)
    cmd = launch(atlas, "vllm", Answer(atlas=atlas, model=m, device=d, fmt="BF16", context=4096, sequences=1, kv_bits=16, devices=1, fit=e))
    cmd.flags.append(Flag("--max-model-length", "4096", "a misspelling"))
    cmd.flags.append(Flag("--kv-cache-dtype", "int3", "no such type"))
    found = problems(atlas, cmd)
    assert any("no --max-model-length" in p for p in found) and any("int3" in p and "fp8" in p for p in found)


def _answer(atlas, model, device, fmt_id, seqs=1):
    m, d = atlas.entries[model], pick_device(atlas, device)
    prec = precision_for(atlas, fmt_id, None)
    e = estimate(model_spec(m), d, prec, 4096, seqs)
    return Answer(atlas=atlas, model=m, device=d, fmt=prec.label, context=4096, sequences=seqs, kv_bits=16, devices=1, fit=e)


def test_a_server_loads_the_weights_the_answer_was_sized_for(atlas):
    """A command must not load the 16-bit release when the answer was sized for a 4-bit file:
    vLLM and SGLang get the GGUF file and the tokenizer from the repository; a format the model
    was not released in gets a placeholder and a note, not the released repository; FP8 on vLLM
    is quantized as it loads; gpt-oss's own MXFP4 is its repository."""
    repo = "Qwen/Qwen3-30B-A3B"
    for engine, tok in (("vllm", "--tokenizer"), ("sglang", "--tokenizer-path")):
        cmd = launch(atlas, engine, _answer(atlas, "qwen3-30b-a3b", "A100 40GB", "q4_k_m", seqs=8))
        text = cmd.text()
        assert "qwen3-30b-a3b-Q4_K_M.gguf" in text and f"{tok} " in text and problems(atlas, cmd) == []
        given = {f.name: f.value for f in cmd.flags}
        assert given[tok].startswith(repo) and all(not (v or "").startswith(repo) for k, v in given.items() if k != tok)
        assert any("one GGUF file" in n for n in cmd.notes)
    vllm_gguf = launch(atlas, "vllm", _answer(atlas, "qwen3-30b-a3b", "A100 40GB", "q4_k_m"))
    assert any("plugin" in n for n in vllm_gguf.notes)  # vLLM's GGUF cell says plugin: said with the command
    trt = launch(atlas, "tensorrt-llm", _answer(atlas, "llama-3-1-8b", "H100 SXM", "fp8"))
    assert trt.model_arg.startswith("<FP8 checkpoint of ") and any("was not released in FP8" in n for n in trt.notes)
    vllm_fp8 = launch(atlas, "vllm", _answer(atlas, "llama-3-1-8b", "H100 SXM", "fp8"))
    assert not vllm_fp8.model_arg.startswith("<") and ("--quantization", "fp8") in [(f.name, f.value) for f in vllm_fp8.flags]
    oss = launch(atlas, "vllm", _answer(atlas, "gpt-oss-120b", "H100 SXM", "mxfp4"))
    assert oss.model_arg == "openai/gpt-oss-120b" and not oss.notes
    # llama.cpp's MXFP4_MOE is a GGUF type (Q8_0 beside the MXFP4 experts), not the release: a file
    gguf = launch(atlas, "vllm", _answer(atlas, "gpt-oss-20b", "RTX 4090", "mxfp4_moe"))
    assert "gpt-oss-20b-MXFP4_MOE.gguf" in gguf.text() and "openai/gpt-oss-20b" != gguf.model_arg and problems(atlas, gguf) == []


def test_engines_that_cannot_run_there_are_refused_with_the_reason(atlas):
    d = pick_device(atlas, "MI300X")
    m = atlas.entries["llama-3-1-8b"]
    e = estimate(model_spec(m), d, 16, 4096, 1)
    with pytest.raises(CalcError, match="does not run on"):
        launch(atlas, "mlx-lm", Answer(atlas=atlas, model=m, device=d, fmt="BF16", context=4096, sequences=1, kv_bits=16, devices=1, fit=e))


def test_a_flags_file_behind_the_pinned_release_fails_the_check_where_it_says_so(kb):
    path = kb / "glossary/engine-flags/vllm.yaml"
    text = path.read_text(encoding="utf-8")
    line = text.splitlines().index('release: "0.34.0"') + 1 if 'release: "0.34.0"' in text else \
        next(i for i, x in enumerate(text.splitlines(), 1) if x.startswith("release:"))
    path.write_text(text.replace(text.splitlines()[line - 1], 'release: "0.33.0"', 1), encoding="utf-8")
    docs, _ = load_tree(kb)
    found = [f for f in validate(docs) if f.path.endswith("engine-flags/vllm.yaml")]
    assert any(f.line == line and "0.33.0" in f.message and "0.34.0" in f.message for f in found), found


def test_atlas_fit_with_an_engine_prints_the_command_and_gives_it_in_json():
    out = subprocess.run([sys.executable, "-m", "generator.cli", "fit", "Llama 3.1 8B", "--device", "H100 SXM", "--devices", "2",
                          "--format", "bf16", "--context", "32768", "--concurrency", "32", "--kv-bits", "8", "--engine", "vLLM"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "vllm serve meta-llama/Llama-3.1-8B" in text
    for part in ("--tensor-parallel-size 2", "--max-model-len 32768", "--max-num-seqs 32", "--kv-cache-dtype fp8"):
        assert part in text
    assert "Flags checked against vllm 0.34.0" in text
    out = subprocess.run([sys.executable, "-m", "generator.cli", "fit", "gpt-oss-20b", "--device", "RTX 4090", "--context", "65536",
                          "--engine", "llama.cpp", "--json"], cwd=REPO, capture_output=True, text=True, timeout=120)
    row = json.loads(out.stdout)["devices"][0]
    assert row["launch"]["engine"] == "llama-server" and row["launch"]["release"]
    flags = {f["name"]: f["value"] for f in row["launch"]["flags"]}
    assert flags["--ctx-size"] == "65536" and flags["--n-gpu-layers"] == "all" and flags["--parallel"] == "1"


def test_a_price_per_device_prices_each_device_on_its_own():
    def fit(*extra):
        out = subprocess.run([sys.executable, "-m", "generator.cli", "fit", "Llama 3.3 70B", "--format", "fp8", "--device", "MI300X",
                              "--device", "B200", "--concurrency", "32", "--json", *extra], cwd=REPO, capture_output=True, text=True, timeout=120)
        return out
    out = fit("--price", "MI300X=1.99", "--price", "B200=5.50")
    assert out.returncode == 0, out.stderr
    rows = {r["device"]: r["cost"] for r in json.loads(out.stdout)["devices"]}
    assert rows["amd-instinct-mi300x"]["hourly_usd"] == 1.99 and rows["nvidia-b200"]["hourly_usd"] == 5.5
    bad = fit("--price", "MI300X=free")
    assert bad.returncode == 2 and "DEVICE=USD" in bad.stderr and not bad.stdout
    bad = fit("--price", "H200=3")
    assert bad.returncode == 2 and "not among the devices" in bad.stderr


# The calculator's Run it panel writes the same commands in the browser (docs/assets/atlas-launch.js):
# (model, format id, context, sequences, devices owned, device group, KV bits, device, engine)
PANEL = [
    ("gpt-oss-20b", "mxfp4", 65536, 1, 1, "consumer", 16, "nvidia-rtx-4090", "llama-cpp"),
    ("llama-3-3-70b", "fp8", 8192, 32, 4, "data-centre", 8, "nvidia-h100-sxm", "vllm"),
    ("qwen3-30b-a3b", "q4_k_m", 16384, 4, 1, "unified-memory", 4, "apple-m2-max", "ollama"),
    ("gemma-3-27b", "3_75_bpw", 32768, 2, 2, "consumer", 8, "nvidia-rtx-4090", "exllamav3"),
    ("qwen3-30b-a3b", "affine_8_bit_group_64", 8192, 8, 1, "unified-memory", 8, "apple-m2-ultra", "mlx-lm"),
    ("qwen3-30b-a3b", "bf16", 8192, 16, 1, "data-centre", 16, "amd-instinct-mi300x", "sglang"),
    ("llama-3-1-8b", "fp8", 4096, 16, 2, "data-centre", 8, "nvidia-h100-sxm", "tensorrt-llm"),
    ("llama-3-3-70b", "q4_k_m", 8192, 1, 1, "consumer", 16, "nvidia-rtx-4090", "llama-cpp"),  # offloads: some layers on the card
    ("qwen3-30b-a3b", "q4_k_m", 4096, 50, 1, "data-centre", 16, "nvidia-a100-40gb", "vllm"),  # the GGUF file, not the BF16 repository
    ("llama-3-1-8b", "fp8", 4096, 4, 1, "data-centre", 16, "nvidia-h100-sxm", "tensorrt-llm"),  # an FP8 checkpoint to put in
    ("gpt-oss-20b", "mxfp4_moe", 32768, 1, 1, "consumer", 16, "nvidia-rtx-4090", "llama-cpp"),  # llama.cpp's own gpt-oss file
]


def test_the_calculators_run_it_panel_writes_the_same_command_as_python(atlas, base, browser):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    try:
        for model, fmt_id, ctx, seqs, owned, where, kv, device, engine in PANEL:
            goto(page, f"{base}/calculator/?model={model}&format={fmt_id}&context={ctx}&n={seqs}&devices={owned}"
                       f"&where={where}&run_on={device}&run_with={engine}")
            page.select_option("#calc-kv", str(kv))
            assert page.locator("#calc-run-on").input_value() == device, (model, device)
            m, d = model_spec(atlas.entries[model]), pick_device(atlas, device)
            label = page.locator("#calc-format option:checked").inner_text().split(" — ")[0]
            prec = precision_for(atlas, label, None)
            e = estimate(m, d, prec, ctx, seqs, kv, devices=min(owned, d.max_devices))
            want = launch(atlas, engine, Answer(atlas=atlas, model=atlas.entries[model], device=d, fmt=prec.label, context=ctx,
                                                sequences=seqs, kv_bits=kv, devices=e.devices, fit=e))
            got = page.locator("#calc-run pre").inner_text()
            assert got.strip() == want.text().strip(), (model, engine, device)
            assert problems(atlas, want) == []
            # every flag is explained beside the command, and the notes are there
            items = page.locator("#calc-run .atlas-calc__flags li").all_text_contents()  # behind "what each flag does"
            assert [i.split(":")[0] for i in items] == [f.name if f.value is None else f"{f.name} {f.value}" for f in want.flags]
            text = page.locator("#calc-run").inner_text()
            assert all(n in text for n in want.notes) and want.release in text
        # an engine that cannot load the format says why, and no command is shown
        goto(page, f"{base}/calculator/?model=llama-3-1-8b&format=q4_k_m&where=consumer&run_on=nvidia-rtx-4090&run_with=tensorrt-llm&rows=all")
        assert page.locator("#calc-run pre").count() == 0
        assert "does not load" in page.locator("#calc-run .atlas-calc__runerror").inner_text()
        # a row's "run it" picks that device
        page.locator("tr[data-device='nvidia-rtx-3090'] a[data-run]").click()
        assert page.locator("#calc-run-on").input_value() == "nvidia-rtx-3090" and "run_on=nvidia-rtx-3090" in page.url
    finally:
        page.close()


def test_the_run_it_panel_fits_a_phone(base, browser):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        goto(page, f"{base}/calculator/?model=llama-3-3-70b&format=fp8&context=8192&n=32&devices=4&where=data-centre&run_with=vllm")
        page.locator("#calc-run .atlas-calc__flagsbox summary").click()  # what each flag does, opened
        for sel in ("#calc-run pre", "#calc-run-on", "#calc-run .atlas-calc__flags"):
            box = page.locator(sel).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, sel
        size = page.locator("#calc-run .atlas-calc__flags li").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 12
    finally:
        page.close()


def test_run_it_starts_on_the_engine_that_loads_the_format_best(base, browser):
    """With no engine named, Run it takes the one whose format and backend cells load the
    answer best: llama.cpp for a GGUF file (vLLM only through a plugin), vLLM for the 16-bit
    release; the address keeps no engine the reader did not choose."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    try:
        goto(page, f"{base}/calculator/?model=qwen3-30b-a3b&format=q4_k_m&where=data-centre")
        assert page.locator("#calc-run-with").input_value() == "llama-cpp"
        assert page.locator("#calc-run pre").inner_text().startswith("llama-server")
        assert "run_with" not in page.evaluate("location.href")
        goto(page, f"{base}/calculator/?model=qwen3-30b-a3b&format=bf16&where=data-centre")
        assert page.locator("#calc-run-with").input_value() == "vllm"
    finally:
        page.close()


def test_a_model_that_needs_a_split_is_started_on_as_many_devices_as_it_needs(atlas, base, browser):
    """DeepSeek-R1 in its released FP8 fits no single data-centre GPU: Run it offers each
    device that could hold it split, over the fewest that hold it rounded up to a power of two
    (tensor parallelism divides the attention heads evenly), and writes the command Python
    writes for that many."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    try:
        goto(page, f"{base}/calculator/?model=deepseek-r1&where=data-centre&n=8&run_on=amd-instinct-mi355x&run_with=vllm")
        option = page.locator("#calc-run-on option:checked").inner_text()
        assert option.startswith("AMD Instinct MI355X × ") and "(split" in option
        n = int(option.split("× ")[1].split()[0])
        m, d = model_spec(atlas.entries["deepseek-r1"]), pick_device(atlas, "amd-instinct-mi355x")
        prec = precision_for(atlas, "fp8", None)
        alone = estimate(m, d, prec, 4096, 8, 16)
        assert alone.fits is False and alone.devices_needed <= n < 2 * alone.devices_needed and n & (n - 1) == 0
        e = estimate(m, d, prec, 4096, 8, 16, devices=n)
        want = launch(atlas, "vllm", Answer(atlas=atlas, model=atlas.entries["deepseek-r1"], device=d, fmt=prec.label, context=4096,
                                            sequences=8, kv_bits=16, devices=e.devices, fit=e))
        assert page.locator("#calc-run pre").inner_text().strip() == want.text().strip()
        assert f"--tensor-parallel-size {n}" in want.text() and problems(atlas, want) == []
        assert f"Split over {n} of them" in page.locator("#calc-run").inner_text()
    finally:
        page.close()
