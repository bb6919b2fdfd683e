"""Which engines load a model as its developer released it, on the reader's hardware.

A model's released format (its `checkpoint_format`: gpt-oss's MXFP4, DeepSeek-V3's FP8) is
looked up in each engine's weight-format cells, and the reader's platform in its backend
cells. The decision guides use it when they know the reader's model: an engine whose cells
say "no" is not recommended there, one that says "partial" (dequantized on load, a plugin)
is recommended with that caveat. The page's script (docs/assets/atlas-guide.js) reads the
same cells through `page_data` and applies the same rule (`verdict`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from generator.kb.model import Atlas, Entry
from generator.knowledge.launch import FORMAT_CELL, PLATFORM_CELL, format_cell, released_label

RANK = {"yes": 0, "plugin": 1, "partial": 1, "unknown": 2, "no": 3}
"""How well a cell says an engine does it: a combined verdict is the worst of format and
platform, and over several possible platforms (an AMD or Intel card, or a CPU) the best."""


@dataclass(frozen=True)
class Load:
    status: str  # yes, partial, unknown or no
    why: str  # the cells' notes, in words: "MXFP4: dequantized on load"


def _cell(e: Entry, group: str, key: str | None) -> tuple[str, str]:
    c = ((e.get(group) or {}).get(key) or {}) if key else {}
    status = c.get("status") or "unknown"
    return ("partial" if status == "plugin" else status), (c.get("note") or "")


def verdict(fmt: tuple[str, str] | None, platforms: list[tuple[str, str, str]]) -> Load:
    """The worst of the format's cell and the platform's, the best over possible platforms.
    `fmt` is (status, note) or None where the released format is not on record; `platforms`
    is [(name, status, note)], empty where the hardware is not known."""
    parts = []
    if platforms:
        name, status, note = min(platforms, key=lambda p: RANK.get(p[1], 2))
        parts.append((status, f"on {name}" + (f": {note}" if note else "")))
    if fmt is not None:
        parts.append((fmt[0], fmt[1]))
    if not parts:
        return Load("unknown", "")
    status, _ = max(parts, key=lambda p: RANK.get(p[0], 2))
    return Load(status, "; ".join(n for s, n in parts if s != "yes" and n))


def loads(atlas: Atlas, engine: Entry, model: Entry, platforms: Iterable[str] = ()) -> Load:
    """Whether `engine` loads `model`'s released weights on any of `platforms` (calc.specs
    platform names: cuda, rocm, apple, intel, cpu, tpu)."""
    from generator.knowledge.compare import PLATFORMS

    label = released_label(model)
    cell = format_cell(label.upper()) if label else None
    fmt = _cell(engine, "formats", cell) if cell else None
    plats = [(PLATFORMS.get(p, p), *_cell(engine, "backends", PLATFORM_CELL.get(p))) for p in platforms if PLATFORM_CELL.get(p)]
    return verdict(fmt, plats)


def page_data(atlas: Atlas, engines: Iterable[str]) -> dict:
    """What a guide's script needs to apply `verdict` in the page: each model's released
    format cell, and each named engine's format and backend cells."""
    from generator.knowledge.compare import PLATFORMS

    models = {}
    for m in sorted((e for e in atlas.entries.values() if e.kind == "model"), key=lambda e: e.title.casefold()):
        label = released_label(m)
        specs = m.get("specs") or {}
        models[m.id] = {"title": m.title, "format": label.upper() if label else None,
                        "cell": format_cell(label.upper()) if label else None,
                        "params_b": (specs.get("params_total_b") or {}).get("value"), "moe": bool((specs.get("experts_total") or {}).get("value"))}
    cells = {}
    for eid in sorted(set(engines)):
        e = atlas.entries.get(eid)
        if e is None or e.kind != "engine":
            continue
        cells[eid] = {"title": e.title, "formats": {k: list(_cell(e, "formats", k)) for k in (e.get("formats") or {})},
                      "backends": {k: list(_cell(e, "backends", k)) for k in (e.get("backends") or {})}}
    return {"models": models, "engines": cells, "platform_cells": PLATFORM_CELL, "platform_names": PLATFORMS,
            "format_cells": FORMAT_CELL}
