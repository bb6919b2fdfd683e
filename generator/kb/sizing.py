"""What an entry's figures must hold for the calculator to size it (issue 44): a model's
attention design with the figures its memory needs, a device's memory sizes in order, a
claim of what fits naming real entries, an engine release that is out. Part of validate
(stage 2); kept apart so validate.py stays one screen of checks a kind."""

from __future__ import annotations

from typing import Any

from generator.kb.findings import Finding, did_you_mean
from generator.kb.load import Document


def _list(d: dict, key: str) -> list:
    """The list at `key`, or [] when it is missing or not a list (the schema reports that)."""
    value = d.get(key)
    return value if isinstance(value, list) else []


def _memory(d: dict) -> Any:
    """specs.memory_gb's value, or None where the entry is malformed (the schema says so)."""
    fact = d.get("specs", {}).get("memory_gb") if isinstance(d.get("specs"), dict) else None
    return fact.get("value") if isinstance(fact, dict) else None


def check_memory_sizes(doc: Document, index: Any) -> list[Finding]:
    """A device's memory sizes run smallest first, each once, up to its memory_gb; what its
    body says fits names a model of the atlas, in one of those sizes (issue 44)."""
    d = doc.data
    out: list[Finding] = []
    sizes = [c.get("memory_gb") for c in _list(d, "configurations") if isinstance(c, dict)]
    top = _memory(d)
    if sizes and all(isinstance(x, (int, float)) for x in sizes):
        line, col = doc.loc("configurations")
        if sizes != sorted(set(sizes)):
            out.append(Finding(doc.path, line, col, f"configurations {sizes}: give each memory size once, smallest first"))
        elif top is not None and sizes[-1] != top:
            out.append(Finding(doc.path, line, col, f"the largest configuration is {sizes[-1]:g} GB but specs.memory_gb is "
                                                    f"{top:g}: the entry's figures are its largest size"))
    other = "model" if doc.kind == "hardware" else "device"  # a device's claims name models, a model's name devices
    kind = "model" if doc.kind == "hardware" else "hardware"
    for i, claim in enumerate(_list(d, "fits")):
        if not isinstance(claim, dict):
            continue
        name = claim.get(other)
        target = index.entries.get(name) if isinstance(name, str) else None
        if name is not None and (target is None or target.kind != kind):
            line, col = doc.loc("fits", i, other)
            out.append(Finding(doc.path, line, col, f"fits: '{name}' is not a {other} of the atlas"
                                                    f"{did_you_mean(str(name), [k for k, v in index.entries.items() if v.kind == kind])}"))
            continue
        device = doc.data if doc.kind == "hardware" else target.data
        held = [c.get("memory_gb") for c in _list(device, "configurations") if isinstance(c, dict)]
        most = _memory(device)
        mem = claim.get("memory_gb")
        if mem is not None and mem not in held and mem != most:
            line, col = doc.loc("fits", i, "memory_gb")
            out.append(Finding(doc.path, line, col, f"fits: {mem:g} GB is not one of its sizes "
                                                    f"({', '.join(f'{x:g}' for x in held or [most] if x is not None)} GB)"))
    return out


DESIGN_NEEDS = {
    "hybrid-linear": (("full_attention_layers", "linear_heads", "linear_key_dim", "linear_value_dim"),
                      "a hybrid's recurrent state needs how many layers keep full attention and the linear layers' heads and widths"),
    "mla": (("kv_lora_rank", "rope_head_dim"), "latent attention caches the latent (kv_lora_rank) and the RoPE key (rope_head_dim)"),
}
"""The figures each attention design's memory needs (calc.ModelSpec.kv_bytes): a model that
declares the design without them is refused, so the calculator never drops a state quietly."""


def check_model_figures(doc: Document) -> list[Finding]:
    """A model declares what its memory needs: the figures of its attention design, a window
    for its windowed layers, no more KV heads than attention heads (issue 44)."""
    specs = doc.data.get("specs")
    if not isinstance(specs, dict):
        return []
    val = lambda k: specs[k].get("value") if isinstance(specs.get(k), dict) else None  # noqa: E731
    out: list[Finding] = []
    design = val("attention")
    if isinstance(design, str) and design in DESIGN_NEEDS and not val("kv_bytes_per_token"):
        need, why = DESIGN_NEEDS[design]
        lacking = [k for k in need if not val(k)]
        if lacking:
            line, col = doc.loc("specs", "attention")
            out.append(Finding(doc.path, line, col, f"attention '{design}' without {', '.join(lacking)}: {why}; add them from the config"))
    if val("sliding_layers") and not val("sliding_window"):
        line, col = doc.loc("specs", "sliding_layers")
        out.append(Finding(doc.path, line, col, "windowed layers without sliding_window: give the window (config.json sliding_window or attention_chunk_size)"))
    if val("architecture") == "moe" and not val("params_active_b"):
        line, col = doc.loc("specs", "architecture")
        out.append(Finding(doc.path, line, col, "a mixture of experts without params_active_b: a token reads only its "
                                                "experts, and without the active count every parameter would be counted; add it from the model card"))
    heads, kv = val("attention_heads"), val("kv_heads")
    if isinstance(heads, (int, float)) and isinstance(kv, (int, float)) and kv > heads:
        line, col = doc.loc("specs", "kv_heads")
        out.append(Finding(doc.path, line, col, f"kv_heads is {kv:g}, more than the {heads:g} attention heads; each KV head serves one or more query heads"))
    return out


def check_release_date(doc: Document) -> list[Finding]:
    """An engine's facts describe a release that is out: its as_of date is not in the future."""
    import datetime as dt

    date = (doc.data.get("as_of") or {}).get("date") if isinstance(doc.data.get("as_of"), dict) else None
    if isinstance(date, str):
        try:
            when = dt.date.fromisoformat(date)
        except ValueError:
            return []
        if when > dt.date.today():
            line, col = doc.loc("as_of", "date")
            return [Finding(doc.path, line, col, f"as_of date {date} is after today: an engine's facts describe a release "
                                                 "a reader can install now; give that release's date")]
    return []
