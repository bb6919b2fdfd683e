"""Memory right for every attention design, one test each, worked by hand from a published
config (the figures in each comment are the model's own), then read through the real
entries: full GQA, sliding-window local/global layers, chunked attention, MLA, hybrid
linear attention with its fixed recurrent state, and MoE (all experts held, the touched
ones read). And speed for many users: per sequence and in total, with the bound named."""

from __future__ import annotations

import pytest

from generator.knowledge.calc import DeviceSpec, ModelSpec, estimate, model_spec
from generator.knowledge.calc import uniform as calc_uniform
from generator.pipeline import load_atlas
from conftest import REPO

KIB = 1024
H100 = DeviceSpec("h100", "H100 SXM", 80, 3350, {"bf16": 989.0})  # datasheet: 80 GB, 3.35 TB/s, 989 dense BF16 TFLOPS


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def test_full_gqa_llama_3_1_8b_is_128_kib_a_token():
    # config.json: 32 layers, 8 KV heads, head_dim 128 -> 2 x 32 x 8 x 128 x 2 bytes
    m = ModelSpec("m", "Llama 3.1 8B", 8.03, 8.03, 32, 8, 128, "gqa")
    assert m.kv_bytes_per_token(16) == 128 * KIB
    assert m.kv_bytes(32_768) == 32_768 * 128 * KIB


def test_sliding_window_local_layers_hold_at_most_their_window_gemma_3_27b(atlas):
    # Gemma 3 27B: 62 layers, 16 KV heads of 128, window 1,024, five local per global -> 52 local, 10 global.
    per_layer_token = 2 * 16 * 128 * 2  # 8 KiB
    expected = 10 * 32_768 * per_layer_token + 52 * 1_024 * per_layer_token
    m = model_spec(atlas.entries["gemma-3-27b"])
    assert m.kv_bytes(32_768) == expected  # 3.12 GB
    naive = 62 * 32_768 * per_layer_token
    assert naive / expected > 5  # a formula without windows overstates it more than five times
    # below the window every layer holds every token
    assert m.kv_bytes(512) == 62 * 512 * per_layer_token


def test_alternating_128_token_windows_gpt_oss_120b(atlas):
    # gpt-oss-120b: 36 layers, 8 KV heads of 64, window 128 on every other layer.
    per_layer_token = 2 * 8 * 64 * 2
    m = model_spec(atlas.entries["gpt-oss-120b"])
    assert m.kv_bytes(131_072) == 18 * 131_072 * per_layer_token + 18 * 128 * per_layer_token


def test_chunked_attention_counts_one_chunk_per_local_layer_llama_4_scout(atlas):
    # Llama 4 Scout: 48 layers, 8 KV heads of 128, chunked attention of 8,192 on 3 of every 4 layers.
    per_layer_token = 2 * 8 * 128 * 2
    m = model_spec(atlas.entries["llama-4-scout"])
    assert m.kv_bytes(131_072) == 12 * 131_072 * per_layer_token + 36 * 8_192 * per_layer_token


def test_mla_caches_the_latent_and_the_rope_key_deepseek_v3(atlas):
    # DeepSeek-V3: 61 layers, kv_lora_rank 512, qk_rope_head_dim 64 -> 61 x 576 x 2 bytes.
    m = model_spec(atlas.entries["deepseek-v3"])
    assert m.kv_bytes_per_token(16) == 61 * 576 * 2 == 70_272
    assert m.kv_bytes(10_000) == 10_000 * 70_272
    # A naive multi-head formula (128 heads of 128 for K and V) would be 57 times larger.
    assert (2 * 61 * 128 * 128 * 2) / 70_272 > 50


def test_hybrid_linear_grows_only_full_layers_and_counts_the_recurrent_state_qwen3_next(atlas):
    # Qwen3-Next-80B-A3B: 48 layers, one full-attention layer in four (12), 2 KV heads of 256;
    # the 36 Gated DeltaNet layers keep a state of 32 value heads x 128 x 128 per sequence.
    m = model_spec(atlas.entries["qwen3-next-80b-a3b"])
    state = 36 * 32 * 128 * 128 * 2
    assert m.state_bytes(16) == state  # 37.7 MB, whatever the context
    assert m.kv_bytes(1) == 12 * 2 * 2 * 256 * 2 + state
    assert m.kv_bytes(100_000) - m.kv_bytes(50_000) == 50_000 * 12 * 2 * 2 * 256 * 2


def test_moe_holds_every_expert_and_a_batch_reads_the_experts_it_touches(atlas):
    # Qwen3-30B-A3B's config: width 2048, 48 layers, 128 experts of width 768 with 8 per token, vocabulary 151,936.
    m = model_spec(atlas.entries["qwen3-30b-a3b"])
    experts = 48 * 128 * 3 * 2048 * 768
    rest = 2 * 151_936 * 2048 + 48 * (2048 * 4096 * 2 + 2048 * 512 * 2) + 48 * 2048 * 128
    est = estimate(m, H100, 16, 4096, 1)
    assert est.weights_gb == pytest.approx((experts + rest) * 2 / 1e9)  # every expert is in memory
    one = rest - 151_936 * 2048 + 2048 + experts * 8 / 128  # one embedding row, 8 of 128 experts
    assert m.weights_read(1) * 1e9 == pytest.approx(one)
    touched = 1 - (1 - 8 / 128) ** 16
    assert m.weights_read(16) * 1e9 == pytest.approx(rest - 151_936 * 2048 + 16 * 2048 + experts * touched)
    assert m.weights_read(1) < m.weights_read(16) < 30.5 and m.weights_read(10_000) * 1e9 == pytest.approx(
        experts + rest - 151_936 * 2048 + 10_000 * 2048, rel=1e-6)  # every expert, and 10,000 rows of the embedding


def test_fifty_sequences_share_one_weight_read_qwen_3_6_27b_fp8_on_an_h100(atlas):
    # The example, now with the DeltaNet state each sequence keeps (78 MB): ~78 each and ~3,900 in total at 50.
    m, d = model_spec(atlas.entries["qwen3-6-27b"]), H100
    one = estimate(m, d, 8, 4096, 1)
    fifty = estimate(m, d, 8, 4096, 50)
    kv = m.kv_bytes(4096)
    read = m.bytes_read(calc_uniform(8), 1)  # every part at 8 bits, one embedding row a token
    assert one.decode_tps == pytest.approx(3350e9 / (read + kv))
    assert fifty.decode_total_tps == pytest.approx(50 * 3350e9 / (m.bytes_read(calc_uniform(8), 50) + 50 * kv))
    assert fifty.decode_tps == pytest.approx(fifty.decode_total_tps / 50)
    assert 75 < fifty.decode_tps < 82 and 3_700 < fifty.decode_total_tps < 4_100 and one.decode_tps > 115
    assert fifty.decode_bound == "memory bandwidth"


def test_at_large_batches_compute_takes_over_and_says_so():
    m = ModelSpec("m", "Llama 3.1 8B", 8.03, 8.03, 32, 8, 128, "gqa")
    small = estimate(m, H100, 16, 128, 4)
    huge = estimate(m, H100, 16, 128, 2_000)
    assert small.decode_bound == "memory bandwidth"
    assert huge.decode_bound == "compute"
    assert huge.decode_total_tps == pytest.approx(989e12 / (2 * 8.03e9))  # 2 FLOP per active parameter per token


def test_an_moe_entry_without_expert_counts_gives_no_batch_figure_rather_than_a_wrong_one():
    m = ModelSpec("m", "Some MoE", 100, 10, 40, 8, 128, "gqa")
    assert estimate(m, H100, 4, 4096, 1).decode_tps is not None
    assert estimate(m, H100, 4, 4096, 8).decode_tps is None


def test_a_level_for_one_part_of_a_model_is_not_offered_as_a_whole_model_format(atlas):
    """EXL2's output-head setting (6.3 bits) is a level of one tensor, not a format a whole
    model is quantized to: the calculator's list and atlas fit leave it out; the EXL2 entry
    keeps it in its table."""
    from generator.knowledge.calc import formats
    from generator.pages.calculator import format_groups

    labels = [o["label"] for g in format_groups(atlas) for o in g["options"]]
    assert "5.0 bpw" in labels and not [x for x in labels if "output head" in x]
    assert "output head (default 6-bit)" not in formats(atlas)
    part = [v for v in atlas.entries["exl2"].get("variants") if v.get("scope") == "output-head"]
    assert part and part[0]["bits_per_weight"] == 6.3


def test_a_device_page_gives_tokens_per_joule_for_the_reference_model(site):
    """The RTX 4090 page, worked by hand from its entry (1,008 GB/s, 24 GB, 450 W) and
    Llama 3.1 8B at Q4_K_M part by part (4.911 GB held; a token reads the head at Q6_K, attention
    at 4.6 bits, the MLP at 4.84 and one embedding row: 4.616 GB) with 4,096 tokens of cache
    (0.537 GB): one stream decodes at most 1,008 / 5.153 = 196 tok/s, 196 / 450 W = 0.43
    tokens per joule. 32 sequences' caches (17.2 GB) fit beside the weights: (4.911 + 17.18) x 1.1
    = 24.3 GB, within 24 GB (24 GiB, 25.8 GB): 32 x 1,008 / (4.616 + 32 x 0.537) = 1,480 tok/s,
    3.29 tokens per joule."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / "hardware/nvidia-rtx-4090/index.html").read_text(), "html.parser")
    para = next(p for p in soup.select("article p") if p.get_text().startswith("Cost and energy at the ceiling"))
    text = para.get_text()
    assert "at most 196 tokens per second for one stream and 1,480 for 32 sequences together" in text
    assert "0.43 tokens per joule alone and 3.29 with the batch" in text
    assert para.find("a", href=lambda h: h and "calculator/?model=llama-3-1-8b&format=q4_k_m" in h)


def test_a_rented_device_page_prices_output_and_prompt_tokens_with_the_prices_age(site):
    """Issue 35 item 3 on a hardware page: the L40S's entry rents it at $1.861 an hour (AWS
    g6e.xlarge, read 2026-11-28). One stream of Llama 3.1 8B at Q4_K_M decodes at most
    864 / 5.153 = 167.7 tok/s (its weights read part by part, as on the RTX 4090's page):
    1.861 / (167.7 x 3,600) x 10^6 = $3.08 a million output tokens.
    Prefill at the dense FP16 rate, 362.05 TFLOPS / (2 x 8.03e9) = 22,544 tok/s, makes a million
    prompt tokens cost 1.861 / (22,544 x 3,600) x 10^6 = $0.023. The paragraph says when the
    price was read rather than repeating the table's note."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / "hardware/nvidia-l40s/index.html").read_text(), "html.parser")
    para = next(p for p in soup.select("article p") if p.get_text().startswith("Cost and energy at the ceiling"))
    text = " ".join(para.get_text().split())
    assert "At $1.86 a device-hour" in text and "read 2026-11-28" in text and "g6e.xlarge" not in text
    assert "a million output tokens cost at least $3.08" in text
    assert "a million prompt tokens at least $0.023 at the prefill ceiling" in text


def test_unified_memory_is_judged_against_the_gpus_default_share():
    """A 128 GB M5 Max whose GPU may wire 107.5 GB by default (its entry, read from Metal by a
    user; both in the binary GB memory is sold in: 137.4 and 115.4 GB of 10^9 bytes): 106B
    parameters at 8 bits are 106 GB of weights, 116.6 GB with 10% overhead: less than 128 GiB,
    more than the GPU's default share, so it does not fit as the Mac ships; 104B (114.4 GB) does."""
    from generator.knowledge.calc import DeviceSpec, ModelSpec, estimate

    mac = DeviceSpec("m5", "M5 Max", 128, 614, {}, gpu_default_gb=107.5)
    big = ModelSpec("m", "106B", 106, 106, 80, 8, 128, "gqa")
    assert estimate(big, mac, 8, 1).fits is False
    assert estimate(ModelSpec("s", "104B", 104, 104, 80, 8, 128, "gqa"), mac, 8, 1).fits is True


def test_the_m5_max_entry_carries_the_default_share(atlas):
    from generator.knowledge.calc import device_spec

    d = device_spec(atlas.entries["apple-m5-max"])
    assert d.memory_gb == 128 and d.gpu_default_gb == 107.5 and d.usable_gb == 107.5
    # 48 of 64 GB and 72 of 96 GB: three-quarters, read from llama.cpp logs of 2023
    for eid, total, share in (("apple-m1-max", 64, 48), ("apple-m2-max", 96, 72)):
        d = device_spec(atlas.entries[eid])
        assert (d.memory_gb, d.usable_gb) == (total, share)


def test_fit_columns_name_only_formats_the_device_runs(site):
    """Issue 34 item 6: a device page's fit table named its columns FP8 and NVFP4 on every
    device, Apple silicon and Ampere cards included. Now a column is named after a format only
    where the device runs it; a model page, whose columns span every device, names widths."""
    from bs4 import BeautifulSoup

    def heads(path):
        soup = BeautifulSoup((site / path / "index.html").read_text(), "html.parser")
        table = soup.find(id="fit").find_next("table")
        return " | ".join(th.get_text("", strip=True) for th in table.select("thead th"))

    mac, ampere, blackwell = heads("hardware/apple-m4-max"), heads("hardware/nvidia-rtx-3090"), heads("hardware/nvidia-b200")
    assert "NVFP4" not in mac and "FP8" not in mac and "MLX 4-bit" in mac
    assert "FP8" not in ampere and "NVFP4" not in ampere and "8-bit (INT8)" in ampere
    assert "FP8:" in blackwell and "NVFP4:" in blackwell
    model = heads("models/llama-3-1-8b")
    assert "4.5-bit (NVFP4,GGUFQ4_0,MLX4-bit)" in model and "8-bit (FP8,INT8)" in model  # (text joined without spaces)


def test_fit_tables_suggest_only_splits_people_build(site):
    """Issue 34 item 6: the M2 Max page suggested sixteen laptops for DeepSeek-R1. A laptop is
    one machine: its row is a bare ✗. An H100 still shows the GPUs a split needs, up to eight."""
    from bs4 import BeautifulSoup

    def row(device, model):
        soup = BeautifulSoup((site / f"hardware/{device}/index.html").read_text(), "html.parser")
        tabs = soup.find(id="fit").find_next("div", class_="atlas-fit-groups")  # one table per size group
        return next(tr for tr in tabs.select("tbody tr") if tr.find("a") and tr.find("a").get_text() == model).get_text(" | ", strip=True)

    mac = row("apple-m2-max", "DeepSeek-R1")
    assert "✗" in mac and "×" not in mac and "tok/s on" not in mac
    h100 = row("nvidia-h100-sxm", "Llama 3 70B")  # 16-bit: about 156 GB, two GPUs
    assert "✗ 2×" in h100 and "tok/s on 2" in h100


def test_the_calculator_lists_each_format_once(site):
    """Issue 34 item 6: 'GPTQ/AWQ group 128' (INT4's worked example) beside GPTQ and AWQ, and
    MLX's 4-bit under three names. An entry's example of another entry's format is shown on
    its page and offered once, under that format's own entry."""
    import html
    import json

    from bs4 import BeautifulSoup

    soup = BeautifulSoup((site / "calculator/index.html").read_text(), "html.parser")
    data = json.loads(html.unescape(soup.select_one("#atlas-calc")["data-calc"]))
    labels = [o["label"] for g in data["formats"] for o in g["options"]]
    assert len(labels) == len({x.casefold() for x in labels})
    assert {"GPTQ", "AWQ", "MLX format", "GGUF Q4_0"} <= set(labels)
    assert not {"GPTQ/AWQ group 128", "MLX affine 4-bit", "affine 4-bit, group 64"} & set(labels)
