"""Engines side by side, by their support cells (features, hardware backends, weight
formats, API surface): what `atlas compare` prints and what the pair pages lead with.
A cell an engine's entry does not state is "unknown", never read as "no"."""

from __future__ import annotations

from typing import Any

from generator.kb.model import Atlas, Entry

CELL_GROUPS = (("features", "Features"), ("backends", "Hardware backends"), ("formats", "Weight formats"), ("api", "API surface"))
UNKNOWN = "unknown"
PLATFORMS = {"cuda": "NVIDIA (CUDA)", "rocm": "AMD (ROCm)", "apple": "Apple silicon", "intel": "Intel GPUs",
             "cpu": "CPU only", "tpu": "Google TPU", "npu": "NPU"}
"""What a reader runs on, for the matrix and `atlas compare --platform`: a row whose term
names `platforms` (Metal: apple) matters only on those; every other row matters everywhere."""


def matters_on(atlas: Atlas, row: str, platform: str | None) -> bool:
    """Whether a matrix row (a term id) matters on `platform` (None: every row does)."""
    return platform is None or platform in (atlas.entries[row].get("platforms") or PLATFORMS)


def compare(atlas: Atlas, engines: list[Entry], platform: str | None = None) -> list[dict[str, Any]]:
    """[{key, title, rows: [{id, title, cells: {engine id: {status, source, note}}, differs}]}]
    for every row any of `engines` states that matters on `platform`, rows by title."""
    out = []
    for key, title in CELL_GROUPS:
        ids = sorted({k for e in engines for k in (e.get(key) or {}) if matters_on(atlas, k, platform)},
                     key=lambda i: atlas.entries[i].title.casefold())
        rows = []
        for rid in ids:
            cells = {}
            for e in engines:
                cell = (e.get(key) or {}).get(rid)
                cells[e.id] = ({"status": cell["status"], "source": cell["source"], "note": cell.get("note", "")}
                               if cell else {"status": UNKNOWN, "source": None, "note": ""})
            statuses = {c["status"] for c in cells.values()}
            rows.append({"id": rid, "title": atlas.entries[rid].title, "cells": cells, "differs": len(statuses) > 1})
        if rows:
            out.append({"key": key, "title": title, "rows": rows})
    return out


def differences(atlas: Atlas, engines: list[Entry], platform: str | None = None) -> list[dict[str, Any]]:
    """The rows of `compare` where the engines' answers differ, known answers first (a
    stated yes against a stated no says more than a yes against a blank)."""
    rows = [dict(row, group=g["title"]) for g in compare(atlas, engines, platform) for row in g["rows"] if row["differs"]]
    return sorted(rows, key=lambda r: sum(c["status"] == UNKNOWN for c in r["cells"].values()))
