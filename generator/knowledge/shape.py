"""A model the atlas does not hold, sized from its Hugging Face `config.json`.

Reads the fields memory and speed depend on (layers, widths, heads, experts, windows,
latent ranks, linear-attention state), counts the parameters from the shape, and returns a
calc.ModelSpec with the fields it used and those it could not find. The same reading runs
in the browser (docs/assets/atlas-calc.js, `specFromConfig`); a browser test checks both
give the same numbers.

The parameters are counted part by part (calc.parts.split, the same count the entries get),
and a `quantization_config` sets the precision of each part (quantization()): its method and
bits, and `modules_to_not_convert`, the parts a release keeps in 16 bits (gpt-oss: attention,
routers, embedding table and head). Active parameters count the experts a token uses
instead of all of them (and, as model cards do, the whole embedding table).

Pasted text is data: at most MAX_BYTES, parsed with the json module, every number checked
to be a finite whole number within LIMITS, nothing of it ever written into markup.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from generator.knowledge.calc import CalcError, Dims, ModelSpec, Precision, split
from generator.knowledge.calc.parts import total_b

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
    precision: Precision | None = None  # from the config's quantization_config, where it has one


def _refuse_constant(name: str):
    """json's NaN, Infinity and -Infinity are not numbers a config holds."""
    raise CalcError(f"{name} is not a number a config holds")


MAX_DEPTH = 32
"""Objects and lists nested deeper than this are refused before parsing: a config.json is
three or four levels, and Python's parser recurses once per level."""


def _depth(text: str) -> int:
    """The deepest nesting of brackets outside strings, counted without parsing."""
    depth = top = 0
    in_str = escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            top = max(top, depth)
            if top > MAX_DEPTH:
                return top
        elif ch in "]}":
            depth -= 1
    return top


def parse(text: str) -> dict:
    """The config as a dict, or a CalcError saying what is wrong with the text."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise CalcError(f"that is {len(text.encode('utf-8')):,} bytes; a config.json is at most {MAX_BYTES:,}")
    if _depth(text) > MAX_DEPTH:
        raise CalcError(f"the JSON is nested more than {MAX_DEPTH} levels deep; a config.json is a few levels")
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise CalcError(f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:  # (the depth check above keeps this from happening)
        raise CalcError(f"the JSON is nested more than {MAX_DEPTH} levels deep; a config.json is a few levels") from None
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
    if kv_heads > heads:
        raise CalcError(f"'num_key_value_heads' is {kv_heads:,}, more than the {heads:,} attention heads; "
                        "KV heads are at most the attention heads (each KV head serves one or more query heads)")
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
    shared_inter = num("shared_expert_intermediate_size")
    if shared_inter and not shared:
        shared = 1  # Qwen2-MoE names one shared expert by its width
    dense_layers = 0
    if experts:
        if not (per_tok and moe_inter):
            raise CalcError("the config names experts but not num_experts_per_tok and the expert width")
        first_dense = num("first_k_dense_replace", default=0)
        step = num("interleave_moe_layer_step", "decoder_sparse_step", default=1)
        moe_layers = len([i for i in range(first_dense, layers) if (i - first_dense + 1) % step == 0]) if step > 1 else layers - first_dense
        dense_layers = layers - moe_layers
        inter = num("intermediate_size_mlp", default=inter) if dense_layers else inter  # Llama 4's dense layers
    else:
        dense_layers = layers
    if dense_layers and not inter:
        raise CalcError("the config has no intermediate_size, the width of the MLP")
    lin_k_heads = num("linear_num_key_heads", default=lin_heads)
    conv = num("linear_conv_kernel_dim", "conv_kernel")
    gate = cfg.get("attn_output_gate") is True
    dims = Dims(layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=head_dim, vocab=vocab or None,
                tied=tied, q_lora_rank=num("q_lora_rank") if attention == "mla" else None,
                kv_lora_rank=rank if attention == "mla" else None, rope_dim=rope if attention == "mla" else None,
                nope_dim=num("qk_nope_head_dim") if attention == "mla" else None,
                v_head_dim=num("v_head_dim") if attention == "mla" else None, attn_gate=gate, linear_layers=linear,
                lin_k_heads=lin_k_heads if linear else None, lin_v_heads=lin_heads if linear else None,
                lin_k_dim=lin_k if linear else None, lin_v_dim=lin_v if linear else None,
                dense_layers=dense_layers if experts else None, inter=inter, experts=experts, per_tok=per_tok,
                moe_inter=moe_inter, shared=shared, shared_inter=shared_inter, shared_total=bool(shared_inter and shared == 1))
    parts, gaps = split(dims)
    if parts is None:
        raise CalcError(f"the config lacks {', '.join(gaps)}, which sizing needs")
    total, active = total_b(parts) * 1e9, sum(p.params_b if p.name == "embed" else p.active_b for p in parts) * 1e9
    context = num("max_position_embeddings", "max_seq_len", "seq_length")
    spec = ModelSpec(
        id="custom", title=name, params_b=total / 1e9, active_b=active / 1e9, layers=layers,
        kv_heads=kv_heads, head_dim=head_dim, attention=attention,
        kv_lora_rank=rank if attention == "mla" else None, rope_head_dim=rope if attention == "mla" else None,
        full_attention_layers=(layers - linear) if linear else None, context_length=context,
        sliding_window=window if local else None, sliding_layers=local or None,
        linear_heads=lin_heads if linear else None, linear_key_dim=lin_k if linear else None,
        linear_value_dim=lin_v if linear else None, experts_total=experts, experts_active=per_tok,
        linear_key_heads=lin_k_heads if linear else None, linear_conv=conv if linear else None, parts=parts,
    )
    precision = quantization(data.get("quantization_config"), used, missing)
    return Reading(spec, list(dict.fromkeys(used)), missing, total / 1e9, active / 1e9, precision)


def read_text(text: str, name: str = "Your model") -> Reading:
    return read_config(parse(text), name)


QUANT_BITS = {"mxfp4": 4.25, "fp8": 8.0, "nvfp4": 4.5, "modelopt": 4.5}
"""Bits per weight of the quantization methods a config names without a bit width, scales
included (the format terms' bits: MXFP4 4.25, FP8 8, NVFP4 4.5)."""

MODULE_PARTS = (("embed_tokens", "embed"), ("lm_head", "head"), ("self_attn", "attention"), ("linear_attn", "attention"),
                ("router", "router"), ("mlp.gate", "router"), ("shared_expert", "shared"), ("experts", "experts"))
"""A module name in modules_to_not_convert (or ignore) and the part it keeps in 16 bits."""

MAX_MODULES = 10_000


def quantization(q, used: list[str], missing: list[str]) -> Precision | None:
    """The precision a config's quantization_config describes: the method's bits (or `bits`
    with a group's 16-bit scale, group_size), and 16 bits for every part its
    modules_to_not_convert or ignore list names. Embedding table, routers and head are kept
    in 16 bits by every method read here unless the list says otherwise (they are not Linear
    layers, or the quantizers skip them by default). None when there is no config to read."""
    if q is None:
        return None
    if not isinstance(q, dict):
        raise CalcError("'quantization_config' must be an object")
    method = q.get("quant_method")
    if not isinstance(method, str) or len(method) > 40:
        raise CalcError("'quantization_config' has no quant_method (a short name such as mxfp4, fp8, awq, gptq)")
    method = method.casefold()
    bits = q.get("bits", q.get("w_bit"))
    if bits is not None and (isinstance(bits, bool) or not isinstance(bits, (int, float)) or not 1 <= bits <= 16):
        raise CalcError(f"'quantization_config.bits' is {bits!r}; it must be between 1 and 16")
    group = q.get("group_size", q.get("q_group_size"))
    if group is not None and (isinstance(group, bool) or not isinstance(group, int) or not (group == -1 or 1 <= group <= LIMIT)):
        raise CalcError(f"'quantization_config.group_size' is {group!r}; it must be a whole number (or -1)")
    if method in QUANT_BITS:
        b = QUANT_BITS[method]
    elif bits is not None:
        b = float(bits) + (16 / group if group and group > 0 else 0)  # one 16-bit scale per group
    else:
        missing.append(f"quantization_config: '{method}' without bits, so the weights are sized at 16 bits")
        return None
    keep = {"embed": 16.0, "head": 16.0, "router": 16.0}
    names = q.get("modules_to_not_convert") or q.get("ignore") or q.get("ignored_layers") or []
    if not isinstance(names, list) or len(names) > MAX_MODULES or not all(isinstance(x, str) and len(x) < 300 for x in names):
        raise CalcError("'modules_to_not_convert' must be a list of module names")
    for n in names:
        for pattern, part in MODULE_PARTS:
            if pattern in n:
                keep[part] = 16.0
                break
    used.append("quantization_config")
    kept = ", ".join(sorted(k for k in keep))
    return Precision(bits=b, label=f"{method} as the config says ({b:g} bits)", parts=tuple(sorted(keep.items())),
                     note=f"from the config's quantization_config: {method} at {b:g} bits, with {kept} kept in 16 bits")
