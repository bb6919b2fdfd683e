"""The shape of a model entry, read from its YAML, with where each figure came from.

No PyTorch here: the test suite imports this module to check what it reads from the real
entries. A figure the entry lacks is never guessed. It must come from a command-line option,
and the record then says so ("option --ffn-size"). The only figures taken from free text are
the expert counts in `specs.architecture.note` of MoE entries ("256 routed experts of width
1536 ..., 8 per token"), parsed by fixed patterns and recorded as parsed from that note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "glossary" / "models"
HARDWARE = REPO / "glossary" / "hardware"

SUPPORTED_ATTENTION = ("mha", "gqa", "mqa")

# Figures a model needs and the option that supplies each when its entry lacks it.
OPTION_FOR = {
    "layers": "--layers",
    "hidden_size": "--hidden-size",
    "attention_heads": "--attention-heads",
    "kv_heads": "--kv-heads",
    "head_dim": "--head-dim",
    "ffn_size": "--ffn-size",
    "vocab_size": "--vocab-size",
    "experts": "--experts",
    "experts_active": "--experts-active",
    "expert_ffn_size": "--expert-ffn-size",
    "shared_experts": "--shared-experts",
}


class ShapeError(ValueError):
    """The entry cannot be built as asked: missing figures or an unsupported design."""


@dataclass
class Shape:
    model_id: str
    title: str
    entry_path: str
    attention: str
    architecture: str  # dense | moe
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    vocab_size: int
    ffn_size: int | None = None  # dense FFN width (gated: three matrices)
    experts: int | None = None
    experts_active: int | None = None
    expert_ffn_size: int | None = None
    shared_experts: int = 0
    context_length: int | None = None
    params_total_b: float | None = None
    params_active_b: float | None = None
    ffn_kind: str = "swiglu"
    sliding_window: int | None = None  # local layers attend to (and read) at most this many positions
    sliding_layers: int = 0  # how many of the layers are local
    provenance: dict[str, str] = field(default_factory=dict)
    missing_from_entry: list[str] = field(default_factory=list)
    not_modelled: list[str] = field(default_factory=list)

    @property
    def is_moe(self) -> bool:
        return self.architecture == "moe"

    @property
    def group(self) -> int:
        return self.attention_heads // self.kv_heads

    # Parameter counts of the shape as built (gated FFN: three matrices per FFN or expert).
    def attn_params(self) -> int:
        h, d = self.hidden_size, self.head_dim
        return h * (self.attention_heads + 2 * self.kv_heads) * d + self.attention_heads * d * h

    def expert_params(self) -> int:
        return 3 * self.hidden_size * self.expert_ffn_size

    def layer_params(self) -> int:
        """Every parameter of one layer: attention, two norms, FFN or router + all experts."""
        p = self.attn_params() + 2 * self.hidden_size
        if self.is_moe:
            p += self.experts * self.hidden_size  # router
            p += (self.experts + self.shared_experts) * self.expert_params()
        else:
            p += 3 * self.hidden_size * self.ffn_size
        return p

    def layer_params_active(self) -> int:
        """Parameters one token reads in one layer (MoE: router, active and shared experts)."""
        if not self.is_moe:
            return self.layer_params()
        return (self.attn_params() + 2 * self.hidden_size + self.experts * self.hidden_size
                + (self.experts_active + self.shared_experts) * self.expert_params())

    def nonlayer_params(self) -> int:
        """Embedding table, final norm and output head (untied)."""
        return 2 * self.vocab_size * self.hidden_size + self.hidden_size

    def total_params(self) -> int:
        return self.layers * self.layer_params() + self.nonlayer_params()

    def kv_bytes_per_token_per_layer(self, bytes_per_value: int = 2) -> int:
        return 2 * self.kv_heads * self.head_dim * bytes_per_value

    def as_record(self) -> dict:
        figures = {k: getattr(self, k) for k in (
            "attention", "architecture", "layers", "hidden_size", "attention_heads", "kv_heads",
            "head_dim", "ffn_size", "vocab_size", "experts", "experts_active", "expert_ffn_size",
            "shared_experts", "context_length", "ffn_kind", "sliding_window", "sliding_layers")}
        figures = {k: v for k, v in figures.items() if v is not None and not (k == "sliding_layers" and not self.sliding_window)}
        total = self.total_params()
        out = {
            **figures,
            "provenance": dict(self.provenance),
            "missing_from_entry": list(self.missing_from_entry),
            "not_modelled": list(self.not_modelled),
            "params_total_from_shape_b": float(f"{total / 1e9:.6g}"),
        }
        if self.params_total_b:
            out["params_total_entry_b"] = self.params_total_b
            out["params_total_ratio"] = round(total / 1e9 / self.params_total_b, 4)
        if self.is_moe:
            active = self.layers * self.layer_params_active() + self.nonlayer_params()
            out["params_active_from_shape_b"] = float(f"{active / 1e9:.6g}")
            if self.params_active_b:
                out["params_active_entry_b"] = self.params_active_b
        return out


def _fact(specs: dict, key: str):
    fact = specs.get(key)
    if isinstance(fact, dict):
        return fact.get("value"), fact.get("source"), fact.get("note") or ""
    return None, None, ""


_MOE_PATTERNS = {
    "experts": re.compile(r"(\d[\d,]*) routed experts"),
    "expert_ffn_size": re.compile(r"routed experts of width (\d[\d,]*)"),
    "experts_active": re.compile(r"(\d+) (?:routed experts )?per token"),
    "shared_experts": re.compile(r"(\d+) shared experts?"),
}


def parse_moe_note(note: str) -> dict[str, tuple[int, str]]:
    """Expert figures from an architecture note: {figure: (value, matched text)}."""
    found: dict[str, tuple[int, str]] = {}
    for key, pat in _MOE_PATTERNS.items():
        m = pat.search(note)
        if m:
            found[key] = (int(m.group(1).replace(",", "")), m.group(0))
    if "shared_experts" not in found and re.search(r"\bno shared expert", note):
        found["shared_experts"] = (0, "no shared expert")
    return found


def entry_path(model: str) -> Path:
    p = Path(model)
    if p.suffix in (".yaml", ".yml") and p.exists():
        return p
    return MODELS / f"{model}.yaml"


def load_shape(model: str, options: dict | None = None) -> Shape:
    """Read `glossary/models/<model>.yaml` (or a YAML path) and fill gaps from `options`.

    `options` maps figure names (OPTION_FOR's keys, plus ffn_kind) to values given on the
    command line; None means not given. An option given for a figure the entry has
    overrides it and is recorded as such. Raises ShapeError naming every missing figure.
    """
    options = {k: v for k, v in (options or {}).items() if v is not None}
    path = entry_path(model)
    if not path.exists():
        raise ShapeError(f"no model entry {path}")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    specs = data.get("specs") or {}
    model_id = data.get("id") or path.stem
    prov: dict[str, str] = {}
    missing: list[str] = []
    values: dict = {}

    def take(key: str, spec_key: str | None = None) -> None:
        spec_key = spec_key or key
        value, source, _ = _fact(specs, spec_key)
        if key in options:
            values[key] = options[key]
            prov[key] = f"option {OPTION_FOR[key]}" + (
                f" (overrides entry value {value})" if value is not None else "")
            if value is None:
                missing.append(key)
        elif value is not None:
            values[key] = value
            prov[key] = f"entry specs.{spec_key} (source: {source})"
        else:
            missing.append(key)

    attention, att_src, _ = _fact(specs, "attention")
    architecture, arch_src, arch_note = _fact(specs, "architecture")
    architecture = architecture or "dense"
    prov["attention"] = f"entry specs.attention (source: {att_src})"
    prov["architecture"] = (f"entry specs.architecture (source: {arch_src})" if arch_src
                            else "entry has no specs.architecture: dense")
    if attention not in SUPPORTED_ATTENTION:
        raise ShapeError(
            f"{model_id}: attention '{attention}' is not implemented by this suite "
            f"(supported: {', '.join(SUPPORTED_ATTENTION)}); a shape of it would not be the model's")

    for key in ("layers", "hidden_size", "attention_heads", "head_dim"):
        take(key)
    # kv_heads follows from the attention variant for MHA and MQA; GQA needs the figure.
    kv, kv_src, _ = _fact(specs, "kv_heads")
    if "kv_heads" in options or kv is not None or attention == "gqa":
        take("kv_heads")
    elif attention == "mha" and "attention_heads" in values:
        values["kv_heads"] = values["attention_heads"]
        prov["kv_heads"] = "derived: attention mha, so kv_heads = attention_heads"
    elif attention == "mqa":
        values["kv_heads"] = 1
        prov["kv_heads"] = "derived: attention mqa, so kv_heads = 1"
    take("vocab_size")  # no entry carries it today: an option

    not_modelled: list[str] = []
    # Entries written since November 2026 carry the expert figures as fields of their own.
    fields = {"experts": "experts_total", "experts_active": "experts_active", "expert_ffn_size": "moe_intermediate_size",
              "shared_experts": "shared_experts"}
    if architecture == "moe":
        parsed = parse_moe_note(arch_note)
        for key, spec_key in fields.items():
            value, source, _ = _fact(specs, spec_key)
            if value is not None and key not in parsed:
                parsed[key] = (int(value), f"specs.{spec_key} (source: {source})")
        for key in ("experts", "experts_active", "expert_ffn_size", "shared_experts"):
            if key in options:
                values[key] = options[key]
                prov[key] = f"option {OPTION_FOR[key]}"
                if key not in parsed:
                    missing.append(key)
            elif key in parsed:
                values[key], text = parsed[key]
                prov[key] = (f"entry {text}" if text.startswith("specs.") else
                             f"entry specs.architecture.note (source: {arch_src}), parsed from '{text}'")
            else:
                missing.append(key)
        if values.get("shared_experts"):
            not_modelled.append("shared experts are built with the routed experts' width")
        _, _, layers_note = _fact(specs, "layers")
        if re.search(r"dense", layers_note, re.I) and "dense_layers_ok" not in options:
            raise ShapeError(
                f"{model_id}: specs.layers.note says some layers are dense ('{layers_note}'); "
                "mixed dense/MoE stacks are not implemented")
    else:
        take("ffn_size", "ffn_size" if "ffn_size" in specs else "intermediate_size")
    window, w_src, _ = _fact(specs, "sliding_window")
    local, l_src, _ = _fact(specs, "sliding_layers")
    if window and local:
        values["sliding_window"], values["sliding_layers"] = int(window), int(local)
        prov["sliding_window"] = f"entry specs.sliding_window (source: {w_src})"
        prov["sliding_layers"] = (f"entry specs.sliding_layers (source: {l_src}); the global layers are spread "
                                  "evenly among the local ones")

    if "ffn_kind" in options:
        values["ffn_kind"] = options["ffn_kind"]
        prov["ffn_kind"] = "option --ffn-kind"
    else:
        values["ffn_kind"] = "swiglu"
        prov["ffn_kind"] = ("default: gated FFN (three matrices); compare params_total_from_shape_b "
                            "with the entry's params_total_b")
    if values["ffn_kind"] != "swiglu":
        raise ShapeError("only --ffn-kind swiglu is implemented")

    needed = ["layers", "hidden_size", "attention_heads", "kv_heads", "head_dim", "vocab_size"]
    needed += (["experts", "experts_active", "expert_ffn_size"] if architecture == "moe" else ["ffn_size"])
    absent = [k for k in needed if k not in values]
    if absent:
        raise ShapeError(
            f"{model_id}: the entry lacks {', '.join(absent)}; give "
            + ", ".join(f"{OPTION_FOR[k]} N" for k in absent)
            + " (from the entry's sources) and the record will say the figure came from the option")

    ctx, _, _ = _fact(specs, "context_length")
    total, _, _ = _fact(specs, "params_total_b")
    active, _, _ = _fact(specs, "params_active_b")
    att_note = _fact(specs, "attention")[2]
    hd_note = _fact(specs, "head_dim")[2]
    if re.search(r"QK normali[sz]ation|qk[- ]norm", att_note, re.I):
        not_modelled.append("per-layer QK normalisation (entry's attention note)")
    if re.search(r"rotary .*covers|partial rotary", hd_note, re.I):
        not_modelled.append("partial rotary: rotary is applied to the whole head")
    if values["attention_heads"] % values["kv_heads"]:
        raise ShapeError(f"{model_id}: attention_heads {values['attention_heads']} is not a multiple of kv_heads {values['kv_heads']}")

    ints = {k: int(v) for k, v in values.items() if k != "ffn_kind"}
    for k, v in ints.items():
        if v < 0 or (v == 0 and k != "shared_experts"):
            raise ShapeError(f"{model_id}: {k} must be positive, got {v}")
    return Shape(
        model_id=model_id, title=data.get("title", model_id),
        entry_path=str(path.resolve().relative_to(REPO)) if path.resolve().is_relative_to(REPO) else str(path),
        attention=attention, architecture=architecture, ffn_kind=values["ffn_kind"],
        context_length=int(ctx) if ctx else None,
        params_total_b=float(total) if total else None,
        params_active_b=float(active) if active else None,
        provenance=prov, missing_from_entry=sorted(set(missing)), not_modelled=not_modelled,
        **ints,
    )


# Device names as torch.cuda.get_device_name prints them, to hardware entries.
_HARDWARE_BY_NAME = [
    (re.compile(r"H100.*(PCIe)", re.I), "nvidia-h100-pcie"),
    (re.compile(r"H100.*NVL", re.I), "nvidia-h100-nvl"),
    (re.compile(r"H100.*(SXM|HBM3)", re.I), "nvidia-h100-sxm"),
    (re.compile(r"H200", re.I), "nvidia-h200"),
    (re.compile(r"A100.*SXM", re.I), "nvidia-a100-sxm"),
    (re.compile(r"B200", re.I), "nvidia-b200"),
    (re.compile(r"RTX 4090", re.I), "nvidia-rtx-4090"),
    (re.compile(r"RTX 5090", re.I), "nvidia-rtx-5090"),
]


def hardware_for_device(device_name: str) -> str | None:
    for pat, hw in _HARDWARE_BY_NAME:
        if pat.search(device_name):
            return hw
    return None


def hardware_datasheet(hw_id: str) -> dict:
    """Datasheet figures of a hardware entry: bandwidth_gbs, bf16_tflops, fp8_tflops."""
    path = HARDWARE / f"{hw_id}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    specs = data.get("specs") or {}
    out = {"hardware_id": hw_id}
    for key in ("bandwidth_gbs", "bf16_tflops", "fp8_tflops", "memory_gb"):
        value, source, _ = _fact(specs, key)
        if value is not None:
            out[key] = value
            out[f"{key}_source"] = source
    return out
