"""A model and a device as the calculator reads them from their entries: the figures memory
and speed depend on, the model split into parts (parts.split), and the devices it sizes."""

from __future__ import annotations

import dataclasses
import difflib
import math
from dataclasses import dataclass

from generator.kb.model import Atlas, Entry
from generator.kb.names import by_words, norm
from generator.knowledge.calc.limits import CalcError
from generator.knowledge.calc.parts import Dims, Part, Precision, split


@dataclass(frozen=True)
class ModelSpec:
    id: str
    title: str
    params_b: float
    active_b: float
    layers: int
    kv_heads: int | None
    head_dim: int | None
    attention: str
    kv_lora_rank: int | None = None
    rope_head_dim: int | None = None
    full_attention_layers: int | None = None
    context_length: int | None = None
    kv_bytes_16: float | None = None  # published whole-model figure for designs the formulas do not cover
    sliding_window: int | None = None  # local layers cache at most this many tokens (a window or a chunk)
    sliding_layers: int | None = None  # how many layers are local
    linear_heads: int | None = None  # hybrid: a recurrent layer's state is heads x key width x value width
    linear_key_dim: int | None = None
    linear_value_dim: int | None = None
    experts_total: int | None = None  # MoE: routed experts per layer, and how many one token uses
    experts_active: int | None = None
    linear_key_heads: int | None = None  # hybrid: key heads, where fewer than the value heads (the conv state)
    linear_conv: int | None = None  # hybrid: the short convolution's kernel; it keeps kernel - 1 inputs per sequence
    linear_layers: int | None = None  # hybrid: layers with a recurrent state, where fewer than all the others (Nemotron-H)
    parts: tuple[Part, ...] | None = None  # the parameter split (parts.split); None: one part at one precision
    parts_note: str | None = None  # what could not be split, in words, when the split is incomplete

    def kv_bytes_per_token(self, kv_bits: float = 16) -> float:
        """What one more token of context adds to a sequence's cache, once the context is
        longer than any window: the layers that cache every token."""
        b = kv_bits / 8
        if self.kv_bytes_16:
            return self.kv_bytes_16 * kv_bits / 16
        if self.attention == "other":
            raise CalcError(f"{self.title}: attention 'other' needs kv_bytes_per_token in its specs")
        if self.attention == "mla":
            if not (self.kv_lora_rank and self.rope_head_dim):
                raise CalcError(f"{self.title}: an MLA model needs kv_lora_rank and rope_head_dim in its specs")
            return self.layers * (self.kv_lora_rank + self.rope_head_dim) * b
        if not (self.kv_heads and self.head_dim):
            raise CalcError(f"{self.title}: KV-cache size needs kv_heads and head_dim in its specs")
        return 2 * self._global_layers() * self.kv_heads * self.head_dim * b

    def _global_layers(self) -> int:
        layers = self.full_attention_layers if self.attention == "hybrid-linear" and self.full_attention_layers else self.layers
        return layers - (self.sliding_layers or 0) if self.sliding_window else layers

    def state_bytes(self, kv_bits: float = 16) -> float:
        """A hybrid model's fixed state per sequence, whatever the context: every
        linear-attention layer keeps a heads x key width x value width matrix, and, where the
        entry gives the kernel, the last kernel - 1 inputs of its short convolution over the
        key, query and value channels (counted at the cache's precision; engines may keep it in 32 bits)."""
        if self.attention != "hybrid-linear" or not (self.full_attention_layers and self.linear_heads
                                                     and self.linear_key_dim and self.linear_value_dim):
            return 0.0
        linear = self.linear_layers or self.layers - self.full_attention_layers
        per_layer = self.linear_heads * self.linear_key_dim * self.linear_value_dim
        if self.linear_conv:
            channels = 2 * (self.linear_key_heads or self.linear_heads) * self.linear_key_dim + self.linear_heads * self.linear_value_dim
            per_layer += channels * (self.linear_conv - 1)
        return linear * per_layer * kv_bits / 8

    def kv_bytes(self, tokens: int, kv_bits: float = 16) -> float:
        """One sequence's cache at `tokens` of context: layers that cache every token grow
        with it, a local layer holds at most its window, a recurrent layer a fixed state."""
        grow = self.kv_bytes_per_token(kv_bits) * tokens
        if self.sliding_window and self.sliding_layers and self.kv_heads and self.head_dim and self.attention != "mla":
            # (with a published per-token figure, that figure is the global layers' and kv_heads
            # and head_dim describe the local ones: Gemma 4)
            grow += 2 * self.sliding_layers * self.kv_heads * self.head_dim * kv_bits / 8 * min(tokens, self.sliding_window)
        return grow + self.state_bytes(kv_bits)

    def weights_read(self, batch: int) -> float | None:
        """Parameters (billions) one decode step of `batch` sequences reads, whatever their
        precision: see bytes_read."""
        return self._read(batch, None)

    def weight_bytes(self, p: Precision) -> float:
        """Bytes the weights take in memory: every part at its precision."""
        if self.parts is None:
            return self.params_b * 1e9 * p.bits / 8
        return sum(x.params_b * 1e9 * p.of(x.name) / 8 for x in self.parts)

    def bytes_read(self, p: Precision, batch: int = 1) -> float | None:
        """Bytes of weights one decode step of `batch` sequences reads: every part a token
        uses, the embedding table one row a token; of the routed experts, those the batch
        touches: with routing spread evenly, n tokens touch E x (1 - (1 - k/E)^n) of a layer's
        E experts. Without the expert counts only one sequence can be answered (None above one)."""
        return self._read(batch, p)

    def _read(self, batch: int, p: Precision | None) -> float | None:
        bits = (lambda name: p.of(name) / 8 * 1e9) if p else (lambda name: 1.0)  # noqa: E731
        if self.parts is None:
            if self.active_b == self.params_b or batch == 1:
                return self.active_b * bits("all")
            if not (self.experts_total and self.experts_active and self.experts_total > self.experts_active):
                return None
            e, k = self.experts_total, self.experts_active
            per_expert = (self.params_b - self.active_b) / (e - k)
            always = self.active_b - k * per_expert
            touched = e * (1 - (1 - k / e) ** batch)
            return min(self.params_b, always + touched * per_expert) * bits("all")
        out = 0.0
        for x in self.parts:
            if x.name == "experts" and batch > 1:
                if not (self.experts_total and self.experts_active):
                    return None
                share = 1 - (1 - self.experts_active / self.experts_total) ** batch
                out += x.params_b * share * bits(x.name)
            elif x.name == "embed":
                out += min(x.params_b, x.active_b * batch) * bits(x.name)
            else:
                out += x.active_b * bits(x.name)
        return out


GIB = 2**30
"""Bytes in a gigabyte of device memory as vendors count it. A card sold as 80 GB holds 80 GiB
(nvidia-smi shows 81,559 MiB usable on an H100), a 24 GB card 24 GiB, a 128 GB Mac 128 GiB,
and the GPU shares read from Metal are GiB too; the weights, caches and totals the calculator
works out are counted in 10^9-byte GB. So memory is compared in bytes: a 48 GB share holds
51.5 GB of weights and cache."""


@dataclass(frozen=True)
class DeviceSpec:
    id: str
    title: str
    memory_gb: float | None
    bandwidth_gbs: float | None
    tflops: dict[str, float]  # precision -> dense TFLOPS
    tdp_w: float | None = None  # board power (TDP/TBP) as the vendor states it
    hourly_usd: float | None = None  # the entry's on-demand price per device-hour at one named cloud
    hourly_note: str | None = None  # which cloud, instance and region, and when the price was read
    hourly_checked: str | None = None  # the day the price was read (YYYY-MM-DD): its age
    gpu_default_gb: float | None = None  # unified memory: what the GPU may use by default (macOS)
    max_devices: int = 8  # how many a model may be split over in a usual setup (SPLIT_LIMIT)
    platform: str | None = None  # what its software stack is (VENDOR_PLATFORM): which formats it runs

    @property
    def usable_gb(self) -> float | None:
        """What weights and cache may fill, in the vendor's (binary) GB: the GPU's default
        share where the entry gives one."""
        return self.gpu_default_gb or self.memory_gb

    @property
    def usable_decimal_gb(self) -> float | None:
        """The same, in the 10^9-byte GB that needs are counted in (48 GiB is 51.5 GB)."""
        return self.usable_gb * GIB / 1e9 if self.usable_gb else None


def dims_of(s: dict) -> Dims:
    """An entry's specs as the widths parts.split counts (the config names in its schema)."""
    v = lambda k: s[k]["value"] if k in s else None  # noqa: E731
    layers = int(v("layers"))
    full = v("full_attention_layers")
    linear = layers - full if v("attention") == "hybrid-linear" and full else 0
    return Dims(layers=layers, hidden=v("hidden_size"), heads=v("attention_heads"), kv_heads=v("kv_heads"),
                head_dim=v("head_dim"), vocab=v("vocab_size"), tied=v("tie_word_embeddings"),
                q_lora_rank=v("q_lora_rank"), kv_lora_rank=v("kv_lora_rank") if v("attention") == "mla" else None,
                rope_dim=v("rope_head_dim") if v("attention") == "mla" else None, nope_dim=v("qk_nope_head_dim"),
                v_head_dim=v("v_head_dim"), attn_gate=bool(v("attn_output_gate")), linear_layers=linear,
                lin_k_heads=v("linear_key_heads") or v("linear_heads"), lin_v_heads=v("linear_heads"),
                lin_k_dim=v("linear_key_dim"), lin_v_dim=v("linear_value_dim"),
                dense_layers=v("dense_layers") if v("architecture") == "moe" else None, inter=v("intermediate_size"),
                experts=v("experts_total") if v("architecture") == "moe" else None, per_tok=v("experts_active"),
                moe_inter=v("moe_intermediate_size"), shared=int(v("shared_experts") or 0),
                shared_inter=v("shared_expert_intermediate_size"))


SPLIT_TOLERANCE = 0.1
"""How far a split counted from config widths may stray from the published total before it is
set aside: names round (Llama 3.1 8B counts 8.03B), but a pruned model whose blocks differ in
shape (Llama 3.3 Nemotron Super 49B: 80 blocks of Llama 3.3 70B's width counted, 49B real) would
be sized 44% too large."""


def complete(parts: tuple[Part, ...] | None, missing: list[str], total_b: float, active_b: float,
             experts: int | None, per_tok: int | None) -> tuple[tuple[Part, ...] | None, str | None]:
    """Parts whose MLP widths an entry lacks are the published total less what was counted,
    as a dense MLP, or for an MoE split between routed experts and the rest by the published
    active count; the note says so. Without the embedding or attention widths: no split."""
    if parts is None:
        return None, f"its entry lacks {', '.join(missing)}, so every part is sized at the format's bits"
    if not missing:
        counted = sum(p.params_b for p in parts)
        if total_b and abs(counted - total_b) > SPLIT_TOLERANCE * total_b:
            # uneven layers (Nemotron Super's pruned blocks): the widths describe the widest block only
            return None, (f"its config widths count {counted:,.1f}B parameters where its published total is "
                          f"{total_b:,.1f}B (its layers differ in shape), so every part is sized at the format's bits")
        return parts, None
    if missing == ["vocab_size"]:
        return None, "its entry lacks vocab_size, so the embedding table and head are sized at the format's bits like the rest"
    if "vocab_size" in missing:
        return None, f"its entry lacks {', '.join(missing)}, so every part is sized at the format's bits"
    counted = sum(p.params_b for p in parts)
    counted_active = sum(p.active_b for p in parts)
    rest, rest_active = total_b - counted, active_b - counted_active
    if rest <= 0 or rest_active < 0:
        return None, f"its entry lacks {', '.join(missing)} and its published totals do not leave room for them, so every part is sized at the format's bits"
    if experts and per_tok and experts > per_tok:
        routed = min(rest, max(0.0, (rest - rest_active) * experts / (experts - per_tok)))
        extra = (Part("experts", routed, routed * per_tok / experts), Part("shared", rest - routed, rest - routed))
    else:
        extra = (Part("mlp", rest, rest),)
    return parts + tuple(p for p in extra if p.params_b > 0), (
        f"its entry lacks {', '.join(missing)}: the MLP is its published total less the counted parts")


def model_spec(e: Entry) -> ModelSpec:
    s = e.get("specs")
    v = lambda k: s[k]["value"] if k in s else None  # noqa: E731
    total, active = v("params_total_b"), v("params_active_b") or v("params_total_b")
    parts, note = complete(*split(dims_of(s)), total, active, v("experts_total"), v("experts_active"))
    return ModelSpec(id=e.id, title=e.title, params_b=total, active_b=active,
                     layers=int(v("layers")), kv_heads=v("kv_heads"), head_dim=v("head_dim"), attention=v("attention"),
                     kv_lora_rank=v("kv_lora_rank"), rope_head_dim=v("rope_head_dim"),
                     full_attention_layers=v("full_attention_layers"), context_length=v("context_length"),
                     kv_bytes_16=v("kv_bytes_per_token"), sliding_window=v("sliding_window"), sliding_layers=v("sliding_layers"),
                     linear_heads=v("linear_heads"), linear_key_dim=v("linear_key_dim"), linear_value_dim=v("linear_value_dim"),
                     experts_total=v("experts_total"), experts_active=v("experts_active"),
                     linear_key_heads=v("linear_key_heads"), linear_conv=v("linear_conv_kernel"), linear_layers=v("linear_layers"),
                     parts=parts, parts_note=note)


def device_spec(e: Entry) -> DeviceSpec:
    s = e.get("specs") or {}
    v = lambda k: s[k]["value"] if k in s else None  # noqa: E731
    tflops = {p: v(f"{p}_tflops") for p in ("fp4", "fp8", "fp16", "bf16") if v(f"{p}_tflops")}
    price = s.get("cloud_hourly_usd") or {}
    note = "; ".join(x for x in ((price.get("note") or "").rstrip(". ") or None, f"read {price['checked']}" if price.get("checked") else None) if x) or None
    return DeviceSpec(id=e.id, title=e.title, memory_gb=v("memory_gb"), bandwidth_gbs=v("bandwidth_gbs"), tflops=tflops,
                      tdp_w=v("tdp_w"), hourly_usd=v("cloud_hourly_usd"), hourly_note=note, hourly_checked=price.get("checked"),
                      gpu_default_gb=v("gpu_memory_default_gb"), max_devices=SPLIT_LIMIT.get(e.get("class"), 8),
                      platform=VENDOR_PLATFORM.get(e.get("vendor") or ""))


def configurations(e: Entry) -> list[DeviceSpec]:
    """A device in each memory size it is sold with (its `configurations`, smallest first),
    or the device alone. A size's GPU share is the one read at that size; the largest size is
    the entry's own figures. Ids read `apple-m2-max@64`, titles `Apple M2 Max, 64 GB`."""
    top = device_spec(e)
    sizes = e.get("configurations") or []
    if not sizes:
        return [top]
    out = []
    for c in sizes:
        mem = c["memory_gb"]
        if mem == top.memory_gb:
            out.append(dataclasses.replace(top, id=f"{e.id}@{mem:g}", title=f"{e.title}, {mem:g} GB"))
            continue
        share = (c.get("gpu_memory_default_gb") or {}).get("value")
        out.append(dataclasses.replace(top, id=f"{e.id}@{mem:g}", title=f"{e.title}, {mem:g} GB", memory_gb=mem,
                                       gpu_default_gb=share))
    return out


VENDOR_PLATFORM = {"NVIDIA": "cuda", "AMD": "rocm", "Apple": "apple", "Intel": "intel", "Google": "tpu", "AWS": "neuron",
                   "Raspberry Pi Ltd": "cpu"}
"""A device's platform by its vendor, in the names terms use for `platforms` (compare.PLATFORMS):
a weight format whose term says it `runs_on` some (EXL3: cuda) is sized only on devices of those.
A device not in the map has no platform, and every format is sized on it."""


NOT_ONE_DEVICE = ("cluster", "family")
"""Racks and product families: their figures are totals or ranges, not one device's."""


def sized_devices(atlas: Atlas) -> list[Entry]:
    """The devices fit and speed are worked out for: one device with a memory figure."""
    return [e for e in atlas.of_kind("hardware")
            if (e.get("specs") or {}).get("memory_gb") and e.get("class") not in NOT_ONE_DEVICE]


SPLIT_LIMIT = {"soc": 1, "system": 1, "cluster": 1, "family": 1}
"""How many of a device a model is split over in a usual setup, by class: accelerator cards
and chips up to one 8-device server (tensor parallelism over NVLink, Infinity Fabric, ICI or
NeuronLink; a layer split over PCIe for cards without a link); a laptop, mini-PC, board,
workstation or rack is one machine, and sixteen of them for one model is no usual setup."""


UNIFIED_SHARE = 0.75
"""A machine of the reader's own with unified memory: the share of it the GPU may use by
default, as the listed Macs take it where none is read (three quarters, the smallest share
read on large Macs; see the unified-memory entry). Raising the wired limit gives it more."""


def custom_device(memory_gb: float, bandwidth_gbs: float, tflops: float | None = None, tdp_w: float | None = None,
                  unified: bool = False) -> DeviceSpec:
    """A device the atlas does not hold, from the reader's figures (dense 16-bit TFLOPS).
    `unified`: its memory is shared with the CPU (Apple silicon, Ryzen AI Max, DGX Spark), so
    the GPU gets the default share (UNIFIED_SHARE) and it is one machine."""
    for name, value, top in (("memory", memory_gb, 100_000), ("bandwidth", bandwidth_gbs, 1_000_000),
                             ("tflops", tflops, 1_000_000), ("watts", tdp_w, 1_000_000)):
        if value is not None and not (math.isfinite(value) and 0 < value <= top):
            raise CalcError(f"--{name} = {value:g} must be a number above 0 and at most {top:,}")
    return DeviceSpec(id="custom", title="Your device", memory_gb=memory_gb, bandwidth_gbs=bandwidth_gbs,
                      tflops={"fp16": tflops} if tflops else {}, tdp_w=tdp_w,
                      gpu_default_gb=round(memory_gb * UNIFIED_SHARE, 3) if unified else None,
                      max_devices=1 if unified else 8)


def pick(atlas: Atlas, query: str, kind: str) -> Entry:
    """An entry of `kind` by the names people type: its id, title or an alias (case,
    spaces, hyphens and underscores ignored), or the words of one of them when they point at
    one entry only (by_words). Otherwise a CalcError naming the closest entries."""
    q = norm(query)
    pool = atlas.of_kind(kind)
    named = [(e, norm(n)) for e in pool for n in (e.id, e.title, *e.aliases)]
    for e, n in named:
        if n == q:
            return e
    fits = by_words(pool, query)
    if len(fits) == 1:
        return fits[0]
    if fits:
        raise CalcError(f"'{query}' could be any of {', '.join(repr(e.title) for e in fits[:6])}; name one of them")
    by_name = {n: e for e, n in named}
    close = difflib.get_close_matches(q, list(by_name), n=6, cutoff=0.5)
    titles = list(dict.fromkeys(by_name[c].title for c in close))[:3]
    hint = f" — did you mean {', '.join(repr(t) for t in titles)}?" if titles else f"; known: {', '.join(e.id for e in pool) or 'none yet'}"
    raise CalcError(f"unknown {kind} '{query}'{hint}")


def pick_device(atlas: Atlas, query: str, memory_gb: float | None = None) -> DeviceSpec:
    """A device by the names people type, in one of the memory sizes it is sold with: a
    size at the end of the name ('M2 Max 64GB', 'apple-m2-max@64') or `memory_gb`.
    A size the device is not sold in is a CalcError naming the sizes it is."""
    import re

    try:
        e = pick(atlas, query, "hardware")
    except CalcError:
        # a size only where it is written as one: 'M2 Max 64GB', 'M2 Max, 64 GB', 'apple-m2-max@64'
        sized = re.fullmatch(r"(.+?)(?:\s*@\s*(\d+(?:\.\d+)?)|,?\s+(\d+(?:\.\d+)?)\s*gb)", query.strip(), re.IGNORECASE)
        if not sized or memory_gb is not None:
            raise
        try:
            e = pick(atlas, sized.group(1), "hardware")
        except CalcError:
            raise CalcError(f"unknown hardware '{query}'") from None
        memory_gb = float(sized.group(2) or sized.group(3))
    if memory_gb is None:
        return device_spec(e)
    sizes = configurations(e)
    for d in sizes:
        if d.memory_gb == memory_gb:
            return d if len(sizes) > 1 else device_spec(e)
    known = ", ".join(f"{d.memory_gb:g}" for d in sizes if d.memory_gb)
    raise CalcError(f"{e.title} is not sold with {memory_gb:g} GB; its sizes: {known} GB")

