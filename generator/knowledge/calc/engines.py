"""What engines actually allocate, and the calculator beside it: each engine's own rule for
its KV cache, modelled where it differs from the minimum the cache needs, and a log of that
engine reproduced from the model's entry.

- llama.cpp keeps a cache of `cells` (the context, padded to 256) for the layers that attend
  to everything, and a second cache for sliding-window layers that holds more than the
  window: min(context, window x sequences + micro-batch), padded to 256, so that a batch can
  be written before old cells are dropped. Its block types store 32 values with a 16-bit
  scale (q8_0: 34 bytes, q4_0: 18). For latent attention (MLA) it caches the latent with its
  RoPE key as K (576 values a layer in DeepSeek-V3) and the latent again as V (512).
- vLLM divides the cache memory it measured free into blocks of 16 tokens; each GPU of a
  tensor-parallel group holds max(1, KV heads / GPUs) heads of every layer, so KV heads are
  repeated when the GPUs outnumber them, and MLA's latent is held whole on every GPU.
- SGLang allocates #tokens slots of K and V per GPU, with the same head split.
The logs' MiB, GiB and SGLang's "GB" are binary units (2^20 and 2^30 bytes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.knowledge.calc.parts import Precision
from generator.knowledge.calc.specs import ModelSpec

MIB, GIB = 2**20, 2**30

GGML_BYTES = {"f32": 4.0, "f16": 2.0, "bf16": 2.0, "q8_0": 34 / 32, "q5_1": 24 / 32, "q5_0": 22 / 32, "q4_1": 20 / 32,
              "q4_0": 18 / 32, "iq4_nl": 18 / 32}
"""Bytes per value of ggml's cache types (ggml-common.h: a block of 32 values and a 16-bit scale)."""

KV_BYTES = {"auto": 2.0, "bf16": 2.0, "fp16": 2.0, "f16": 2.0, "fp8": 1.0, "fp8_e4m3": 1.0, "fp8_e5m2": 1.0}
"""Bytes per value of vLLM's and SGLang's --kv-cache-dtype (auto: the model's 16-bit type)."""

KV_TOLERANCE, WEIGHTS_TOLERANCE = 0.02, 0.03
"""How close the calculator must come to an engine's log: 2% for the cache, 3% for weights."""


def kv_heads_per_gpu(m: ModelSpec, tp: int) -> int | None:
    """KV heads one GPU holds under tensor parallelism: at least one, so heads are repeated
    when the GPUs outnumber them (vLLM's and SGLang's get_num_kv_heads)."""
    return max(1, m.kv_heads // tp) if m.kv_heads else None


def llama_cpp_kv_bytes(m: ModelSpec, cells: int, swa_cells: int | None, type_k: str, type_v: str) -> float:
    """The cache llama.cpp allocates for `cells` (and `swa_cells` for the windowed layers)."""
    k, v = GGML_BYTES[type_k], GGML_BYTES[type_v]
    if m.attention == "mla":
        return m.layers * (m.kv_lora_rank + m.rope_head_dim) * k * cells + m.layers * m.kv_lora_rank * v * cells
    per_layer = m.kv_heads * m.head_dim * (k + v)
    full = m._global_layers() * per_layer * cells
    local = (m.sliding_layers or 0) * per_layer * (swa_cells if swa_cells is not None else cells) if m.sliding_window else 0
    return full + local


def per_token_per_gpu(m: ModelSpec, tp: int, kv_bytes: float) -> float:
    """Cache bytes one token takes on one GPU in vLLM or SGLang."""
    if m.attention == "mla":
        return m.layers * (m.kv_lora_rank + m.rope_head_dim) * kv_bytes  # the latent, whole on every GPU
    return m._global_layers() * 2 * kv_heads_per_gpu(m, tp) * m.head_dim * kv_bytes


@dataclass(frozen=True)
class Check:
    """One engine log beside the calculator: the figure the log prints, ours, and whether
    they agree within the tolerance."""

    what: str  # "KV cache" or "weights"
    theirs: str
    ours: str
    ratio: float  # ours / theirs
    ok: bool


def check_log(log, m: ModelSpec, p: Precision | None) -> list[Check]:
    """Every figure of an engine log (kb.model.EngineLog) the calculator can reproduce."""
    out: list[Check] = []
    if log.kv_mib is not None and log.cells:
        tk, tv = log.kv_type_k or log.kv_type, log.kv_type_v or log.kv_type
        ours = llama_cpp_kv_bytes(m, log.cells, log.swa_cells, tk, tv) / MIB
        out.append(_check("KV cache", log.kv_mib, ours, KV_TOLERANCE, "MiB"))
    if log.kv_gib is not None and log.kv_tokens:
        per = per_token_per_gpu(m, log.tp, KV_BYTES[log.kv_type])
        tokens = log.kv_gib * GIB / per
        if log.engine == "vllm":
            tokens = math.floor(tokens / 16) * 16  # whole blocks of 16 tokens
        out.append(_check("KV cache", log.kv_tokens, tokens, KV_TOLERANCE, "tokens"))
    if log.weights_gib is not None and p is not None:
        ours = m.weight_bytes(p) / (log.tp if log.weights_per_gpu else 1) / GIB
        out.append(_check("weights", log.weights_gib, ours, WEIGHTS_TOLERANCE, "GiB"))
    return out


def _check(what: str, theirs: float, ours: float, tolerance: float, unit: str) -> Check:
    digits = 0 if unit == "tokens" else 2
    return Check(what=what, theirs=f"{theirs:,.{digits}f} {unit}", ours=f"{ours:,.{digits}f} {unit}", ratio=ours / theirs,
                 ok=abs(ours / theirs - 1) <= tolerance)
