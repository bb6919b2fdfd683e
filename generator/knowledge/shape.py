"""A model the atlas does not hold, sized from its Hugging Face `config.json`.

Reads the fields memory and speed depend on (layers, widths, heads, experts, windows,
latent ranks, linear-attention state), counts the parameters from the shape, and returns a
calc.ModelSpec with the fields it used and those it could not find. The same reading runs
in the browser (docs/assets/atlas-calc.js, `specFromConfig`); a browser test checks both
give the same numbers.

Parameter count, per decoder layer:
    attention  q, k, v, o projections (MLA: the low-rank query and key-value paths)
    MLP        3 x hidden x width (gated: gate, up, down); an MoE layer has one per expert,
               its shared experts and a router (hidden x experts)
plus the embedding table (vocab x hidden) and, unless tied, the output head of the same
size. Norms and biases are left out (well under 0.1% of any model here). Active
parameters count the experts a token uses instead of all of them.

Pasted text is data: at most MAX_BYTES, parsed with the json module, every number checked
to be a finite whole number within LIMITS, nothing of it ever written into markup.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from generator.knowledge.calc import CalcError, ModelSpec

MAX_BYTES = 200_000
"""A config.json is a few kilobytes; anything far larger is not one."""

LIMIT = 10**7
"""No width, count or vocabulary of a real model is above this."""


@dataclass
class Reading:
    spec: ModelSpec
    used: list[str] = field(default_factory=list)  # config fields read
    missing: list[str] = field(default_factory=list)  # what the config lacked, in words
    params_total_b: float = 0.0
    params_active_b: float = 0.0


def _refuse_constant(name: str):
    """json's NaN, Infinity and -Infinity are not numbers a config holds."""
    raise CalcError(f"{name} is not a number a config holds")


def parse(text: str) -> dict:
    """The config as a dict, or a CalcError saying what is wrong with the text."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise CalcError(f"that is {len(text.encode('utf-8')):,} bytes; a config.json is at most {MAX_BYTES:,}")
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise CalcError(f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    if not isinstance(data, dict):
        raise CalcError("a config.json is a JSON object ({...}), not a list or a single value")
    return data


def read_config(data: dict, name: str = "Your model") -> Reading:
    """Size a model from its config (see the module's docstring)."""
    cfg = data.get("text_config") if isinstance(data.get("text_config"), dict) else data  # Gemma 3, Llama 4: the text model
    used: list[str] = []
    missing: list[str] = []

    def num(*keys: str, required: bool = False, default: int | None = None) -> int | None:
        for k in keys:
            v = cfg.get(k)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v) or not 0 < v <= LIMIT:
                raise CalcError(f"'{k}' is {v!r}; it must be a whole number between 1 and {LIMIT:,}")
            used.append(k)
            return int(v)
        if required:
            raise CalcError(f"the config has no {' or '.join(repr(k) for k in keys)}, which sizing needs")
        return default

    layers = num("num_hidden_layers", "n_layers", "num_layers", required=True)
    hidden = num("hidden_size", "d_model", "dim", required=True)
    heads = num("num_attention_heads", "n_heads", required=True)
    kv_heads = num("num_key_value_heads", "n_kv_heads", default=heads)
    head_dim = num("head_dim", default=hidden // heads)
    vocab = num("vocab_size")
    if vocab is None:
        missing.append("vocab_size: the embedding table is not counted")
        vocab = 0
    tied = cfg.get("tie_word_embeddings", data.get("tie_word_embeddings"))  # Gemma 3 keeps it beside text_config
    if isinstance(tied, bool):
        used.append("tie_word_embeddings")
    else:
        tied = False
        missing.append("tie_word_embeddings: taken as untied (the output head counted)")

    # Attention, by design.
    rank, rope = num("kv_lora_rank"), num("qk_rope_head_dim")
    if rank and rope:
        attention = "mla"
        q_rank = num("q_lora_rank")
        nope = num("qk_nope_head_dim", default=head_dim)
        v_dim = num("v_head_dim", default=head_dim)
        q = hidden * q_rank + q_rank * heads * (nope + rope) if q_rank else hidden * heads * (nope + rope)
        attn = q + hidden * (rank + rope) + rank * heads * (nope + v_dim) + heads * v_dim * hidden
    else:
        attention = "gqa" if kv_heads < heads else "mha"
        attn = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2

    kinds = cfg.get("layer_types") if isinstance(cfg.get("layer_types"), list) else None
    if kinds is not None:
        if len(kinds) != layers or not all(isinstance(k, str) for k in kinds):
            raise CalcError(f"'layer_types' lists {len(kinds)} entries for {layers} layers")
        used.append("layer_types")
    window = num("sliding_window", "attention_chunk_size")
    local = linear = 0
    if kinds is not None:
        local = sum(k in ("sliding_attention", "chunked_attention") for k in kinds)
        linear = sum(k in ("linear_attention", "mamba") for k in kinds)
    elif window and cfg.get("use_sliding_window") is not False:
        local = layers  # a window on every layer (Mistral 7B v0.1)
    interval = num("full_attention_interval")
    if kinds is None and interval:
        linear = layers - layers // interval
    lin_heads = num("linear_num_value_heads")
    lin_k, lin_v = num("linear_key_head_dim"), num("linear_value_head_dim")
    if linear:
        attention = "hybrid-linear"
        if not (lin_heads and lin_k and lin_v):
            missing.append("linear-attention state widths: the recurrent state is not counted")
    if local and not window:
        missing.append("sliding_window: local layers counted as full")
        local = 0

    # MLP: dense, or experts.
    experts = num("n_routed_experts", "num_local_experts", "num_experts")
    per_tok = num("num_experts_per_tok", "moe_topk")
    inter = num("intermediate_size", "ffn_dim")
    moe_inter = num("moe_intermediate_size", default=inter)
    shared = num("n_shared_experts", "num_shared_experts", default=0)
    shared_inter = num("shared_expert_intermediate_size", default=moe_inter if shared else 0)
    if shared_inter and not shared:
        shared = 1
    dense_layers = 0
    if experts:
        if not (per_tok and moe_inter):
            raise CalcError("the config names experts but not num_experts_per_tok and the expert width")
        first_dense = num("first_k_dense_replace", default=0)
        step = num("interleave_moe_layer_step", "decoder_sparse_step", default=1)
        moe_layers = len([i for i in range(first_dense, layers) if (i - first_dense + 1) % step == 0]) if step > 1 else layers - first_dense
        dense_layers = layers - moe_layers
    else:
        moe_layers = 0
        dense_layers = layers
    if dense_layers and not inter:
        raise CalcError("the config has no intermediate_size, the width of the MLP")
    mlp_dense = 3 * hidden * (inter or 0)
    expert = 3 * hidden * (moe_inter or 0)
    shared_mlp = 3 * hidden * shared_inter * (shared if shared_inter == moe_inter else 1)
    router = hidden * (experts or 0)

    embed = vocab * hidden * (1 if tied else 2)
    # (a linear-attention layer is counted as an attention layer of the same widths: close enough for memory)
    total = embed + layers * attn + dense_layers * mlp_dense
    active = total
    if experts:
        total += moe_layers * (experts * expert + shared_mlp + router)
        active += moe_layers * (per_tok * expert + shared_mlp + router)
    context = num("max_position_embeddings", "max_seq_len", "seq_length")
    spec = ModelSpec(
        id="custom", title=name, params_b=total / 1e9, active_b=active / 1e9, layers=layers,
        kv_heads=kv_heads, head_dim=head_dim, attention=attention,
        kv_lora_rank=rank if attention == "mla" else None, rope_head_dim=rope if attention == "mla" else None,
        full_attention_layers=(layers - linear) if linear else None, context_length=context,
        sliding_window=window if local else None, sliding_layers=local or None,
        linear_heads=lin_heads if linear else None, linear_key_dim=lin_k if linear else None,
        linear_value_dim=lin_v if linear else None, experts_total=experts, experts_active=per_tok,
    )
    return Reading(spec, list(dict.fromkeys(used)), missing, total / 1e9, active / 1e9)


def read_text(text: str, name: str = "Your model") -> Reading:
    return read_config(parse(text), name)
