"""How values are said to a reader: titles of the entry kinds, labels of enumerated values
(hardware class, attention design, engine status), spec names with their units, and the
number formatting of facts."""

from __future__ import annotations

from typing import Any

from generator.kb.text import esc

KIND_TITLES = {"term": "Glossary", "engine": "Engines", "hardware": "Hardware", "model": "Models", "guide": "Decision guides"}


STATUS_WORD = {"yes": "yes", "no": "no", "partial": "partial", "plugin": "via a plugin", "unknown": "unknown"}


STATUS_SYMBOL = {"yes": "yes", "no": "no", "partial": "partial", "plugin": "via plugin"}


SPEC_LABELS = {
    "memory_gb": ("Memory", "GB"), "memory_type": ("Memory type", ""), "bandwidth_gbs": ("Memory bandwidth", "GB/s"),
    "fp32_tflops": ("FP32 (dense)", "TFLOPS"), "fp16_tflops": ("FP16 tensor (dense)", "TFLOPS"),
    "bf16_tflops": ("BF16 tensor (dense)", "TFLOPS"), "fp8_tflops": ("FP8 tensor (dense)", "TFLOPS"),
    "fp4_tflops": ("FP4 tensor (dense)", "TFLOPS"), "int8_tops": ("INT8 tensor (dense)", "TOPS"),
    "tdp_w": ("Power (TDP)", "W"), "interconnect": ("Interconnect", ""), "release_year": ("Released", ""),
    "params_total_b": ("Parameters (total)", "B"), "params_active_b": ("Parameters (active per token)", "B"),
    "layers": ("Layers", ""), "attention_heads": ("Attention heads", ""), "kv_heads": ("KV heads", ""),
    "head_dim": ("Head dimension", ""), "hidden_size": ("Hidden size", ""), "context_length": ("Context length", "tokens"),
    "attention": ("Attention", ""), "kv_lora_rank": ("MLA latent width", ""), "rope_head_dim": ("MLA RoPE key width", ""),
    "full_attention_layers": ("Full-attention layers", ""), "kv_bytes_per_token": ("KV cache per token (16-bit)", "bytes"), "architecture": ("Architecture", ""),
    "sliding_window": ("Local window", "tokens"), "sliding_layers": ("Local (windowed) layers", ""), "window_kind": ("Local attention", ""),
    "linear_heads": ("Linear-attention value heads", ""), "linear_key_heads": ("Linear-attention key heads", ""),
    "linear_key_dim": ("Linear-attention key width", ""), "linear_value_dim": ("Linear-attention value width", ""),
    "experts_total": ("Routed experts per layer", ""), "experts_active": ("Experts per token", ""), "shared_experts": ("Shared experts", ""),
    "intermediate_size": ("FFN width", ""), "moe_intermediate_size": ("Expert FFN width", ""), "vocab_size": ("Vocabulary", "tokens"),
    "tie_word_embeddings": ("Output head tied to embeddings", ""), "license": ("Licence", ""),
    "status": ("Status", ""), "release_date": ("Release date", ""), "msrp_usd": ("Launch price (MSRP)", "USD"),
    "cloud_hourly_usd": ("Cloud price", "USD per hour"), "gpu_memory_default_gb": ("GPU share of memory by default", "GB"),
}


# Enumerated values as a reader says them (schema enums: hardware class and tier, attention
# design, architecture, engine status).
SEGMENTS = ("data-centre", "workstation", "consumer", "unified-memory", "edge")
"""Where a reader meets a device (hardware schema `segment`), in the order device lists group them."""


def segment_rank(e) -> int:
    """Where a device's segment comes in SEGMENTS, the sort key of every list grouped by it
    (a device without one comes last)."""
    return SEGMENTS.index(e.get("segment")) if e.get("segment") in SEGMENTS else len(SEGMENTS)

VALUE_LABELS = {
    "gpu": "GPU", "apu": "APU", "xpu": "XPU", "npu": "NPU", "tpu": "TPU", "cpu": "CPU", "soc": "SoC",
    "system": "System", "cluster": "Cluster", "family": "Product family",
    "data-centre": "Data centre", "workstation": "Workstation", "consumer": "Consumer GPU", "unified-memory": "Unified memory",
    "edge": "Edge",
    "very-tight": "Very tight", "tight": "Tight", "moderate": "Moderate", "average": "Average", "high": "High",
    "mha": "Multi-head (MHA)", "gqa": "Grouped-query (GQA)", "mqa": "Multi-query (MQA)", "mla": "Multi-head latent (MLA)",
    "hybrid-linear": "Hybrid linear", "other": "Other", "dense": "Dense", "moe": "Mixture of experts (MoE)",
    "active": "Active", "maintenance": "Maintenance only", "deprecated": "Deprecated", "archived": "Archived",
    "sliding": "Sliding window", "chunked": "Chunked", "shipping": "Shipping", "announced": "Announced",
}


def label(value: Any) -> str:
    """An enumerated value's label, escaped; other text escaped as it is."""
    return esc(VALUE_LABELS.get(value, value) if isinstance(value, str) else value)


def fmt_value(value: Any, unit: str = "", key: str = "") -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key == "release_year" and isinstance(value, (int, float)):
        return esc(str(int(value)))  # a year, not a quantity: 2022, not 2,022
    if isinstance(value, str) and not unit and value in VALUE_LABELS:
        return label(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # a float keeps the decimals its source gave (0.472 TFLOPS stays 0.472), up to four
        places = min(4, len(repr(value).partition(".")[2])) if isinstance(value, float) and "e" not in repr(value) else 2
        text = f"{value:,}" if isinstance(value, int) else f"{value:,.{places}f}".rstrip("0").rstrip(".")
    else:
        text = str(value)
    return esc(f"{text} {unit}".strip())


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def long_date(iso: str) -> str:
    """2026-11-12 as a reader says it: 12 November 2026."""
    y, m, d = str(iso).split("-")
    return f"{int(d)} {MONTHS[int(m) - 1]} {y}"


def release(as_of: dict | None, short: bool = False) -> str:
    """An engine's as_of as text, escaped: "0.33.0, 12 November 2026" (short: "0.33.0 · Nov 2026")."""
    if not as_of:
        return ""
    text = str(as_of["version"])
    if as_of.get("date"):
        y, m, _ = str(as_of["date"]).split("-")
        text += f" · {MONTHS[int(m) - 1][:3]} {y}" if short else f", {long_date(as_of['date'])}"
    return esc(text)


def _unit(x: float) -> tuple[float, int, str]:
    """The scale, decimals and unit a wait of `x` seconds is said in: ms under a second,
    seconds under two minutes, minutes past that (a Raspberry Pi reading a long prompt)."""
    return (1000, 0, "ms") if x < 1 else (1, 1, "s") if x < 120 else (1 / 60, 1, "min")


def wait(x: float) -> str:
    """A time to the first token as a reader says it: '289 ms', '8.7 s', '4.0 min'."""
    scale, digits, unit = _unit(x)
    return f"{x * scale:,.{digits}f} {unit}"


def wait_band(x: float, low: float, high: float, dash: str = "–") -> str:
    """An expected wait with its band in the expected figure's unit: '2.5 (1.9–3.8) min'
    (the calculator's port does the same)."""
    scale, digits, unit = _unit(x)
    return f"{x * scale:,.{digits}f} ({low * scale:,.{digits}f}{dash}{high * scale:,.{digits}f}) {unit}"
