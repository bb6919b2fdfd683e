"""Weight formats as the calculator offers them: each name a format goes by, its bits per
weight, the bits it keeps each part at (a format term's `part_bits`, a variant's `parts`),
and the platforms its software runs on."""

from __future__ import annotations

import difflib
from typing import Iterator

from generator.kb.model import Atlas, Entry
from generator.knowledge.calc.limits import CalcError, check
from generator.knowledge.calc.parts import Precision, uniform


def _format_names(atlas: Atlas) -> Iterator[tuple[str, Entry, float, str, str, dict]]:
    """(name, term, bits, label, source, part bits) for every name of a weight format: first
    each format term's own names, then the variants terms list; a format that is a term of its
    own is that term wherever another lists it as a variant (MLX's mode "nvfp4" is NVFP4)."""
    terms = atlas.of_kind("term")
    for e in terms:
        if e.get("bits_per_weight"):
            f = e.get("bits_per_weight")
            parts = (e.get("part_bits") or {}).get("value") or {}
            for name in (e.id, e.title, *e.aliases):
                yield name.casefold(), e, float(f["value"]), e.title, f["source"], parts
    for e in terms:
        for var in e.get("variants") or ():
            if var.get("scope", "model") in ("model", "example"):  # not a level for one part, such as EXL2's output head
                yield var["name"].casefold(), e, float(var["bits_per_weight"]), var["name"], var["source"], var.get("parts") or {}


def formats(atlas: Atlas) -> dict[str, tuple[float, str, str]]:
    """Every weight format with known bits per weight: name (lowercase) -> (bits, label, source)."""
    out: dict[str, tuple[float, str, str]] = {}
    for name, _e, bits, label, source, _p in _format_names(atlas):
        out.setdefault(name, (bits, label, source))
    return out


def precisions(atlas: Atlas) -> dict[str, Precision]:
    """Every weight format by its names (lowercase): its bits, and per part where it keeps a
    part otherwise, with the rule in words (the note of the term's part_bits or the variant)."""
    out: dict[str, Precision] = {}
    notes = {e.id: (e.get("part_bits") or {}).get("note") for e in atlas.of_kind("term")}
    var_notes = {(e.id, v["name"].casefold()): v.get("parts_note") for e in atlas.of_kind("term") for v in e.get("variants") or ()}
    for name, e, bits, label, _source, parts in _format_names(atlas):
        note = var_notes.get((e.id, label.casefold())) if label != e.title else notes.get(e.id)
        out.setdefault(name, Precision(bits=bits, label=label, parts=tuple(sorted((k, float(b)) for k, b in parts.items())),
                                       note=note if parts else None))
    return out


def format_platforms(atlas: Atlas) -> dict[str, tuple[str, ...]]:
    """The platforms each weight format runs on, from the term `formats` takes its bits from:
    name (lowercase) -> the platforms its `runs_on` names (EXL3: cuda), or () for a format
    that runs anywhere."""
    out: dict[str, tuple[str, ...]] = {}
    for name, e, *_ in _format_names(atlas):
        out.setdefault(name, tuple((e.get("runs_on") or {}).get("value") or ()))
    return out


def runs(d, platforms: tuple[str, ...] | None) -> bool:
    """Whether a device runs a format limited to `platforms` (None or empty: every device;
    a device of the reader's own, whose platform is unknown, is taken at their word)."""
    return not platforms or d.platform is None or d.platform in platforms


def precision_for(atlas: Atlas, fmt: str | None, bits: float | None) -> Precision:
    """The precision a reader asked for: --bits N is every part at N bits; a format name is
    that format with the parts it keeps otherwise."""
    if bits is not None:
        return uniform(check("bits", bits))
    table = precisions(atlas)
    key = (fmt or "fp16").casefold()
    if key not in table and f"gguf {key}" in table:  # llama.cpp's own names: Q4_0 is GGUF Q4_0
        key = f"gguf {key}"
    if key not in table:
        close = difflib.get_close_matches(key, list(table), n=3, cutoff=0.5)
        hint = f" — did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise CalcError(f"unknown weight format '{fmt}'{hint}; known: {', '.join(sorted(table)) or 'none'}; or give --bits")
    return table[key]


def bits_for(atlas: Atlas, fmt: str | None, bits: float | None) -> tuple[float, str]:
    p = precision_for(atlas, fmt, bits)
    return p.bits, p.label
