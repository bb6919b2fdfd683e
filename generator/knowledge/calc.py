"""Memory and speed arithmetic for a model on a device, from the entries' sourced figures.

    memory  = weights + KV cache + overhead
    weights = parameters x bits per weight / 8          (bits include scales and zero points)
    KV      = bytes per token x tokens x sequences       (per token depends on the attention variant)
    decode ceiling per sequence = bandwidth / (bytes of active weights + that sequence's KV cache)
    prefill ceiling             = dense tensor FLOPS / (2 x active parameters) tokens per second

These are physical upper bounds, not predictions: real engines reach a fraction of them,
and speculative decoding can exceed the decode bound because it verifies several tokens
per weight read. Units: decimal GB (1e9 bytes), GB/s and TFLOPS as vendors quote them.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Iterator

from generator.kb.model import Atlas, Entry
from generator.kb.names import by_words, norm

OVERHEAD_FRACTION = 0.10
"""Activations, CUDA context, allocator slack: a tenth of weights + cache by default."""

LIMITS = {"tokens": (1, 10_000_000), "sequences": (1, 100_000), "bits": (1.0, 32.0), "kv_bits": (2.0, 32.0),
          "overhead": (0.0, 2.0)}


class CalcError(ValueError):
    """Input the calculator cannot use, with what would be right."""


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
        """A hybrid model's recurrent state per sequence: every linear-attention layer keeps a
        heads x key width x value width matrix, whatever the context (counted at the cache's
        precision; engines may keep it in 32 bits)."""
        if self.attention != "hybrid-linear" or not (self.full_attention_layers and self.linear_heads
                                                     and self.linear_key_dim and self.linear_value_dim):
            return 0.0
        return (self.layers - self.full_attention_layers) * self.linear_heads * self.linear_key_dim * self.linear_value_dim * kv_bits / 8

    def kv_bytes(self, tokens: int, kv_bits: float = 16) -> float:
        """One sequence's cache at `tokens` of context: layers that cache every token grow
        with it, a local layer holds at most its window, a recurrent layer a fixed state."""
        grow = self.kv_bytes_per_token(kv_bits) * tokens
        if self.sliding_window and self.sliding_layers and self.kv_heads and self.head_dim and self.attention != "mla":
            # (with a published per-token figure, that figure is the global layers' and kv_heads
            # and head_dim describe the local ones: Gemma 4)
            grow += 2 * self.sliding_layers * self.kv_heads * self.head_dim * kv_bits / 8 * min(tokens, self.sliding_window)
        return grow + self.state_bytes(kv_bits)

    def weights_read(self, batch: int) -> float:
        """Parameters (billions) one decode step of `batch` sequences reads. Dense: all of
        them. MoE: what every token uses plus the experts the batch touches; with routing
        spread evenly, n tokens touch E x (1 - (1 - k/E)^n) of a layer's E experts. Without
        the expert counts only one sequence can be answered (None above one)."""
        if self.active_b == self.params_b or batch == 1:
            return self.active_b
        if not (self.experts_total and self.experts_active and self.experts_total > self.experts_active):
            return None
        e, k = self.experts_total, self.experts_active
        per_expert = (self.params_b - self.active_b) / (e - k)
        always = self.active_b - k * per_expert
        touched = e * (1 - (1 - k / e) ** batch)
        return min(self.params_b, always + touched * per_expert)


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
    gpu_default_gb: float | None = None  # unified memory: what the GPU may use by default (macOS)
    max_devices: int = 8  # how many a model may be split over in a usual setup (SPLIT_LIMIT)
    platform: str | None = None  # what its software stack is (VENDOR_PLATFORM): which formats it runs

    @property
    def usable_gb(self) -> float | None:
        """What weights and cache may fill: the GPU's default share where the entry gives one."""
        return self.gpu_default_gb or self.memory_gb


def model_spec(e: Entry) -> ModelSpec:
    s = e.get("specs")
    v = lambda k: s[k]["value"] if k in s else None  # noqa: E731
    return ModelSpec(id=e.id, title=e.title, params_b=v("params_total_b"), active_b=v("params_active_b") or v("params_total_b"),
                     layers=int(v("layers")), kv_heads=v("kv_heads"), head_dim=v("head_dim"), attention=v("attention"),
                     kv_lora_rank=v("kv_lora_rank"), rope_head_dim=v("rope_head_dim"),
                     full_attention_layers=v("full_attention_layers"), context_length=v("context_length"),
                     kv_bytes_16=v("kv_bytes_per_token"), sliding_window=v("sliding_window"), sliding_layers=v("sliding_layers"),
                     linear_heads=v("linear_heads"), linear_key_dim=v("linear_key_dim"), linear_value_dim=v("linear_value_dim"),
                     experts_total=v("experts_total"), experts_active=v("experts_active"))


def device_spec(e: Entry) -> DeviceSpec:
    s = e.get("specs") or {}
    v = lambda k: s[k]["value"] if k in s else None  # noqa: E731
    tflops = {p: v(f"{p}_tflops") for p in ("fp4", "fp8", "fp16", "bf16") if v(f"{p}_tflops")}
    price = s.get("cloud_hourly_usd") or {}
    note = "; ".join(x for x in ((price.get("note") or "").rstrip(". ") or None, f"read {price['checked']}" if price.get("checked") else None) if x) or None
    return DeviceSpec(id=e.id, title=e.title, memory_gb=v("memory_gb"), bandwidth_gbs=v("bandwidth_gbs"), tflops=tflops,
                      tdp_w=v("tdp_w"), hourly_usd=v("cloud_hourly_usd"), hourly_note=note,
                      gpu_default_gb=v("gpu_memory_default_gb"), max_devices=SPLIT_LIMIT.get(e.get("class"), 8),
                      platform=VENDOR_PLATFORM.get(e.get("vendor") or ""))


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


def custom_device(memory_gb: float, bandwidth_gbs: float, tflops: float | None = None, tdp_w: float | None = None) -> DeviceSpec:
    """A device the atlas does not hold, from the reader's figures (dense 16-bit TFLOPS)."""
    for name, value, top in (("memory", memory_gb, 100_000), ("bandwidth", bandwidth_gbs, 1_000_000),
                             ("tflops", tflops, 1_000_000), ("watts", tdp_w, 1_000_000)):
        if value is not None and not (math.isfinite(value) and 0 < value <= top):
            raise CalcError(f"--{name} = {value:g} must be a number above 0 and at most {top:,}")
    return DeviceSpec(id="custom", title="Your device", memory_gb=memory_gb, bandwidth_gbs=bandwidth_gbs,
                      tflops={"fp16": tflops} if tflops else {}, tdp_w=tdp_w)


def _format_names(atlas: Atlas) -> Iterator[tuple[str, Entry, float, str, str]]:
    """(name, term, bits, label, source) for every name of a weight format: first each
    format term's own names, then the variants terms list; a format that is a term of its
    own is that term wherever another lists it as a variant (MLX's mode "nvfp4" is NVFP4)."""
    terms = atlas.of_kind("term")
    for e in terms:
        if e.get("bits_per_weight"):
            f = e.get("bits_per_weight")
            for name in (e.id, e.title, *e.aliases):
                yield name.casefold(), e, float(f["value"]), e.title, f["source"]
    for e in terms:
        for var in e.get("variants") or ():
            if var.get("scope", "model") in ("model", "example"):  # not a level for one part, such as EXL2's output head
                yield var["name"].casefold(), e, float(var["bits_per_weight"]), var["name"], var["source"]


def formats(atlas: Atlas) -> dict[str, tuple[float, str, str]]:
    """Every weight format with known bits per weight: name (lowercase) -> (bits, label, source)."""
    out: dict[str, tuple[float, str, str]] = {}
    for name, _e, bits, label, source in _format_names(atlas):
        out.setdefault(name, (bits, label, source))
    return out


def format_platforms(atlas: Atlas) -> dict[str, tuple[str, ...]]:
    """The platforms each weight format runs on, from the term `formats` takes its bits from:
    name (lowercase) -> the platforms its `runs_on` names (EXL3: cuda), or () for a format
    that runs anywhere."""
    out: dict[str, tuple[str, ...]] = {}
    for name, e, *_ in _format_names(atlas):
        out.setdefault(name, tuple((e.get("runs_on") or {}).get("value") or ()))
    return out


def runs(d: DeviceSpec, platforms: tuple[str, ...] | None) -> bool:
    """Whether a device runs a format limited to `platforms` (None or empty: every device;
    a device of the reader's own, whose platform is unknown, is taken at their word)."""
    return not platforms or d.platform is None or d.platform in platforms


def _check(name: str, value: float) -> float:
    lo, hi = LIMITS[name]
    if value is None or value != value:  # NaN
        raise CalcError(f"{name} is missing; give a number between {lo:g} and {hi:g}")
    if value <= 0:
        raise CalcError(f"{name} must be greater than zero, got {value:g}")
    if not lo <= value <= hi:
        raise CalcError(f"{name} = {value:g} is outside the range this calculator accepts ({lo:g} to {hi:g})")
    return value


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


def bits_for(atlas: Atlas, fmt: str | None, bits: float | None) -> tuple[float, str]:
    if bits is not None:
        return _check("bits", bits), f"{bits:g} bits per weight"
    table = formats(atlas)
    key = (fmt or "fp16").casefold()
    if key not in table:
        close = difflib.get_close_matches(key, list(table), n=3, cutoff=0.5)
        hint = f" — did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise CalcError(f"unknown weight format '{fmt}'{hint}; known: {', '.join(sorted(table)) or 'none'}; or give --bits")
    b, label, _ = table[key]
    return b, label


@dataclass(frozen=True)
class Estimate:
    model: str
    device: str
    bits: float
    weights_gb: float
    kv_gb: float
    overhead_gb: float
    total_gb: float
    memory_gb: float | None
    fits: bool | None
    decode_tps: float | None  # per sequence at `sequences` at once, upper bound; None where it cannot run on one device
    prefill_tps: float | None  # tokens per second, upper bound
    devices_needed: int | None = None  # where it does not fit one device: how many it would take to hold it
    split_decode_tps: float | None = None  # the ceiling on that many devices, before any communication cost
    can_split: bool | None = None  # whether that many is a usual setup (DeviceSpec.max_devices)
    offload_gb: float | None = None  # or: what would have to live in system memory instead
    offload_decode_tps: float | None = None  # ... and the ceiling when those bytes are read from there each token
    missing: tuple[str, ...] = ()  # figures the device entry lacks, in words
    prefill_precision: str | None = None  # the tensor rate behind prefill_tps: fp16/bf16, else the only one the entry has
    sequences: int = 1
    decode_total_tps: float | None = None  # all sequences together: decode_tps x sequences
    decode_bound: str | None = None  # what limits decode: "memory bandwidth" or "compute"
    kv_per_sequence_gb: float | None = None  # one sequence's cache at this context (windows and fixed state included)

    def as_dict(self) -> dict:
        return {k: (round(v, 3) if isinstance(v, float) else list(v) if isinstance(v, tuple) else v)
                for k, v in self.__dict__.items()}


HOST_BANDWIDTH_GBS = 76.8
"""System memory that offloaded weights are read from: two channels of DDR5-4800, 38.4 GB/s
each by JEDEC's figures (glossary/terms/dram.yaml cites JESD79-5), a common desktop."""


def estimate(m: ModelSpec, d: DeviceSpec | None, bits: float, tokens: int, sequences: int = 1,
             kv_bits: float = 16, overhead: float = OVERHEAD_FRACTION, precision: str | None = None,
             host_bandwidth_gbs: float = HOST_BANDWIDTH_GBS) -> Estimate:
    _check("bits", bits)
    _check("tokens", tokens)
    _check("sequences", sequences)
    _check("kv_bits", kv_bits)
    if overhead < 0 or overhead > LIMITS["overhead"][1]:
        raise CalcError(f"overhead = {overhead:g} must be between 0 and {LIMITS['overhead'][1]:g} (a fraction of weights + cache)")
    if m.context_length and tokens > m.context_length:
        raise CalcError(f"{tokens:,} tokens is more than {m.title}'s context length of {m.context_length:,}")
    weights = m.params_b * 1e9 * bits / 8
    kv_seq = m.kv_bytes(tokens, kv_bits)
    kv = kv_seq * sequences
    over = overhead * (weights + kv)
    total = weights + kv + over
    fits = decode = prefill = prefill_precision = None
    needed = split = offload = offload_tps = decode_total = bound = can_split = None
    missing: list[str] = []
    if d is not None:
        active = m.active_b * 1e9 * bits / 8
        per_token = active + kv_seq  # bytes one sequence's decode step reads
        if d.memory_gb:
            fits = total <= d.usable_gb * 1e9
        else:
            missing.append("memory size unknown: whether it fits cannot be said")
        if d.tflops:
            prefill, prefill_precision = prefill_rate(m, d, precision)
        else:
            missing.append("tensor throughput (TFLOPS) unknown: no prefill ceiling")
        if d.bandwidth_gbs:
            decode, decode_total, bound = decode_rates(m, d, bits, tokens, kv_bits, sequences, prefill)
        else:
            missing.append("memory bandwidth unknown: no decode ceiling")
        if fits is False:
            # Split N ways (tensor parallelism), each device holds and reads 1/N: N times
            # the bandwidth and the compute, before the all-reduce traffic between them takes its share.
            needed = math.ceil(total / (d.usable_gb * 1e9))
            can_split = needed <= d.max_devices
            # Or keep what fits and read the rest from system memory on every token.
            offload = total - d.usable_gb * 1e9
            if decode is not None:
                if can_split:  # only a split people actually build
                    split = decode * needed
                if d.max_devices > 1:  # a card beside system memory (on one machine's unified memory there is no "beside")
                    offloaded = min(offload, weights) * (m.active_b / m.params_b)  # the active share of offloaded weights
                    offload_tps = 1 / ((per_token - offloaded) / (d.bandwidth_gbs * 1e9) + offloaded / (host_bandwidth_gbs * 1e9))
            decode = decode_total = None  # one device cannot hold it: no single-device figure
    return Estimate(model=m.id, device=d.id if d else "", bits=bits, weights_gb=weights / 1e9, kv_gb=kv / 1e9,
                    overhead_gb=over / 1e9, total_gb=total / 1e9, memory_gb=d.memory_gb if d else None,
                    fits=fits, decode_tps=decode, prefill_tps=prefill, prefill_precision=prefill_precision,
                    devices_needed=needed, split_decode_tps=split, can_split=can_split,
                    offload_gb=offload / 1e9 if offload is not None else None, offload_decode_tps=offload_tps,
                    missing=tuple(missing), sequences=sequences, decode_total_tps=decode_total, decode_bound=bound,
                    kv_per_sequence_gb=kv_seq / 1e9)


def decode_rates(m: ModelSpec, d: DeviceSpec, bits: float, tokens: int, kv_bits: float, batch: int,
                 compute_tps: float | None) -> tuple[float | None, float | None, str | None]:
    """(per sequence, all sequences, the bound) for `batch` sequences decoding together:
    each step reads the weights the batch uses once and every sequence's cache
    (decode_ceiling), and no step can beat the device's tensor rate at 2 FLOP per active
    parameter per token (`compute_tps`, the prefill ceiling). The lower one applies."""
    memory = decode_ceiling(m, d, bits, tokens, kv_bits, batch)
    if memory is None:
        return None, None, None
    if compute_tps is not None and compute_tps < memory:
        return compute_tps / batch, compute_tps, "compute"
    return memory / batch, memory, "memory bandwidth"


def decode_ceiling(m: ModelSpec, d: DeviceSpec, bits: float, tokens: int, kv_bits: float = 16, batch: int = 1) -> float | None:
    """Tokens per second, all sequences together, that a device's bandwidth allows for
    `batch` sequences of `tokens`, whether or not the model fits its memory: one step reads
    the weights the batch uses once (ModelSpec.weights_read: in a mixture of experts a batch
    touches more experts than one token) and every sequence's cache. None for an MoE model
    above one sequence when its entry lacks the expert counts."""
    if not d.bandwidth_gbs:
        return None
    read_b = m.weights_read(batch)
    if read_b is None:
        return None
    per_step = read_b * 1e9 * bits / 8 + m.kv_bytes(tokens, kv_bits) * batch
    return batch * d.bandwidth_gbs * 1e9 / per_step


@dataclass(frozen=True)
class Cost:
    """What a million tokens costs and how many tokens a joule buys at the ceilings of an
    Estimate: floors on cost, as the speeds are ceilings. A model split over N devices pays
    for N and draws N boards' power."""

    devices: int
    hourly_usd: float | None = None  # all the devices together, rent + electricity
    price: str | None = None  # where the rent came from: "yours", or the entry's cloud note
    watts: float | None = None  # the boards' TDP together
    output_usd_per_m: float | None = None  # one sequence at its decode ceiling
    batch_output_usd_per_m: float | None = None  # all sequences together
    input_usd_per_m: float | None = None  # prompt tokens at the prefill ceiling
    tokens_per_joule: float | None = None
    batch_tokens_per_joule: float | None = None
    input_tokens_per_joule: float | None = None

    def as_dict(self) -> dict:
        return {k: round(v, 6) if isinstance(v, float) else v for k, v in self.__dict__.items()}


JOULES_PER_KWH = 3.6e6
PRICE_LIMITS = {"hourly_usd": 10_000.0, "kwh_usd": 100.0}


def cost(e: Estimate, d: DeviceSpec, hourly_usd: float | None = None, kwh_usd: float | None = None,
         single: Estimate | None = None) -> Cost:
    """Dollars per million tokens = dollars per hour / (tokens per second x 3,600) x 10^6,
    with the hour priced at the reader's rent (else the entry's cloud price) plus, given an
    electricity price, the board's TDP for that hour; tokens per joule = tokens per second / watts.
    One stream is the device serving one sequence alone (`single`: the estimate at one
    sequence, needed when `e` is for several); the batch is all of `e`'s sequences together."""
    if single is None:
        if e.sequences != 1:
            raise ValueError("cost of one stream needs the one-sequence estimate (single=...)")
        single = e
    for name, value in (("hourly_usd", hourly_usd), ("kwh_usd", kwh_usd)):
        if value is not None and not (math.isfinite(value) and 0 <= value <= PRICE_LIMITS[name]):
            raise CalcError(f"{name} = {value:g} must be between 0 and {PRICE_LIMITS[name]:,g} US dollars")
    split = e.fits is False
    if split and not e.can_split:  # no usual setup holds it: nothing to price
        return Cost(devices=e.devices_needed or 1)
    n = (e.devices_needed or 1) if split else 1
    one = single.split_decode_tps if single.fits is False else single.decode_tps
    total = (e.split_decode_tps * e.sequences if e.split_decode_tps else None) if split else e.decode_total_tps
    prefill = e.prefill_tps * n if e.prefill_tps else None
    rent = hourly_usd if hourly_usd is not None else d.hourly_usd
    price = "yours" if hourly_usd is not None else (d.hourly_note or "the entry's cloud price") if d.hourly_usd else None
    power = d.tdp_w * kwh_usd * 3600 / JOULES_PER_KWH if kwh_usd is not None and d.tdp_w else None
    hourly = (rent or 0) + (power or 0) if rent is not None or power is not None else None
    hourly = hourly * n if hourly is not None else None
    watts = d.tdp_w * n if d.tdp_w else None

    def per_m(tps):
        return hourly / (tps * 3600) * 1e6 if hourly is not None and tps else None

    def per_j(tps):
        return tps / watts if watts and tps else None

    return Cost(devices=n, hourly_usd=hourly, price=price, watts=watts, output_usd_per_m=per_m(one),
                batch_output_usd_per_m=per_m(total), input_usd_per_m=per_m(prefill), tokens_per_joule=per_j(one),
                batch_tokens_per_joule=per_j(total), input_tokens_per_joule=per_j(prefill))


MEASURED_BITS = 16
"""The GPU suite measures BF16 weights and a BF16 KV cache (bench/gpu/README.md)."""


@dataclass(frozen=True)
class Measured:
    """One decode figure this project measured (bench/gpu/results), beside the ceiling
    computed here for the same model, device, batch and context in 16-bit weights."""

    source: str  # source id of the record
    record: str  # its path in the repository
    model: str
    device: str
    device_name: str
    batch: int
    context: int
    tokens_per_s: float  # over the whole batch, median of the repeats
    min: float
    max: float
    ceiling_tps: float | None  # decode_ceiling: one device's bandwidth, whether or not the model fits it
    ratio: float | None
    layers_built: int
    layers: int
    slice: bool
    kernel: str
    what: str  # what ran, in a phrase

    def as_dict(self) -> dict:
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def _what(rec) -> str:
    if rec.slice:
        return (f"{rec.layers_built} of {rec.layers} layers run, per-layer time scaled to {rec.layers} "
                f"(output head timed alone); BF16, random weights, plain PyTorch")
    return f"all {rec.layers} layers; BF16, random weights, plain PyTorch"


def measured_points(atlas: Atlas, model: str | None = None, device: str | None = None,
                    batches: tuple[int, ...] | None = None) -> list[Measured]:
    """Every measured decode configuration of the records for a model and/or a device (of
    the given batch sizes), each with its computed ceiling and the ratio; by model,
    device, batch, context, then record."""
    out = []
    for rec in atlas.measured(model, device):
        if rec.hardware not in atlas.entries or rec.model not in atlas.entries:
            continue
        m, d = model_spec(atlas.entries[rec.model]), device_spec(atlas.entries[rec.hardware])
        for x in rec.decode:
            if batches is not None and x.batch not in batches:
                continue
            try:
                ceiling = decode_ceiling(m, d, MEASURED_BITS, x.context, MEASURED_BITS, x.batch)
            except CalcError:
                ceiling = None
            out.append(Measured(source=rec.source, record=rec.path, model=rec.model, device=rec.hardware,
                                device_name=rec.device_name, batch=x.batch, context=x.context, tokens_per_s=x.tokens_per_s,
                                min=x.min, max=x.max, ceiling_tps=ceiling, ratio=x.tokens_per_s / ceiling if ceiling else None,
                                layers_built=rec.layers_built, layers=rec.layers, slice=rec.slice, kernel=x.kernel, what=_what(rec)))
    return sorted(out, key=lambda p: (p.model, p.device, p.batch, p.context, p.source))


def prefill_rate(m: ModelSpec, d: DeviceSpec, precision: str | None = None) -> tuple[float | None, str | None]:
    """Prompt tokens per second a device cannot beat, and the tensor rate it comes from:
    dense throughput in `precision`, else the first of 16-bit, FP8, FP4 the entry gives,
    over 2 FLOP per active parameter per token."""
    tflops = d.tflops or {}
    p = precision or next((x for x in ("fp16", "bf16", "fp8", "fp4") if x in tflops), None)
    return (tflops[p] * 1e12 / (2 * m.active_b * 1e9), p) if p in tflops else (None, None)


@dataclass(frozen=True)
class MeasuredPrefill:
    """One prefill this project measured (batch 1, BF16), beside the prefill ceiling."""

    source: str
    model: str
    device: str
    prompt: int
    ttft_s: float
    min_s: float
    max_s: float
    tokens_per_s: float
    ceiling_tps: float | None
    ratio: float | None
    layers_built: int
    layers: int
    slice: bool
    kernel: str


def measured_prefills(atlas: Atlas, model: str | None = None, device: str | None = None) -> list[MeasuredPrefill]:
    """Every measured prefill of the records for a model and/or a device, each with the
    ceiling computed here for the pair and the ratio; by model, device, prompt, record."""
    out = []
    for rec in atlas.measured(model, device):
        if rec.hardware not in atlas.entries or rec.model not in atlas.entries:
            continue
        ceiling, _ = prefill_rate(model_spec(atlas.entries[rec.model]), device_spec(atlas.entries[rec.hardware]))
        for x in rec.prefill:
            out.append(MeasuredPrefill(source=rec.source, model=rec.model, device=rec.hardware, prompt=x.prompt,
                                       ttft_s=x.ttft_s, min_s=x.min_s, max_s=x.max_s, tokens_per_s=x.tokens_per_s,
                                       ceiling_tps=ceiling, ratio=x.tokens_per_s / ceiling if ceiling else None,
                                       layers_built=rec.layers_built, layers=rec.layers, slice=rec.slice, kernel=x.kernel))
    return sorted(out, key=lambda p: (p.model, p.device, p.prompt, p.source))


def nearest_context(contexts, tokens: int) -> int:
    """The measured context closest to `tokens` by ratio (a tie goes to the shorter), the
    rule the calculator's page uses too (docs/assets/atlas-calc.js)."""
    return min(contexts, key=lambda c: (round(abs(math.log(c / tokens)), 9), c))


def _nearest_fastest(points: list, length: str, tokens: int):
    """Of measured points, those whose `length` (context or prompt) is nearest `tokens`
    (nearest_context's rule), and of them the fastest; None if there are none."""
    if not points:
        return None
    c = nearest_context({getattr(p, length) for p in points}, tokens)
    return max((p for p in points if getattr(p, length) == c), key=lambda p: (p.tokens_per_s, p.source))


def prefill_for(atlas: Atlas, model: str, device: str, tokens: int) -> MeasuredPrefill | None:
    """The measured prefill to show beside the prefill ceiling for a prompt of `tokens`:
    the measured prompt length nearest to it, the fastest record."""
    return _nearest_fastest(measured_prefills(atlas, model, device), "prompt", tokens)


def measured_for(atlas: Atlas, model: str, device: str, tokens: int) -> Measured | None:
    """The single-sequence measurement to show beside a ceiling at `tokens`: the measured
    context nearest to it, and of the records at that context the fastest (each is a
    lower bound of what this code reaches on that card)."""
    return _nearest_fastest(measured_points(atlas, model, device, batches=(1,)), "context", tokens)
