"""Stage 3 — model: small immutable dataclasses built from validated documents.

Every later stage (graph, emit, calculator, CLI) reads these objects and never YAML, so
field names and defaults are decided once, here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping

from generator.kb.kinds import KIND_URLS
from generator.kb.load import Document

DEFAULT_CATEGORY = {"engine": "engines", "hardware": "hardware", "model": "models", "guide": "guides"}


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    publisher: str
    kind: str
    url: str | None = None
    author: str | None = None
    seed: str | None = None
    date: str | None = None
    accessed: str | None = None
    summary: str | None = None
    reliability: str | None = None
    path: str = ""
    pull: Any = field(default=None, compare=False)  # a pull request's fate: {state, date, released_in, cited_for}


@dataclass(frozen=True)
class Decoded:
    """One measured decode configuration of a record: tokens per second over the batch
    (median, min and max of the repeats), for the full model (a slice scaled by layers)."""

    batch: int
    context: int
    tokens_per_s: float
    min: float
    max: float
    kernel: str  # the attention kernel PyTorch picked


@dataclass(frozen=True)
class Prefilled:
    """One measured prefill of a record (batch 1): the prompt's length, the time to the first
    token (median, min and max of the repeats) and prompt tokens per second (median), for
    the full model (a slice scaled by layers)."""

    prompt: int
    ttft_s: float
    min_s: float
    max_s: float
    tokens_per_s: float
    kernel: str


@dataclass(frozen=True)
class Measurement:
    """A record of the GPU suite (bench/gpu/results/<id>.yaml), kept as the figures the
    pages show beside the computed ceilings; the record itself is the source `source`."""

    id: str  # the file name without .yaml
    source: str  # its source id (load.measurement_source_id)
    path: str  # relative to the repository root
    date: str
    model: str  # model entry id
    hardware: str | None  # hardware entry matched by device name, if any
    device_name: str  # as the driver names it
    layers_built: int
    layers: int
    slice: bool
    scaling: str  # how a slice's times were scaled to the full depth (the record's words)
    sdpa_backend: str  # the option: auto, or the kernel forced
    git_commit: str
    torch_version: str
    driver_version: str
    cuda_version: str
    decode: tuple[Decoded, ...]
    copy_gbs: float | None  # the copy bandwidth the card reached in the same run (the record's yardstick)
    text: str  # the record as committed, copied into the site
    prefill: tuple[Prefilled, ...] = ()


@dataclass(frozen=True)
class Category:
    id: str
    title: str
    short: str
    body: str = ""


@dataclass(frozen=True)
class RelationType:
    name: str
    label: str
    inverse: str
    sources: tuple[str, ...]  # kinds allowed at the start of the edge
    targets: tuple[str, ...]  # kinds allowed at the end
    symmetric: bool = False
    explains: bool = False  # a path prefers it: it teaches how two ideas connect


@dataclass(frozen=True)
class Position:
    says: str
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Dispute:
    claim: str
    positions: tuple[Position, ...]
    verdict: str | None = None


@dataclass(frozen=True)
class Entry:
    """Fields every kind of entry shares. `fields` holds the kind-specific ones."""

    id: str
    kind: str
    title: str
    short: str
    category: str
    body: str = ""
    aliases: tuple[str, ...] = ()
    relations: tuple[tuple[str, str], ...] = ()  # (relation name, target id), in file order
    sources: tuple[str, ...] = ()
    disputes: tuple[Dispute, ...] = ()
    former_ids: tuple[str, ...] = ()
    path: str = ""
    fields: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def url(self) -> str:
        """Site-relative URL, e.g. /glossary/kv-cache/."""
        return f"/{KIND_URLS[self.kind]}/{self.id}/"

    @property
    def src_path(self) -> str:
        """Path of the generated Markdown page inside the docs tree."""
        return f"{KIND_URLS[self.kind]}/{self.id}.md"

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


@dataclass(frozen=True)
class Atlas:
    """The whole knowledge base as one immutable value."""

    entries: Mapping[str, Entry]
    sources: Mapping[str, Source]
    categories: Mapping[str, Category]
    relation_types: Mapping[str, RelationType]
    comparisons: tuple[tuple[str, str, str], ...] = ()  # (engine a, engine b, summary)
    engine_logs: tuple["EngineLog", ...] = ()  # glossary/engine-logs.yaml: what engines allocated, to check the calculator
    measurements: Mapping[str, Measurement] = field(default_factory=lambda: MappingProxyType({}))  # source id -> record
    benchmarks: tuple["Benchmark", ...] = ()  # glossary/benchmarks: speeds others published, row by row
    engine_flags: Mapping[str, "EngineFlags"] = field(default_factory=lambda: MappingProxyType({}))  # engine id -> its release's flags
    warnings: tuple = ()  # what validation reports without refusing (kb.Finding): atlas check prints them

    def measured(self, model: str | None = None, hardware: str | None = None) -> list[Measurement]:
        """The records of a model, of a device, or of both, oldest first."""
        return [m for m in self.measurements.values()
                if (model is None or m.model == model) and (hardware is None or m.hardware == hardware)]

    def of_kind(self, kind: str) -> list[Entry]:
        """The entries of one kind, by title."""
        return list(self._by_kind.get(kind, ()))

    @cached_property
    def _by_kind(self) -> dict[str, tuple[Entry, ...]]:
        # Sorted once: every fit table asks for all devices or all models, and at 10,000
        # entries sorting them again for each was a second and a half of the build.
        out: dict[str, list[Entry]] = {}
        for e in sorted(self.entries.values(), key=lambda e: e.title.casefold()):
            out.setdefault(e.kind, []).append(e)
        return {k: tuple(v) for k, v in out.items()}


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


_COMMON = {"id", "title", "short", "category", "body", "aliases", "relations", "sources", "disputes", "former_ids"}


def entry_from(doc: Document) -> Entry:
    d = doc.data
    disputes = tuple(
        Dispute(
            claim=x["claim"],
            positions=tuple(Position(p["says"], tuple(p["sources"])) for p in x["positions"]),
            verdict=x.get("verdict"),
        )
        for x in d.get("disputes", [])
    )
    relations = tuple((name, target) for name, targets in (d.get("relations") or {}).items() for target in targets)
    return Entry(
        id=doc.id,
        kind=doc.kind,
        title=d["title"],
        short=" ".join(d["short"].split()),
        category=d.get("category") or DEFAULT_CATEGORY.get(doc.kind, "runtime"),
        body=d.get("body", "").strip(),
        aliases=tuple(d.get("aliases", [])),
        relations=relations,
        sources=tuple(d.get("sources", [])),
        disputes=disputes,
        former_ids=tuple(d.get("former_ids", [])),
        path=doc.path,
        fields=_freeze({k: v for k, v in d.items() if k not in _COMMON}),
    )


_KERNELS = {"flash": "FlashAttention", "cudnn": "cuDNN attention", "efficient": "memory-efficient attention",
            "math": "PyTorch's math attention", "flash_attention": "FlashAttention", "cudnn_attention": "cuDNN attention",
            "efficient_attention": "memory-efficient attention", "math_attention": "PyTorch's math attention"}


def _kernel_name(name: str) -> str:
    """An SDPA backend as a reader knows it (the record keeps PyTorch's name)."""
    return _KERNELS.get(name, name)


def _measured_source(doc: Document, m: Measurement, title: str) -> Source:
    """The source a record becomes: what was measured, where and with what, in our words."""
    built = (f"{m.layers_built} of its {m.layers} layers built and the per-step time scaled to all {m.layers} "
             f"(the output head timed alone)" if m.slice else f"all {m.layers} layers built")
    kernel = "attention kernel chosen by PyTorch" if m.sdpa_backend == "auto" else f"attention kernel forced to {_kernel_name(m.sdpa_backend)}"
    summary = (f"Decode and prefill of a decoder with random BF16 weights in the exact shape of {title}, {built}; "
               f"timed on {m.device_name} (driver {m.driver_version}, CUDA {m.cuda_version}, PyTorch {m.torch_version}, "
               f"{kernel}) by bench/gpu/measure.py at commit {m.git_commit[:7]}, each step one CUDA graph, medians of "
               f"repeated runs. The record ({m.path}) holds every parameter and the spread.")
    caveat = ("Plain PyTorch with unfused kernels, not a serving engine: no paged KV cache, no scheduler, no sampling. "
              "Random weights run the same kernels over the same bytes as trained ones.")
    if m.slice:
        caveat += (f" Only {m.layers_built} of {m.layers} layers ran; the full-model figures assume every layer costs "
                   f"the same, and the whole model would not fit this one card.")
    forced = "" if m.sdpa_backend == "auto" else f", {_kernel_name(m.sdpa_backend)} forced"
    return Source(id=m.source, title=f"{title} on {m.device_name}, measured by this project ({m.date}{forced})",
                  publisher="Inference Atlas (measured by this project)", kind="measurement", date=m.date,
                  summary=summary, reliability=caveat, path=doc.path)


def measurement_from(doc: Document) -> tuple[Measurement, str]:
    """A validated record as a Measurement, and the model title it names."""
    from generator.kb.load import measurement_source_id

    d = doc.data
    env, built, shape = d["environment"], d["built"], d["shape"]
    decode = tuple(Decoded(batch=int(x["batch"]), context=int(x["context"]), tokens_per_s=float(x["tokens_per_s"]["median"]),
                           min=float(x["tokens_per_s"]["min"]), max=float(x["tokens_per_s"]["max"]),
                           kernel=str(x.get("sdpa_backend", "")))
                   for x in d["decode"] if x.get("status") == "measured")
    prefill = tuple(Prefilled(prompt=int(x["prompt_length"]), ttft_s=float(x["time_to_first_token_s"]["median"]),
                              min_s=float(x["time_to_first_token_s"]["min"]), max_s=float(x["time_to_first_token_s"]["max"]),
                              tokens_per_s=float(x["prompt_tokens_per_s"]["median"]), kernel=str(x.get("sdpa_backend", "")))
                    for x in d.get("prefill") or () if x.get("status") == "measured" and int(x.get("batch", 1)) == 1)
    m = Measurement(id=doc.id, source=measurement_source_id(doc.id), path=doc.path, date=str(d["date"]),
                    model=d["model"]["id"], hardware=(d.get("datasheet") or {}).get("hardware_id"),
                    device_name=str(env.get("device_name") or env.get("device_type")), layers_built=int(built["layers_built"]),
                    layers=int(shape["layers"]), slice=bool(built["slice"]), scaling=str(built.get("scaling") or ""),
                    sdpa_backend=str(d["parameters"].get("sdpa_backend", "auto")), git_commit=str(env.get("git_commit") or "unknown"),
                    torch_version=str(env.get("torch_version", "")), driver_version=str(env.get("driver_version") or "unknown"),
                    cuda_version=str(env.get("cuda_version") or "none"), decode=decode,
                    copy_gbs=(d.get("yardsticks") or {}).get("copy_bandwidth_gbs"), text=doc.text, prefill=prefill)
    return m, str(d["model"].get("title") or m.model)


@dataclass(frozen=True)
class EngineLog:
    """A public engine log of what the engine allocated for a model (glossary/engine-logs.yaml)."""

    id: str
    url: str
    engine: str
    model: str
    lines: str
    path: str
    via: str | None = None
    version: str | None = None
    model_note: str | None = None
    format: str | None = None
    cells: int | None = None
    swa_cells: int | None = None
    kv_layers: int | None = None
    swa_layers: int | None = None
    sequences: int | None = None
    kv_type: str | None = None
    kv_type_k: str | None = None
    kv_type_v: str | None = None
    tp: int = 1
    kv_mib: float | None = None
    kv_gib: float | None = None
    kv_tokens: int | None = None
    weights_gib: float | None = None
    weights_per_gpu: bool | None = None
    differs: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class EngineFlags:
    """The launch flags, environment variables and config keys one release of an engine
    accepts (glossary/engine-flags/<engine>.yaml), each with its type and accepted values."""

    engine: str
    release: str
    command: str
    read_from: str
    path: str
    flags: Mapping[str, Any]
    env: Mapping[str, Any]
    config_keys: Mapping[str, Any]
    caveat: str | None = None

    def find(self, name: str) -> tuple[str, Any] | None:
        """A flag, variable or key by any of its spellings: (its table's name, its fields)."""
        for table in (self.flags, self.env, self.config_keys):
            if name in table:
                return name, table[name]
            for k, v in table.items():
                if name in (v.get("aliases") or ()):
                    return k, v
        return None


BENCHMARK_FIELDS = ("source", "url", "device", "variant", "devices", "engine", "backend", "version", "model", "checkpoint",
                    "format", "test", "batch", "tps", "note", "excluded")
BENCHMARK_REQUIRED = ("source", "device", "variant", "engine", "backend", "version", "model", "checkpoint", "format", "test", "tps")


@dataclass(frozen=True)
class Benchmark:
    """One speed someone else measured and published (glossary/benchmarks/<file>.yaml), a
    row with the file's defaults filled in."""

    path: str  # the file, relative to the repository root
    row: int  # its index in the file's rows
    source: str
    device: str
    variant: str
    engine: str
    backend: str
    version: str
    model: str
    checkpoint: str
    format: str
    test: str  # pp512, tg128, tg128@d4096
    tps: float
    devices: int = 1
    batch: int = 1
    url: str | None = None
    note: str | None = None
    excluded: str | None = None  # why the row is shown but calibrates nothing

    @property
    def kind(self) -> str:
        """'decode' for a tg test, 'prefill' for a pp test."""
        return "decode" if self.test.startswith("tg") else "prefill"

    @property
    def tokens(self) -> int:
        """The test's N: tokens generated (tg) or in the prompt (pp); 0 where the source did not say."""
        n = self.test[2:].split("@")[0]
        return int(n) if n else 0

    @property
    def depth(self) -> int:
        """Tokens already in the cache when the test began (@dN), else 0."""
        return int(self.test.split("@d")[1]) if "@d" in self.test else 0


def benchmark_rows(doc: Document) -> list[dict]:
    """The rows of a benchmarks file with its defaults filled in (a row's own value wins)."""
    base = doc.data.get("defaults") or {}
    return [dict(base) | dict(r) for r in doc.data.get("rows") or () if isinstance(r, dict)]


def build_model(docs: list[Document]) -> Atlas:
    """Turn validated documents into the model. Assumes validation has passed."""
    entries: dict[str, Entry] = {}
    sources: dict[str, Source] = {}
    categories: dict[str, Category] = {}
    relation_types: dict[str, RelationType] = {}
    comparisons: list[tuple[str, str, str]] = []
    engine_logs: list[EngineLog] = []
    measurements: dict[str, Measurement] = {}
    benchmarks: list[Benchmark] = []
    engine_flags: dict[str, EngineFlags] = {}
    for doc in docs:
        if doc.kind == "measurement":
            m, title = measurement_from(doc)
            measurements[m.source] = m
            sources[m.source] = _measured_source(doc, m, title)
        elif doc.kind == "sources":
            for sid, s in doc.data.items():
                sources[sid] = Source(id=sid, path=doc.path, **s)
        elif doc.kind == "categories":
            for cid, c in doc.data.items():
                categories[cid] = Category(id=cid, title=c["title"], short=" ".join(c["short"].split()), body=c.get("body", ""))
        elif doc.kind == "comparisons":
            comparisons += [(c["a"], c["b"], " ".join(c["summary"].split())) for c in doc.data]
        elif doc.kind == "engine-logs":
            engine_logs += [EngineLog(path=doc.path, **{k: v for k, v in c.items() if v is not None or k in ("tp",)} | {"tp": c.get("tp") or 1})
                            for c in doc.data]
        elif doc.kind == "engine-flags":
            d = doc.data
            engine_flags[d["engine"]] = EngineFlags(engine=d["engine"], release=str(d["release"]), command=d["command"],
                                                    read_from=d["read_from"], path=doc.path, flags=_freeze(d.get("flags") or {}),
                                                    env=_freeze(d.get("env") or {}), config_keys=_freeze(d.get("config_keys") or {}),
                                                    caveat=d.get("caveat"))
        elif doc.kind == "benchmarks":
            benchmarks += [Benchmark(path=doc.path, row=i, **{k: v for k, v in r.items() if v is not None})
                           for i, r in enumerate(benchmark_rows(doc))]
        elif doc.kind == "relations":
            for name, r in doc.data["relations"].items():
                relation_types[name] = RelationType(
                    name=name, label=r["label"], inverse=r["inverse"],
                    sources=tuple(r["from"]), targets=tuple(r["to"]), symmetric=bool(r.get("symmetric", False)),
                    explains=bool(r.get("explains", False)),
                )
        else:
            entry = entry_from(doc)
            entries[entry.id] = entry
    return Atlas(
        entries=MappingProxyType(dict(sorted(entries.items()))),
        sources=MappingProxyType(dict(sorted(sources.items()))),
        categories=MappingProxyType(categories),
        relation_types=MappingProxyType(relation_types),
        comparisons=tuple(comparisons),
        engine_logs=tuple(engine_logs),
        benchmarks=tuple(benchmarks),
        engine_flags=MappingProxyType(engine_flags),
        measurements=MappingProxyType(dict(sorted(measurements.items(), key=lambda kv: (kv[1].date, kv[0])))),
    )
