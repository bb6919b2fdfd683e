"""Sizing a model the atlas does not hold, from its config.json: the parameter count read
from the shape matches what the developer publishes, the attention design is recognised
(GQA, MLA, windows listed in layer_types, experts), the terminal answers `atlas fit
--config`, and a malformed file is answered with what is wrong (exit 2), never a crash."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, REPO
from generator.knowledge.calc import CalcError
from generator.knowledge.shape import MAX_BYTES, read_text

CONFIGS = Path(__file__).parent / "configs"


@pytest.mark.parametrize("name, total, active, attention", [
    ("llama-3.1-8b", 8.03, 8.03, "gqa"),
    ("qwen3-30b-a3b", 30.5, 3.3, "gqa"),
    ("deepseek-v3", 671, 37, "mla"),
    ("gemma-3-27b", 27.0, 27.0, "gqa"),
])
def test_the_parameter_count_from_the_shape_is_the_published_one(name, total, active, attention):
    r = read_text((CONFIGS / f"{name}.json").read_text())
    assert r.params_total_b == pytest.approx(total, rel=0.02)
    assert r.params_active_b == pytest.approx(active, rel=0.03)
    assert r.spec.attention == attention


def test_layer_types_give_the_windowed_layers_and_the_cache_follows():
    r = read_text((CONFIGS / "gemma-3-27b.json").read_text())
    assert (r.spec.sliding_layers, r.spec.sliding_window) == (52, 1024)
    assert "layer_types" in r.used and r.missing == []
    assert r.spec.kv_bytes(32_768) == (10 * 32_768 + 52 * 1_024) * 2 * 16 * 128 * 2


def test_mla_and_experts_are_read_from_a_deepseek_config():
    s = read_text((CONFIGS / "deepseek-v3.json").read_text()).spec
    assert (s.kv_lora_rank, s.rope_head_dim) == (512, 64) and s.kv_bytes_per_token() == 70_272
    assert (s.experts_total, s.experts_active) == (256, 8)


@pytest.mark.parametrize("text, words", [
    ("[1, 2", "not valid JSON"),
    ("[1, 2]", "a JSON object"),
    ('{"num_hidden_layers": NaN, "hidden_size": 8, "num_attention_heads": 2}', "NaN is not a number"),
    ('{"num_hidden_layers": -3, "hidden_size": 8, "num_attention_heads": 2}', "whole number between 1"),
    ('{"num_hidden_layers": 1e12, "hidden_size": 8, "num_attention_heads": 2}', "whole number between 1"),
    ('{"num_hidden_layers": "32", "hidden_size": 8, "num_attention_heads": 2}', "whole number between 1"),
    ('{"hidden_size": 8, "num_attention_heads": 2}', "no 'num_hidden_layers'"),
    ('{"num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 4, "layer_types": ["full_attention"]}',
     "lists 1 entries for 2 layers"),
    ("{" + '"a": 1, ' * (MAX_BYTES // 8) + '"b": 2}', "a config.json is at most"),
])
def test_a_malformed_config_is_answered_with_what_is_wrong(text, words):
    with pytest.raises(CalcError) as e:
        read_text(text)
    assert words in str(e.value)


def test_atlas_fit_config_sizes_it_on_a_device_in_text_and_json(tmp_path):
    run = lambda *a: subprocess.run([str(BIN / "atlas"), "fit", *a], cwd=REPO, capture_output=True, text=True)  # noqa: E731
    r = run("--config", str(CONFIGS / "qwen3-30b-a3b.json"), "--device", "H100 SXM", "--format", "fp8", "--concurrency", "16")
    assert r.returncode == 0, r.stderr
    assert "30.53B parameters, 3.35B active" in r.stdout and "fields read: num_hidden_layers" in r.stdout
    j = json.loads(run("--config", str(CONFIGS / "gemma-3-27b.json"), "--device", "H100 SXM", "--json").stdout)
    assert j["from_config"]["params_total_b"] == pytest.approx(27.0, rel=0.01) and "layer_types" in j["from_config"]["used"]
    assert j["devices"][0]["kv_per_sequence_gb"] == pytest.approx((10 * 4096 + 52 * 1024) * 8192 / 1e9, abs=1e-3)
    bad = tmp_path / "config.json"
    bad.write_text('{"num_hidden_layers": NaN}')
    r = run("--config", str(bad))
    assert r.returncode == 2 and "NaN is not a number" in r.stderr and "Traceback" not in r.stderr
    assert run("llama-3.1-8b", "--config", str(bad)).returncode == 2  # one or the other
