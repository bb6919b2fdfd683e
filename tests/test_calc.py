"""The memory/bandwidth calculator against examples worked out by hand."""

import pytest

from generator.knowledge.calc import CalcError, DeviceSpec, ModelSpec, cost, custom_device, estimate

# Llama 3.1 8B: 8.03B parameters, 32 layers, 8 KV heads of width 128 (its config.json).
LLAMA_8B = ModelSpec("llama-3-1-8b", "Llama 3.1 8B", 8.03, 8.03, 32, 8, 128, "gqa", context_length=131072)
# A dense 70B for "70B in FP16 needs about 140 GB".
DENSE_70B = ModelSpec("m70", "70B", 70, 70, 80, 8, 128, "gqa")
# DeepSeek-V3: 671B total, 37B active, 61 layers, MLA latent 512 + RoPE key 64.
DSV3 = ModelSpec("dsv3", "DeepSeek-V3", 671, 37, 61, None, None, "mla", kv_lora_rank=512, rope_head_dim=64)
H100_SXM = DeviceSpec("h100", "H100 SXM", 80, 3350, {"fp16": 989.4, "fp8": 1978.9})
SPARK = DeviceSpec("spark", "DGX Spark", 128, 273, {})


def test_kv_cache_bytes_per_token_by_attention_variant():
    # 2 (K and V) x 32 layers x 8 heads x 128 dims x 2 bytes = 131,072 bytes.
    assert LLAMA_8B.kv_bytes_per_token(16) == 131072
    assert LLAMA_8B.kv_bytes_per_token(8) == 65536
    # MLA caches one latent per layer: 61 x (512 + 64) x 2 bytes = 70,272 bytes.
    assert DSV3.kv_bytes_per_token(16) == 70272
    hybrid = ModelSpec("h", "Hybrid", 30, 3, 48, 2, 256, "hybrid-linear", full_attention_layers=12)
    assert hybrid.kv_bytes_per_token(16) == 2 * 12 * 2 * 256 * 2  # only the full-attention layers


def test_seventy_billion_in_fp16_is_about_140_gb_of_weights():
    e = estimate(DENSE_70B, None, bits=16, tokens=1)
    assert e.weights_gb == pytest.approx(140.0)


def test_llama_8b_fp16_on_h100_sxm():
    e = estimate(LLAMA_8B, H100_SXM, bits=16, tokens=8192, sequences=4)
    assert e.weights_gb == pytest.approx(16.06)  # 8.03e9 x 2 bytes
    assert e.kv_gb == pytest.approx(131072 * 8192 * 4 / 1e9)  # 4.295 GB
    assert e.total_gb == pytest.approx((16.06 + 4.294967296) * 1.1)
    assert e.fits is True
    # Decode bound: four sequences share each step, which reads the 16.06 GB of weights once and
    # all four 1.074 GB caches: 3,350 GB/s x 4 / (16.06 + 4 x 1.074) GB, each sequence a quarter.
    assert e.decode_total_tps == pytest.approx(4 * 3350e9 / (16.06e9 + 4 * 131072 * 8192), rel=1e-9)
    assert e.decode_tps == pytest.approx(e.decode_total_tps / 4)
    assert 164 < e.decode_tps < 165 and e.decode_bound == "memory bandwidth"
    # One sequence alone: 3,350 / (16.06 + 1.074) = 195.5 tok/s.
    assert 195 < estimate(LLAMA_8B, H100_SXM, bits=16, tokens=8192, sequences=1).decode_tps < 196
    # Prefill bound: 989.4 TFLOPS / (2 x 8.03e9 FLOPs per token) = 61,606 tokens/s.
    assert e.prefill_tps == pytest.approx(989.4e12 / (2 * 8.03e9))


def test_moe_decode_reads_active_weights_but_memory_holds_all():
    e = estimate(DSV3, H100_SXM, bits=8, tokens=1)
    assert e.weights_gb == pytest.approx(671.0)
    assert e.fits is False and e.decode_tps is None  # no single-H100 figure: it cannot hold the model
    # 671 GB + 10% = 738.1 GB needs nine 80 GB cards (80 GiB, 85.9 GB each): more than one
    # 8-GPU server, so no split figure is offered (issue 34: only splits people build).
    assert e.devices_needed == 9 and e.can_split is False and e.split_decode_tps is None
    # At 4 bits, 335.5 GB + 10% = 369.1 GB needs five: split five ways each reads a fifth of the
    # 37 B active parameters per token, five times one card's bound.
    e = estimate(DSV3, H100_SXM, bits=4, tokens=1)
    assert e.devices_needed == 5 and e.can_split
    assert e.split_decode_tps == pytest.approx(5 * 3350e9 / (37e9 * 0.5 + 70272), rel=1e-9)


def test_a_laptop_is_one_machine_and_nine_cards_are_more_than_a_server():
    """Sixteen M2 Max laptops for DeepSeek-R1 is no setup anyone builds: a SoC (one machine)
    gets no split and no offload figure (its memory is the system memory); a card needing more
    than eight gets no split figure, but offloading to system memory is still worked out."""
    mac = DeviceSpec("mac", "M2 Max", 96, 400, {}, max_devices=1)
    e = estimate(DSV3, mac, bits=4.89, tokens=4096)
    assert e.fits is False and e.devices_needed == 5 and e.can_split is False
    assert e.split_decode_tps is None and e.offload_decode_tps is None
    card = DeviceSpec("c", "24 GB card", 24, 1008, {"fp16": 165})
    e = estimate(DSV3, card, bits=4.89, tokens=4096)
    assert e.devices_needed > 8 and e.can_split is False and e.split_decode_tps is None and e.offload_decode_tps > 0


def test_dense_27b_nvfp4_on_a_273_gbs_device():
    # 27e9 x 4.5 bits / 8 = 15.19 GB read per token: the ceiling is 273 / 15.19 = 18 tok/s.
    m = ModelSpec("m27", "Dense 27B", 27, 27, 64, 4, 256, "gqa")
    e = estimate(m, SPARK, bits=4.5, tokens=1)
    assert e.decode_tps == pytest.approx(273e9 / (27e9 * 4.5 / 8 + m.kv_bytes_per_token()), rel=1e-9)
    assert 17.9 < e.decode_tps < 18.0


@pytest.mark.parametrize("kwargs, message", [
    ({"bits": 0}, "bits must be greater than zero"),
    ({"bits": -4}, "bits must be greater than zero"),
    ({"bits": 99}, "outside the range"),
    ({"tokens": 0}, "tokens must be greater than zero"),
    ({"tokens": 10**9}, "outside the range"),
    ({"sequences": -1}, "sequences must be greater than zero"),
    ({"tokens": 200_000}, "more than Llama 3.1 8B's context length of 131,072"),
])
def test_bad_input_gets_a_clear_message(kwargs, message):
    args = {"bits": 16, "tokens": 1024, "sequences": 1} | kwargs
    with pytest.raises(CalcError, match=message):
        estimate(LLAMA_8B, H100_SXM, **args)


def test_published_kv_size_covers_attention_the_formulas_do_not():
    """DeepSeek V4 Pro's compressed attention: the entry gives whole-model bytes per token
    (worked out on its page); the calculator scales it with the cache precision, and refuses
    an 'other' model that gives none."""
    from generator.knowledge.calc import CalcError, ModelSpec

    m = ModelSpec(id="x", title="X", params_b=1600, active_b=49, layers=61, kv_heads=1, head_dim=512,
                  attention="other", kv_bytes_16=9848)
    assert m.kv_bytes_per_token(16) == 9848
    assert m.kv_bytes_per_token(8) == 4924
    bare = ModelSpec(id="y", title="Y", params_b=1, active_b=1, layers=2, kv_heads=1, head_dim=64, attention="other")
    with pytest.raises(CalcError, match="needs kv_bytes_per_token"):
        bare.kv_bytes_per_token(16)


def test_a_model_that_does_not_fit_gets_devices_needed_and_offload_not_a_decode_figure():
    """Hand-worked, with a negligible KV cache: 10 B parameters at 8 bits = 10 GB of weights,
    + 10% = 11 GB, on a 4 GB device (4 GiB, 4.295 GB) of 100 GB/s needs ceil(11 / 4.295) = 3
    devices; alone it would read 10 GB per token (10 tok/s), on three 30 tok/s; offloading
    11 - 4.295 = 6.705 GB to 50 GB/s memory, each token reads the other 3.295 GB of weights
    on the device and those 6.705 GB over the link: 1 / (3.295 / 100 + 6.705 / 50) = 5.99 tok/s."""
    m = ModelSpec(id="m", title="M", params_b=10, active_b=10, layers=1, kv_heads=None, head_dim=None, attention="other",
                  kv_bytes_16=1e-9)
    d = DeviceSpec(id="d", title="D", memory_gb=4, bandwidth_gbs=100, tflops={})
    e = estimate(m, d, 8, 1, 1, host_bandwidth_gbs=50)
    assert e.fits is False and e.devices_needed == 3 and e.decode_tps is None
    held = 4 * 2**30 / 1e9
    assert round(e.total_gb, 6) == 11.0 and e.offload_gb == pytest.approx(11 - held)
    assert round(e.split_decode_tps, 3) == 30.0
    off = 11 - held
    assert e.offload_decode_tps == pytest.approx(1 / ((10 - off) / 100 + off / 50), rel=1e-9)
    assert "tensor throughput (TFLOPS) unknown: no prefill ceiling" in e.missing


def test_dollars_per_million_tokens_and_tokens_per_joule_worked_by_hand():
    """Llama 3.1 8B in FP16 at 8,192 tokens on an H100 SXM (700 W) rented at $2.00 an hour,
    with electricity at $0.25/kWh on top: 700 W for an hour is 0.7 kWh, $0.175, so $2.175 an hour.
    One stream decodes at most 3,350e9 / (16.06e9 + 1,073,741,824) = 195.52 tok/s, which is
    703,879 tokens an hour: $2.175 / 0.703879 = $3.090 per million; 195.52 / 700 = 0.2793 tok/J."""
    h100 = DeviceSpec("h100", "H100 SXM", 80, 3350, {"fp16": 989.4}, tdp_w=700)
    batch = estimate(LLAMA_8B, h100, bits=16, tokens=8192, sequences=4)
    one = estimate(LLAMA_8B, h100, bits=16, tokens=8192, sequences=1)
    c = cost(batch, h100, hourly_usd=2.0, kwh_usd=0.25, single=one)
    assert c.hourly_usd == pytest.approx(2.175)
    tps = 3350e9 / (16.06e9 + 131072 * 8192)
    assert c.output_usd_per_m == pytest.approx(2.175 / (tps * 3600) * 1e6) and 3.08 < c.output_usd_per_m < 3.10
    assert c.tokens_per_joule == pytest.approx(tps / 700)
    # Four sequences share each weight read: more tokens an hour for the same dollars.
    assert c.batch_output_usd_per_m == pytest.approx(2.175 / (batch.decode_total_tps * 3600) * 1e6)
    assert c.batch_output_usd_per_m < c.output_usd_per_m / 3
    # Prompt tokens at the prefill ceiling, 989.4e12 / (2 x 8.03e9) = 61,606 tok/s: $0.0098 per million.
    assert c.input_usd_per_m == pytest.approx(2.175 / (989.4e12 / (2 * 8.03e9) * 3600) * 1e6)
    # No price and no electricity: no dollars, but tokens per joule from the TDP alone.
    bare = cost(one, h100)
    assert bare.output_usd_per_m is None and bare.tokens_per_joule == pytest.approx(tps / 700)


def test_a_split_model_pays_for_every_device_it_needs():
    # DeepSeek-V3 at 4 bits needs five H100s: five device-hours and five boards' power per hour.
    h100 = DeviceSpec("h100", "H100 SXM", 80, 3350, {"fp16": 989.4}, tdp_w=700)
    e = estimate(DSV3, h100, bits=4, tokens=1)
    c = cost(e, h100, hourly_usd=3.0)
    assert c.devices == 5 and c.hourly_usd == pytest.approx(15.0) and c.watts == 3500
    assert c.output_usd_per_m == pytest.approx(15.0 / (e.split_decode_tps * 3600) * 1e6)


@pytest.mark.parametrize("kwargs, message", [
    ({"hourly_usd": -1.0}, "between 0 and"), ({"kwh_usd": float("nan")}, "between 0 and"),
])
def test_bad_prices_are_refused(kwargs, message):
    e = estimate(LLAMA_8B, H100_SXM, bits=16, tokens=1)
    with pytest.raises(CalcError, match=message):
        cost(e, H100_SXM, **kwargs)


def test_a_device_of_your_own_is_checked():
    d = custom_device(48, 864, 362)
    assert d.tflops == {"fp16": 362} and d.title == "Your device"
    with pytest.raises(CalcError, match="--bandwidth = 0 must be"):
        custom_device(48, 0)
