"""The GPU measurement suite (bench/gpu), caught on the CPU before GPU time is spent.

measure.py runs here on the CPU with tiny shapes (2 and 3 layers, hidden size 64), and its
record must satisfy bench/gpu/record.schema.json and add up: every requested batch size,
context and prompt length measured, times positive with min <= median <= max, tokens per
second equal to batch / step time, a slice scaled by layers as the record says, bytes and
FLOPs equal to what the tiny shape implies (counted here independently of the script).
selfcheck.py checks that the timed model is a transformer (decode over the cache equals a
full prefill; the MoE layer equals a loop over experts). Every committed record in
bench/gpu/results/ must satisfy the schema too.

PyTorch is not a project dependency. These tests run measure.py with the Python named by
ATLAS_TORCH_PYTHON, else the one running pytest; if that Python has no torch they FAIL (no
skip), saying how to get it: `pip install torch==2.13.0` (a CPU wheel on this disk).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
GPU = REPO / "bench" / "gpu"
RESULTS = GPU / "results"
SCHEMA = json.loads((GPU / "record.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
TORCH_PYTHON = os.environ.get("ATLAS_TORCH_PYTHON", sys.executable)

sys.path.insert(0, str(GPU))
import shapes  # noqa: E402  (no torch needed)

TINY_DENSE = {
    "title": "Tiny dense", "short": "test", "developer": "test",
    "specs": {
        "params_total_b": {"value": 0.0002, "source": "test"},
        "layers": {"value": 2, "source": "test"},
        "attention_heads": {"value": 4, "source": "test"},
        "kv_heads": {"value": 2, "source": "test"},
        "head_dim": {"value": 16, "source": "test"},
        "hidden_size": {"value": 64, "source": "test"},
        "context_length": {"value": 4096, "source": "test"},
        "attention": {"value": "gqa", "source": "test"},
        "architecture": {"value": "dense", "source": "test"},
    },
}
TINY_MOE = {
    "title": "Tiny MoE", "short": "test", "developer": "test",
    "specs": {
        "params_total_b": {"value": 0.0003, "source": "test"},
        "layers": {"value": 3, "source": "test"},
        "attention_heads": {"value": 4, "source": "test"},
        "kv_heads": {"value": 1, "source": "test"},
        "head_dim": {"value": 16, "source": "test"},
        "hidden_size": {"value": 64, "source": "test"},
        "attention": {"value": "gqa", "source": "test"},
        "architecture": {"value": "moe", "source": "test",
                         "note": "8 routed experts of width 32 in every layer, 2 per token, no shared expert."},
    },
}
BATCHES, CONTEXTS, PROMPTS, REPEATS = [1, 4], [16, 96], [8, 40], 3
COMMON = ["--batch-sizes", *map(str, BATCHES), "--contexts", *map(str, CONTEXTS), "--prompts", *map(str, PROMPTS),
          "--warmup", "1", "--repeats", str(REPEATS), "--prefill-repeats", "2", "--copy-mib", "4",
          "--matmul-size", "64", "--device", "cpu", "--date", "2000-01-02", "--git-commit", "0" * 40]


@functools.cache
def torch_python() -> str:
    probe = subprocess.run([TORCH_PYTHON, "-c", "import torch, yaml"], capture_output=True, text=True)
    if probe.returncode:
        pytest.fail(
            f"{TORCH_PYTHON} cannot import torch (and PyYAML), which bench/gpu needs. Install the CPU wheel "
            "into that Python (`pip install torch==2.13.0`), or point ATLAS_TORCH_PYTHON at a Python that "
            f"has it.\n{probe.stderr[-500:]}", pytrace=False)
    return TORCH_PYTHON


def run_script(script: str, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([torch_python(), str(GPU / script), *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout)


def measure(tmp: Path, entry: dict, name: str, *extra: str) -> tuple[dict, Path]:
    model = tmp / f"{name}.yaml"
    model.write_text(yaml.safe_dump(entry), encoding="utf-8")
    out = tmp / f"out-{name}"
    r = run_script("measure.py", "--model", str(model), "--out", str(out), *COMMON, *extra)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    files = list(out.glob("*.yaml"))
    assert len(files) == 1, files
    return yaml.safe_load(files[0].read_text(encoding="utf-8")), files[0]


@pytest.fixture(scope="module")
def dense(tmp_path_factory):
    """Tiny dense GQA model built as a slice of 1 of its 2 layers, so the scaling path runs."""
    return measure(tmp_path_factory.mktemp("gpu"), TINY_DENSE, "tiny-dense",
                   "--ffn-size", "128", "--vocab-size", "256", "--slice-layers", "1")


@pytest.fixture(scope="module")
def moe(tmp_path_factory):
    return measure(tmp_path_factory.mktemp("gpu"), TINY_MOE, "tiny-moe", "--vocab-size", "256",
                   "--sdpa-backend", "math")


def schema_errors(record: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(record)]


def assert_stat(s: dict, repeats: int | None = None) -> None:
    assert 0 < s["min"] <= s["median"] <= s["max"] and all(math.isfinite(s[k]) for k in ("min", "median", "max")), s
    if repeats is not None:
        assert s["repeats"] == repeats


def close(a: float, b: float, rel: float = 2e-4) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b))


def consistent(record: dict) -> None:
    """What any record must satisfy beyond the schema: the derived figures follow from the measured ones."""
    y, runs = record["yardsticks"], {"start": record["device_ceilings_at_start"], "end": record["device_ceilings"]}
    assert y["copy_bandwidth_gbs"] == max(r["copy"]["bandwidth_gbs"]["median"] for r in runs.values())
    assert y["copy_bandwidth_gbs"] == runs[y["copy_from"]]["copy"]["bandwidth_gbs"]["median"]
    assert y["bf16_tflops"] == max(r["matmul_bf16"]["tflops"]["median"] for r in runs.values())
    assert y["bf16_tflops"] == runs[y["bf16_from"]]["matmul_bf16"]["tflops"]["median"]
    scale = record["built"]["layer_scale"]
    for e in record["decode"]:
        if e["status"] != "measured":
            continue
        for key in ("step_time_s", "full_model_step_time_s", "tokens_per_s"):
            assert_stat(e[key])
        f = e["full_model_step_time_s"]
        assert close(e["tokens_per_s"]["median"], e["batch"] / f["median"], 1e-3)
        if record["built"]["slice"]:
            h, s = e["head_time_s"]["median"], e["step_time_s"]["median"]
            assert close(f["median"], h + (s - h) * scale, 1e-3)
        else:
            assert e["step_time_s"] == f
        b = e["bytes_per_step"]
        assert b["total"] == pytest.approx(b["weights"] + b["kv_cache_read"], abs=2)
        c = e["bandwidth_ceiling"]
        assert c["copy_bandwidth_gbs"] == record["yardsticks"]["copy_bandwidth_gbs"]
        assert close(c["step_time_s"], b["total"] / (c["copy_bandwidth_gbs"] * 1e9), 1e-3)
        assert close(c["fraction_achieved"], c["step_time_s"] / f["median"], 2e-3)
    for e in record["prefill"]:
        if e["status"] != "measured":
            continue
        for key in ("time_s", "time_to_first_token_s", "prompt_tokens_per_s"):
            assert_stat(e[key])
        t = e["time_to_first_token_s"]["median"]
        assert close(e["prompt_tokens_per_s"]["median"], e["batch"] * e["prompt_length"] / t, 1e-3)
        assert close(e["compute_ceiling"]["achieved_tflops"], e["flops"] / t / 1e12, 1e-3)
        assert e["compute_ceiling"]["bf16_tflops"] == record["yardsticks"]["bf16_tflops"]
        floor, compute = e["bandwidth_floor"]["time_s"], e["compute_ceiling"]["time_s"]
        assert close(floor, e["bandwidth_floor"]["bytes"] / (e["bandwidth_floor"]["copy_bandwidth_gbs"] * 1e9), 1e-3)
        assert e["roofline"]["time_s"] == max(floor, compute)
        assert e["roofline"]["bound"] == ("compute" if compute > floor else "memory")
        assert close(e["roofline"]["fraction_achieved"], e["roofline"]["time_s"] / t, 2e-3)


# ---- shapes of the real entries (no torch) ------------------------------------------------
def test_real_entries_missing_figures_are_named_not_invented():
    # Qwen2.5 14B's entry gives neither its FFN width nor its vocabulary: both are asked for, not guessed
    with pytest.raises(shapes.ShapeError) as err:
        shapes.load_shape("qwen2-5-14b")
    assert "--ffn-size" in str(err.value) and "--vocab-size" in str(err.value)
    s = shapes.load_shape("qwen2-5-14b", {"ffn_size": 13824, "vocab_size": 152064})
    entry = yaml.safe_load((REPO / "glossary/models/qwen2-5-14b.yaml").read_text(encoding="utf-8"))["specs"]
    for key in ("layers", "hidden_size", "attention_heads", "kv_heads", "head_dim"):
        assert getattr(s, key) == entry[key]["value"]
        assert s.provenance[key].startswith(f"entry specs.{key}")
    assert s.provenance["ffn_size"] == "option --ffn-size" and sorted(s.missing_from_entry) == ["ffn_size", "vocab_size"]
    # The options' figures reproduce the entry's parameter count (14.7B): a wrong FFN width would not.
    assert s.as_record()["params_total_ratio"] == pytest.approx(1.0, abs=0.01)
    # Entries that give their config widths need no options: Llama 3.1 8B since its config was read,
    # Llama 3 70B since its FFN width was worked out from Meta's model arguments (28,672).
    for model in ("llama-3-1-8b", "llama-3-70b"):
        full = shapes.load_shape(model)
        assert full.missing_from_entry == [] and full.as_record()["params_total_ratio"] == pytest.approx(1.0, abs=0.01)
    assert shapes.load_shape("llama-3-70b").provenance["ffn_size"].startswith("entry specs.intermediate_size")


def test_moe_experts_parsed_from_the_entry_note():
    s = shapes.load_shape("minimax-m2-7", {"vocab_size": 200064})
    assert (s.experts, s.experts_active, s.expert_ffn_size, s.shared_experts) == (256, 8, 1536, 0)
    assert "parsed from '256 routed experts'" in s.provenance["experts"]
    assert s.as_record()["params_total_ratio"] == pytest.approx(1.0, abs=0.02)
    assert shapes.parse_moe_note("384 routed experts of width 3072 plus 1 shared expert per layer; "
                                 "6 routed experts per token.") == {
        "experts": (384, "384 routed experts"), "expert_ffn_size": (3072, "routed experts of width 3072"),
        "experts_active": (6, "6 routed experts per token"), "shared_experts": (1, "1 shared expert")}


@pytest.mark.parametrize("model", ["deepseek-v3", "qwen3-6-27b"])
def test_unsupported_attention_is_refused(model):
    with pytest.raises(shapes.ShapeError, match="not implemented"):
        shapes.load_shape(model, {"vocab_size": 1000, "ffn_size": 1000})


def test_hardware_by_device_name():
    assert shapes.hardware_for_device("NVIDIA H100 80GB HBM3") == "nvidia-h100-sxm"
    assert shapes.hardware_for_device("NVIDIA H200") == "nvidia-h200"
    assert shapes.hardware_for_device("NVIDIA H100 PCIe") == "nvidia-h100-pcie"
    assert shapes.hardware_datasheet("nvidia-h100-sxm")["bandwidth_gbs"] == 3350


# ---- the scripts on the CPU ---------------------------------------------------------------
def test_selfcheck_model_is_a_transformer():
    r = run_script("selfcheck.py", "--device", "cpu")
    assert r.returncode == 0, r.stdout + r.stderr[-2000:]
    assert len(re.findall(r"^ok ", r.stdout, re.M)) == 5, r.stdout


def test_missing_figure_stops_before_any_measurement(tmp_path):
    model = tmp_path / "tiny.yaml"
    model.write_text(yaml.safe_dump(TINY_DENSE), encoding="utf-8")
    r = run_script("measure.py", "--model", str(model), "--vocab-size", "256", "--out", str(tmp_path), *COMMON)
    assert r.returncode == 2 and "--ffn-size" in r.stderr
    assert not list(tmp_path.glob("out*")) and not list(tmp_path.glob("cpu-*.yaml"))
    r = run_script("measure.py", "--model", "deepseek-v3", "--out", str(tmp_path), *COMMON)
    assert r.returncode == 2 and "mla" in r.stderr


def test_dense_record_valid_and_complete(dense):
    record, path = dense
    assert schema_errors(record) == []
    assert path.name == "cpu-" + re.sub(r"[^a-z0-9]+", "-", record["environment"]["device_name"][4:].lower()) \
        + "-tiny-dense-2000-01-02.yaml"
    env = record["environment"]
    assert env["device_type"] == "cpu" and env["git_commit"] == "0" * 40
    for name, blob in env["script_blobs"].items():  # the record names the code that ran
        data = (GPU / name).read_bytes()
        assert blob == hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    # Shape as requested, with provenance
    sh = record["shape"]
    assert (sh["layers"], sh["hidden_size"], sh["attention_heads"], sh["kv_heads"], sh["head_dim"],
            sh["ffn_size"], sh["vocab_size"]) == (2, 64, 4, 2, 16, 128, 256)
    assert sh["provenance"]["ffn_size"] == "option --ffn-size"
    assert sh["provenance"]["layers"] == "entry specs.layers (source: test)"
    assert sh["missing_from_entry"] == ["ffn_size", "vocab_size"]
    built = record["built"]
    layer = 64 * (4 + 2 * 2) * 16 + 4 * 16 * 64 + 2 * 64 + 3 * 64 * 128  # qkv, o, norms, gated FFN
    assert built["layers_built"] == 1 and built["slice"] and built["layer_scale"] == 2
    assert built["params_built"] == layer + 2 * 256 * 64 + 64
    assert built["weight_bytes_built"] == 2 * built["params_built"]
    # Every requested configuration measured, with the requested repeats
    assert [(e["batch"], e["context"]) for e in record["decode"]] == [(b, c) for b in BATCHES for c in CONTEXTS]
    for e in record["decode"]:
        assert e["status"] == "measured" and e["output_ok"] is True, e
        assert e["cuda_graph"] is False and e["sdpa_backend"]
        assert_stat(e["step_time_s"], REPEATS)
        assert_stat(e["head_time_s"], REPEATS)
        b = e["bytes_per_step"]
        assert b["kv_cache_read"] == 2 * 2 * 16 * 2 * e["batch"] * e["context"] * 2  # K+V, kv_heads, dim, bf16, 2 layers
        assert b["weights"] == 2 * (2 * layer + 256 * 64 + 64 + e["batch"] * 64)
    assert [e["prompt_length"] for e in record["prefill"]] == PROMPTS
    for e in record["prefill"]:
        assert e["status"] == "measured" and e["output_ok"] is True and e["gqa"] == "enable_gqa", e
        P = e["prompt_length"]
        linear = 2 * P * (64 * 8 * 16 + 64 * 64 + 3 * 64 * 128) * 2
        attn = 2 * 2 * 4 * 16 * P * (P + 1) // 2 * 2
        assert e["flops"] == linear + attn + 2 * 256 * 64
        kv_written = 2 * 2 * 16 * 2 * P * 2
        assert e["bandwidth_floor"]["bytes"] == 2 * (2 * layer + 256 * 64 + 64 + P * 64) + kv_written
    # Device ceilings
    c = record["device_ceilings"]
    assert c["copy"]["bytes_moved"] == 2 * 4 * 2 ** 20 and c["copy"]["copy_checked"]
    assert_stat(c["copy"]["bandwidth_gbs"], REPEATS)
    assert c["matmul_bf16"]["supported"] and c["matmul_bf16"]["m"] == 64
    assert_stat(c["matmul_bf16"]["tflops"], REPEATS)
    assert c["matmul_fp8"] == {"supported": False, "reason": "FP8 matrix products need a CUDA device"}
    assert c["matmul_fp8_fast_accum"] == c["matmul_fp8"]
    assert record["device_ceilings_at_start"]["copy"]["bytes_moved"] == c["copy"]["bytes_moved"]
    assert_stat(record["device_ceilings_at_start"]["copy"]["bandwidth_gbs"], REPEATS)
    consistent(record)


def test_moe_record_routes_to_the_active_experts(moe):
    record, _ = moe
    assert schema_errors(record) == []
    sh = record["shape"]
    assert (sh["experts"], sh["experts_active"], sh["expert_ffn_size"]) == (8, 2, 32)
    assert not record["built"]["slice"] and "random" in record["built"]["moe_routing"]
    assert record["parameters"]["sdpa_backend"] == "math"
    assert {e["sdpa_backend"] for e in record["decode"] + record["prefill"]} == {"math"}
    expert = 3 * 64 * 32
    attn = 64 * (4 + 2) * 16 + 4 * 16 * 64 + 2 * 64
    for e in record["decode"]:
        assert e["status"] == "measured" and e["output_ok"] is True
        used = e["experts_used_per_layer"]
        if e["batch"] == 1:
            assert used["min"] == used["max"] == 2  # exactly the active count
        else:
            assert 2 <= used["min"] <= used["max"] <= min(8, 2 * e["batch"])
        weights = 3 * (attn + 8 * 64) * 2 + used["mean"] * 3 * expert * 2 + 2 * (256 * 64 + 64 + e["batch"] * 64)
        assert e["bytes_per_step"]["weights"] == pytest.approx(weights, rel=1e-3)
    for e in record["prefill"]:
        P = e["prompt_length"]
        linear = 2 * P * (64 * 6 * 16 + 64 * 64 + 8 * 64 + 2 * expert) * 3
        assert e["flops"] == linear + 2 * 2 * 4 * 16 * P * (P + 1) // 2 * 3 + 2 * 256 * 64
        used = e["experts_used_per_layer"]
        assert 2 <= used["min"] <= used["max"] <= min(8, 2 * P)
    consistent(record)


def test_schema_rejects_broken_records(dense):
    record, _ = dense
    bad = json.loads(json.dumps(record))
    bad["decode"][0]["step_time_s"]["median"] = -1.0
    del bad["decode"][1]["tokens_per_s"]
    bad["environment"]["git_commit"] = "HEAD"
    errors = schema_errors(bad)
    assert any("step_time_s/median" in e for e in errors)
    assert any("tokens_per_s" in e for e in errors)
    assert any("git_commit" in e for e in errors)


# ---- committed records --------------------------------------------------------------------
def committed() -> list[Path]:
    return sorted(RESULTS.glob("*.yaml"))


def test_there_are_committed_gpu_records():
    records = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in committed()]
    assert any(r["environment"]["device_type"] == "cuda" for r in records)


@pytest.mark.parametrize("path", committed(), ids=lambda p: p.name)
def test_committed_record_valid(path):
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert schema_errors(record) == []
    slug = re.sub(r"[^a-z0-9]+", "-", record["environment"]["device_name"].lower()).strip("-")
    assert re.fullmatch(rf"{slug}-{record['model']['id']}-{record['date']}(-\d+)?\.yaml", path.name)
    assert re.fullmatch(r"[0-9a-f]{40}", record["environment"]["git_commit"])
    assert (REPO / record["model"]["entry"]).exists()
    assert any(e["status"] == "measured" for e in record["decode"])
    consistent(record)


SLIDING_CHECK = r"""
import sys, torch
sys.path.insert(0, "bench/gpu")
import shapes, transformer
s = shapes.Shape(model_id="tiny", title="Tiny", entry_path="-", attention="gqa", architecture="dense", layers=2, hidden_size=64, attention_heads=4, kv_heads=2,
                 head_dim=16, vocab_size=97, ffn_size=128, sliding_window=4, sliding_layers=1)
m = transformer.Model(s, 2, torch.device("cpu"), dtype=torch.float32)
assert m.local == {0} and m.kv_positions(10) == 4 + 10, (m.local, m.kv_positions(10))
routes = m.routes(1) if hasattr(m, "routes") else [None, None]
def logits(kv):
    return m.make_decode_step(1, 10, kv, [None, None], tokens=torch.tensor([3]))()[0]
base = m.new_kv_cache(1, 10)
ref = logits([c.clone() for c in base])
old = [c.clone() for c in base]; old[0][:, :, :, 2] += 5.0   # position 2 is outside layer 0's window (6..9)
assert torch.allclose(logits(old), ref), "a local layer read a position outside its window"
old = [c.clone() for c in base]; old[1][:, :, :, 2] += 5.0   # the global layer reads every position
assert not torch.allclose(logits(old), ref), "the global layer ignored an old position"
prefill = m.make_prefill(1, 10, m.new_kv_cache(1, 10), [None, None], "expanded", tokens=torch.arange(10).view(1, 10))
assert prefill()[0].shape == (1, 97)
print("ok sliding window")
"""


def test_a_local_layer_reads_only_its_window_and_a_global_layer_everything():
    """gpt-oss and Gemma shapes: decode over a local layer ignores positions older than the
    window, the global layer does not, and the bytes the record counts follow."""
    r = subprocess.run([TORCH_PYTHON, "-c", SLIDING_CHECK], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "ok sliding window" in r.stdout, r.stdout + r.stderr[-3000:]


def test_new_model_entries_give_their_moe_and_window_figures_to_the_suite():
    s = shapes.load_shape("gpt-oss-20b")
    assert (s.experts, s.experts_active, s.expert_ffn_size) == (32, 4, 2880)
    assert (s.sliding_window, s.sliding_layers, s.vocab_size) == (128, 12, 201088)
    assert s.provenance["experts"].startswith("entry specs.experts_total")
