"""Stage 3 — model: small immutable dataclasses built from validated documents.

Every later stage (graph, emit, calculator, CLI) reads these objects and never YAML, so
field names and defaults are decided once, here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping

from . import KIND_URLS
from .load import Document

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


def build_model(docs: list[Document]) -> Atlas:
    """Turn validated documents into the model. Assumes validation has passed."""
    entries: dict[str, Entry] = {}
    sources: dict[str, Source] = {}
    categories: dict[str, Category] = {}
    relation_types: dict[str, RelationType] = {}
    comparisons: list[tuple[str, str, str]] = []
    for doc in docs:
        if doc.kind == "sources":
            for sid, s in doc.data.items():
                sources[sid] = Source(id=sid, path=doc.path, **s)
        elif doc.kind == "categories":
            for cid, c in doc.data.items():
                categories[cid] = Category(id=cid, title=c["title"], short=" ".join(c["short"].split()), body=c.get("body", ""))
        elif doc.kind == "comparisons":
            comparisons += [(c["a"], c["b"], " ".join(c["summary"].split())) for c in doc.data]
        elif doc.kind == "relations":
            for name, r in doc.data["relations"].items():
                relation_types[name] = RelationType(
                    name=name, label=r["label"], inverse=r["inverse"],
                    sources=tuple(r["from"]), targets=tuple(r["to"]), symmetric=bool(r.get("symmetric", False)),
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
    )
