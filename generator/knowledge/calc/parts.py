"""A model by its parts, and a weight format by what it does to each part.

A released checkpoint is rarely one precision: gpt-oss ships its experts in MXFP4 and keeps
attention, embeddings, router and output head in BF16; FP8 and NVFP4 checkpoints usually keep
the embedding table and the head in 16 bits; llama.cpp's Q4_K_M stores the head at Q6_K. So a
model is counted part by part from the widths its config gives (`Dims`), and a `Precision`
says the bits of each part. Memory holds every part; one decoded token reads all of each part
except the embedding table (one row) and the routed experts (the k of E it is sent to).

Parameter count per decoder layer:
    attention  q, k, v, o projections (MLA: the low-rank query and key-value paths; a gated
               attention output doubles q; a Gated DeltaNet layer: its q, k, v, gate projections
               and output, from the linear-attention widths)
    mlp        3 x hidden x width (gated: gate, up, down) on a dense layer
    experts    the same per routed expert on an MoE layer; shared experts; router hidden x experts
plus the embedding table (vocab x hidden) and the output head of the same size unless tied.
Norms and biases are left out (well under 0.1% of any model here).
"""

from __future__ import annotations

from dataclasses import dataclass, field

PARTS = ("embed", "attention", "mlp", "experts", "shared", "router", "head")
PART_LABELS = {"embed": "embedding table", "attention": "attention", "mlp": "dense MLP", "experts": "routed experts",
               "shared": "shared experts", "router": "router", "head": "output head", "all": "all parameters"}


@dataclass(frozen=True)
class Part:
    name: str  # one of PARTS, or "all" for a model that could not be split
    params_b: float  # held in memory
    active_b: float  # read for one decoded token


@dataclass(frozen=True)
class Precision:
    """Bits per weight of each part: `bits` for the parts a format quantizes, `parts` where a
    part is kept otherwise (gpt-oss in MXFP4: attention 16). `label` names it for readers."""

    bits: float
    label: str
    parts: tuple[tuple[str, float], ...] = ()
    note: str | None = None  # what the per-part rule is and where it comes from

    def of(self, part: str) -> float:
        return dict(self.parts).get(part, self.bits)

    @property
    def mixed(self) -> bool:
        return any(b != self.bits for _, b in self.parts)


def uniform(bits: float, label: str | None = None) -> Precision:
    return Precision(bits=bits, label=label or f"{bits:g} bits per weight")


@dataclass
class Dims:
    """The widths a parameter count needs, as a config names them (None: not given)."""

    layers: int
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    vocab: int | None = None
    tied: bool | None = None
    q_lora_rank: int | None = None  # MLA
    kv_lora_rank: int | None = None
    rope_dim: int | None = None
    nope_dim: int | None = None
    v_head_dim: int | None = None
    attn_gate: bool = False  # a gate on the attention output (Qwen3-Next, Qwen3.6): q is twice as wide
    linear_layers: int = 0  # Gated DeltaNet / linear-attention layers among `layers`
    lin_k_heads: int | None = None
    lin_v_heads: int | None = None
    lin_k_dim: int | None = None
    lin_v_dim: int | None = None
    dense_layers: int | None = None  # layers with a dense MLP (None: all, unless experts)
    inter: int | None = None
    experts: int | None = None
    per_tok: int | None = None
    moe_inter: int | None = None
    shared: int = 0  # shared experts per MoE layer
    shared_inter: int | None = None  # width of one shared expert (or of all together, as Qwen2-MoE names it)
    shared_total: bool = False  # shared_inter is the width of all shared experts together
    missing: list[str] = field(default_factory=list)


def _attention(d: Dims) -> int | None:
    """Parameters of one full-attention layer."""
    h = d.hidden
    if d.kv_lora_rank and d.rope_dim:
        heads, nope, v = d.heads, d.nope_dim or d.head_dim, d.v_head_dim or d.head_dim
        if not (heads and nope and v):
            return None
        q = h * d.q_lora_rank + d.q_lora_rank * heads * (nope + d.rope_dim) if d.q_lora_rank else h * heads * (nope + d.rope_dim)
        return q + h * (d.kv_lora_rank + d.rope_dim) + d.kv_lora_rank * heads * (nope + v) + heads * v * h
    if not (d.heads and d.head_dim and d.kv_heads):
        return None
    q = h * d.heads * d.head_dim * (2 if d.attn_gate else 1)
    return q + 2 * h * d.kv_heads * d.head_dim + d.heads * d.head_dim * h


def _linear(d: Dims, attention: int) -> int:
    """Parameters of one linear-attention (Gated DeltaNet) layer: q and k at the key widths,
    v and the output gate at the value widths, two per-head scalars, the output projection.
    Without the widths, counted as an attention layer."""
    if not (d.lin_k_heads and d.lin_v_heads and d.lin_k_dim and d.lin_v_dim):
        return attention
    k, v = d.lin_k_heads * d.lin_k_dim, d.lin_v_heads * d.lin_v_dim
    return d.hidden * (2 * k + 2 * v) + d.hidden * 2 * d.lin_v_heads + v * d.hidden


def split(d: Dims) -> tuple[tuple[Part, ...] | None, list[str]]:
    """The model's parts, or None with what is missing when the widths do not allow a count
    of embedding, attention and MLP. The FFN may still be unknown on a model that gives no
    MLP width: then the parts come back without it and the reason is in the list."""
    missing: list[str] = []
    if not d.hidden:
        return None, ["hidden_size"]
    attn = _attention(d)
    if attn is None:
        return None, ["the attention widths (heads, KV heads, head dimension or MLA ranks)"]
    h = d.hidden
    out: list[Part] = []
    if d.vocab:
        if d.tied:
            out.append(Part("head", d.vocab * h / 1e9, d.vocab * h / 1e9))  # one table: looked up, and read whole as the head
        else:
            out += [Part("embed", d.vocab * h / 1e9, h / 1e9), Part("head", d.vocab * h / 1e9, d.vocab * h / 1e9)]
    else:
        missing.append("vocab_size")
    full = d.layers - d.linear_layers
    a = full * attn + d.linear_layers * _linear(d, attn)
    out.append(Part("attention", a / 1e9, a / 1e9))
    moe_layers = d.layers - (d.dense_layers if d.dense_layers is not None else (0 if d.experts else d.layers))
    dense = d.layers - moe_layers
    if dense:
        if d.inter:
            out.append(Part("mlp", dense * 3 * h * d.inter / 1e9, dense * 3 * h * d.inter / 1e9))
        else:
            missing.append("intermediate_size")
    if moe_layers:
        if d.moe_inter and d.experts and d.per_tok:
            e = moe_layers * d.experts * 3 * h * d.moe_inter
            out.append(Part("experts", e / 1e9, e * d.per_tok / d.experts / 1e9))
            out.append(Part("router", moe_layers * h * d.experts / 1e9, moe_layers * h * d.experts / 1e9))
        else:
            missing.append("moe_intermediate_size and the expert counts")
        if d.shared:
            width = d.shared_inter or d.moe_inter
            if width:
                s = moe_layers * 3 * h * width * (1 if d.shared_total else d.shared)
                out.append(Part("shared", s / 1e9, s / 1e9))
            else:
                missing.append("the shared expert's width")
    return tuple(out), missing


def total_b(parts: tuple[Part, ...]) -> float:
    return sum(p.params_b for p in parts)


def active_b(parts: tuple[Part, ...]) -> float:
    return sum(p.active_b for p in parts)
