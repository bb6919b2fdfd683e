"""What a file of published measurements must hold (glossary/benchmarks, issue 46): every
row, with the file's defaults filled in, names a device, an engine and a model of the atlas,
a weight format the calculator knows and a source that is listed. Part of validate (stage 2);
the schema (generator/schemas/benchmark.schema.json) has already checked each field's shape."""

from __future__ import annotations

from typing import Any

from generator.kb.findings import Finding, did_you_mean
from generator.kb.load import Document
from generator.kb.model import BENCHMARK_REQUIRED, benchmark_rows

REFS = {"device": "hardware", "engine": "engine", "model": "model"}


def format_names(entries: dict[str, Document]) -> set[str]:
    """Every weight format name the calculator sizes (knowledge.calc.formats reads the same
    fields of the built atlas): a format term's id, title and aliases, and its variants' names."""
    out: set[str] = set()
    for doc in entries.values():
        d = doc.data if isinstance(doc.data, dict) else {}
        if doc.kind != "term":
            continue
        if d.get("bits_per_weight"):
            out.update(str(n).casefold() for n in (doc.id, d.get("title"), *(d.get("aliases") or ())) if n)
        for v in d.get("variants") or ():
            if isinstance(v, dict) and v.get("name") and v.get("scope", "model") in ("model", "example"):
                out.add(str(v["name"]).casefold())
    return out


def known_format(name: str, names: set[str]) -> bool:
    """As the calculator looks a name up: itself, or llama.cpp's own name of a GGUF type."""
    key = name.casefold()
    return key in names or f"gguf {key}" in names


def check_benchmarks(doc: Document, index: Any, formats: set[str]) -> list[Finding]:
    if not isinstance(doc.data, dict) or not isinstance(doc.data.get("rows"), list):
        return []  # the schema says what is wrong
    out: list[Finding] = []

    def at(i: int, field: str | None = None):
        """A row's field where the row gives it, else where the defaults do, else the row."""
        if field and isinstance(doc.data["rows"][i], dict) and field in doc.data["rows"][i]:
            return doc.loc("rows", i, field)
        if field and field in (doc.data.get("defaults") or {}):
            return doc.loc("defaults", field)
        return doc.loc("rows", i)

    seen: dict[tuple, int] = {}
    for i, row in enumerate(benchmark_rows(doc)):
        missing = [f for f in BENCHMARK_REQUIRED if f not in row]
        if missing:
            line, col = at(i)
            out.append(Finding(doc.path, line, col, f"row {i + 1} lacks {', '.join(missing)}: give them in the row or in defaults"))
            continue
        for field, kind in REFS.items():
            target = row[field]
            if not isinstance(target, str):
                continue
            if index.kind_of(target) != kind:
                line, col = at(i, field)
                what = f"is a {index.kind_of(target)}" if index.kind_of(target) else "is not an entry"
                out.append(Finding(doc.path, line, col, f"{field} '{target}' {what}; name a {kind} entry{did_you_mean(target, index.entries)}"))
        sid = row["source"]
        if isinstance(sid, str) and sid not in index.sources:
            line, col = at(i, "source")
            out.append(Finding(doc.path, line, col, f"unknown source '{sid}'{did_you_mean(sid, index.sources)}; add it to glossary/sources/"))
        fmt = row["format"]
        if isinstance(fmt, str) and not known_format(fmt, formats):
            line, col = at(i, "format")
            out.append(Finding(doc.path, line, col, f"format '{fmt}' is not a weight format the calculator knows{did_you_mean(fmt.casefold(), formats)}; "
                                                    f"name it as a format term or variant does (q4_k_m, gguf q4_0, fp16, mxfp4)"))
        key = tuple(str(row.get(f)) for f in ("device", "devices", "engine", "backend", "version", "model", "checkpoint", "format", "test", "batch", "source", "url", "note", "variant"))
        if key in seen:
            line, col = at(i)
            out.append(Finding(doc.path, line, col, f"row {i + 1} repeats row {seen[key] + 1} (same device and variant, engine, model, format, test, source and note)"))
        seen.setdefault(key, i)
    return out


def check_engine_flags(doc: Document, index: Any) -> list[Finding]:
    """An engine's flags file names an engine entry, once, and the release that entry pins:
    when `as_of` moves, the flags must be read again from the new release (issue 47)."""
    d = doc.data if isinstance(doc.data, dict) else {}
    engine, release = d.get("engine"), d.get("release")
    if not isinstance(engine, str):
        return []
    line, col = doc.loc("engine")
    if index.kind_of(engine) != "engine":
        return [Finding(doc.path, line, col, f"engine '{engine}' is not an engine entry{did_you_mean(engine, index.entries)}")]
    if doc.id != engine:
        return [Finding(doc.path, line, col, f"the file is named '{doc.id}.yaml' but holds the flags of '{engine}': name it {engine}.yaml")]
    pinned = ((index.entries[engine].data or {}).get("as_of") or {}).get("version")
    if pinned is not None and str(release) != str(pinned):
        line, col = doc.loc("release")
        return [Finding(doc.path, line, col, f"flags read from release '{release}', but {engine} pins '{pinned}' (as_of): "
                                             f"read the launch arguments of '{pinned}' from its package and update this file")]
    return []
