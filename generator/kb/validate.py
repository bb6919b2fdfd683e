"""Stage 2 — validate: schema, ids, references, aliases, ontology and guide trees.

Every check runs on every document and every problem is collected; the caller fails once
with all of them. Messages say what is wrong, where, and what would be right.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cached_property, lru_cache
from typing import Any, Callable, Iterator

from jsonschema import Draft202012Validator

from generator.kb.findings import Finding, did_you_mean
from generator.kb.kinds import KIND_URLS, KINDS
from generator.kb.load import MEASUREMENT_SCHEMA, Document, measurement_source_id
from generator.kb.schema import _explain, _fast_checks, _validators, check_schema
from generator.kb.provenance import check_shipped, check_source_pulls

from generator.kb.benchmarks import check_benchmarks, check_engine_flags, format_names
from generator.kb.sizing import _list, check_memory_sizes, check_model_figures, check_release_date
from generator.kb.text import CITE_RE, WIKILINK_RE, bad_urls, markdown_problems

ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


CELL_GROUPS = ("features", "backends", "formats", "api")


def normalise(name: str) -> str:
    """The form in which two titles or aliases count as the same name: Unicode's
    compatibility form (so NFC and NFD spellings, or a ligature and its letters, are one
    name), case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


class _Index:
    """What cross-entry checks need to know about the whole knowledge base."""

    def __init__(self, docs: list[Document]):
        self.entries: dict[str, Document] = {}
        self.sources: dict[str, Document] = {}
        self.categories: set[str] = set()
        self.relations: dict[str, dict] = {}
        self.duplicates: list[Finding] = []
        for doc in docs:
            if doc.kind == "sources":
                for sid in doc.data:
                    if sid in self.sources:
                        line, col = doc.loc(sid, key=True)
                        first = self.sources[sid]
                        fl = first.loc(sid, key=True)[0]
                        self.duplicates.append(Finding(doc.path, line, col, f"duplicate source id '{sid}' (also {first.path}:{fl}); reuse that one"))
                    else:
                        self.sources[sid] = doc
            elif doc.kind == "measurement":  # a GPU suite record is a source (load.MEASUREMENTS_DIR)
                sid = measurement_source_id(doc.id)
                if sid in self.sources:
                    self.duplicates.append(Finding(doc.path, 1, 1, f"source id '{sid}' of this record is also {self.sources[sid].path}"))
                else:
                    self.sources[sid] = doc
            elif doc.kind == "categories":
                self.categories.update(doc.data)
            elif doc.kind == "relations":
                rel = doc.data.get("relations")
                if isinstance(rel, dict):
                    self.relations = {k: v for k, v in rel.items() if isinstance(v, dict)}
            elif doc.kind in KINDS:
                if doc.id in self.entries:
                    first = self.entries[doc.id]
                    self.duplicates.append(Finding(doc.path, 1, 1, f"duplicate id '{doc.id}': {first.path} already uses it; ids are unique across all kinds"))
                else:
                    self.entries[doc.id] = doc

    @cached_property
    def source_data(self) -> dict[str, dict]:
        """Each source id's fields (a sources file's entry), for the checks that read them:
        gathered once, not for every entry that is checked."""
        return {sid: doc.data.get(sid) for sid, doc in self.sources.items() if doc.kind == "sources" and isinstance(doc.data, dict)}

    def kind_of(self, entry_id: str) -> str | None:
        doc = self.entries.get(entry_id)
        return doc.kind if doc else None


def _ref(doc: Document, path: tuple, target: Any, index: _Index, what: str = "entry") -> Finding | None:
    if not isinstance(target, str):
        return None
    if target in index.entries:
        return None
    line, col = doc.loc(*path)
    return Finding(doc.path, line, col, f"unknown {what} '{target}'{did_you_mean(target, index.entries)}")


def _source_ref(doc: Document, path: tuple, sid: Any, index: _Index) -> Finding | None:
    if not isinstance(sid, str) or sid in index.sources:
        return None
    line, col = doc.loc(*path)
    return Finding(doc.path, line, col, f"unknown source '{sid}'{did_you_mean(sid, index.sources)}; add it to glossary/sources.yaml or glossary/sources/")


def _walk_sources(value: Any, path: tuple) -> Iterator[tuple[tuple, Any]]:
    """Every `source: id` and `sources: [id]` anywhere inside an entry."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "source":
                yield path + (k,), v
            elif k == "sources" and isinstance(v, list):
                for i, s in enumerate(v):
                    yield path + (k, i), s
            else:
                yield from _walk_sources(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk_sources(v, path + (i,))


def markdown_findings(doc: Document, path: tuple, text: str) -> list[Finding]:
    """Markdown an author wrote, refused where it could harm a reader or the build: a link
    whose scheme is not http, https or mailto (after entities are decoded), and structure
    that would make the renderer slow or crash it (text.markdown_problems)."""
    out = []
    for offset, scheme in bad_urls(text):
        line, col = doc.text_loc(path, offset, text)
        out.append(Finding(doc.path, line, col, f"links may not use {scheme}: URLs; use an http, https or mailto link, "
                                                f"or a relative one"))
    for offset, message in markdown_problems(text):
        line, col = doc.text_loc(path, offset, text)
        out.append(Finding(doc.path, line, col, message))
    return out


# Characters no text field needs and an attacker would use: C0 and C1 controls (terminal
# escape sequences among them; line breaks and tabs are fine) and the bidirectional
# overrides that make text read differently from how it is stored.
_CONTROL_TEXT_RE = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


# Ids whose pages the generator writes itself under a kind's folder.
RESERVED_IDS = {"engine": {"compare"}, "term": {"az"}}


def _strings(value: Any, path: tuple) -> Iterator[tuple[tuple, str]]:
    stack = [(path, value)]
    while stack:
        here, v = stack.pop()
        if isinstance(v, str):
            yield here, v
        elif isinstance(v, dict):
            stack += [(here + (k,), x) for k, x in v.items()]
        elif isinstance(v, list):
            stack += [(here + (i,), x) for i, x in enumerate(v)]


def check_text(doc: Document) -> list[Finding]:
    """Every string of a document is free of control and bidi-override characters."""
    out = []
    for path, text in _strings(doc.data, ()):
        bad = _CONTROL_TEXT_RE.search(text)
        if bad:
            line, col = doc.loc(*path)
            out.append(Finding(doc.path, line, col, f"'{'.'.join(map(str, path))}' contains the control character "
                                                    f"U+{ord(bad.group()):04X}; delete it"))
    return out


def check_entry(doc: Document, index: _Index) -> list[Finding]:
    d = doc.data
    out: list[Finding] = []
    add = out.append
    if doc.id in RESERVED_IDS.get(doc.kind, ()):
        add(Finding(doc.path, 1, 1, f"id '{doc.id}' is taken by a page the site generates at the same address; "
                                    f"choose another file name"))
    if not ID_RE.match(doc.id):
        add(Finding(doc.path, 1, 1, f"file name '{doc.id}.yaml' is not a valid id: use lowercase letters, digits and single hyphens, like 'kv-cache.yaml'"))
    if isinstance(d.get("id"), str) and d["id"] != doc.id:
        line, col = doc.loc("id")
        add(Finding(doc.path, line, col, f"id '{d['id']}' does not match the file name '{doc.id}.yaml'; an id is the file name without .yaml (rename one of them)"))
    cat = d.get("category")
    if isinstance(cat, str) and cat not in index.categories:
        line, col = doc.loc("category")
        add(Finding(doc.path, line, col, f"unknown category '{cat}'{did_you_mean(cat, index.categories)}; categories are listed in glossary/categories.yaml"))
    # Relations: known name, known target, kinds the ontology allows.
    rels = d.get("relations")
    if isinstance(rels, dict):
        for name, targets in rels.items():
            if name not in index.relations:
                line, col = doc.loc("relations", name, key=True)
                hint = did_you_mean(name, index.relations) or f"; known relations: {', '.join(sorted(index.relations))}"
                add(Finding(doc.path, line, col, f"unknown relation '{name}'{hint}"))
                continue
            spec = index.relations[name]
            if doc.kind not in spec.get("from", []):
                line, col = doc.loc("relations", name, key=True)
                add(Finding(doc.path, line, col, f"relation '{name}' cannot start at a {doc.kind}; it goes from {', '.join(spec.get('from', []))} to {', '.join(spec.get('to', []))}"))
                continue
            for i, target in enumerate(targets if isinstance(targets, list) else []):
                problem = _ref(doc, ("relations", name, i), target, index)
                if problem:
                    add(problem)
                    continue
                if target == doc.id:
                    line, col = doc.loc("relations", name, i)
                    add(Finding(doc.path, line, col, f"relation '{name}' points at the entry itself"))
                    continue
                tkind = index.kind_of(target)
                if tkind not in spec.get("to", []):
                    line, col = doc.loc("relations", name, i)
                    add(Finding(doc.path, line, col, f"relation '{name}' cannot end at '{target}', which is a {tkind}; it goes from {', '.join(spec.get('from', []))} to {', '.join(spec.get('to', []))}"))
    # Sources: every id named anywhere exists; every citation is listed in `sources`.
    for path, sid in _walk_sources(d, ()):
        problem = _source_ref(doc, path, sid, index)
        if problem:
            add(problem)
    listed = {s for s in _list(d, "sources") if isinstance(s, str)}
    body = d.get("body")
    if isinstance(body, str):
        for m in CITE_RE.finditer(body):
            sid = m.group(1)
            if sid in listed and sid in index.sources:
                continue  # the usual case: the place is worked out only for a finding
            line, col = doc.text_loc(("body",), m.start(), body)
            if sid not in index.sources:
                add(Finding(doc.path, line, col, f"citation [@{sid}] names an unknown source{did_you_mean(sid, index.sources)}"))
            else:
                add(Finding(doc.path, line, col, f"citation [@{sid}] is not listed in this entry's sources; add '{sid}' to sources"))
        cited = {m.start() for m in CITE_RE.finditer(body)}
        for m in re.finditer(r"\[@", body):  # '[@a, b]' or '[@a; @b]' would show as text on the page
            if m.start() not in cited:
                line, col = doc.text_loc(("body",), m.start(), body)
                add(Finding(doc.path, line, col, "citation not understood: write one [@source-id] per source, "
                                                 "with no spaces or commas inside, e.g. [@a] [@b]"))
        for m in WIKILINK_RE.finditer(body):
            target = m.group(1).strip()
            if target not in index.entries:
                line, col = doc.text_loc(("body",), m.start(), body)
                add(Finding(doc.path, line, col, f"link [[{target}]] names an unknown entry{did_you_mean(target, index.entries)}"))
        out += markdown_findings(doc, ("body",), body)
        for m in re.finditer(r"(?m)^# ", body):
            line, col = doc.text_loc(("body",), m.start(), body)
            add(Finding(doc.path, line, col, "use '## ' subheadings in a body; the page title is the only '# ' heading"))
    # Engine fields that point at other entries.
    fam = d.get("family")
    if doc.kind == "engine" and isinstance(fam, str):
        problem = _ref(doc, ("family",), fam, index, "family")
        if problem:
            add(problem)
        elif index.kind_of(fam) != "term":
            line, col = doc.loc("family")
            add(Finding(doc.path, line, col, f"family '{fam}' must be a term (an engine family such as production-serving-engines)"))
    for group in CELL_GROUPS:
        cells = d.get(group)
        if isinstance(cells, dict):
            for key in cells:
                if key not in index.entries:
                    line, col = doc.loc(group, key, key=True)
                    add(Finding(doc.path, line, col, f"unknown entry '{key}' in {group}{did_you_mean(key, index.entries)}"))
    for i, old in enumerate(_list(d, "former_ids")):
        if not isinstance(old, str):
            continue
        folder, _, old_id = old.rpartition("/")  # engines/autoround: the page of an entry that changed kind
        other = index.entries.get(old_id)
        if other is not None and (not folder or KIND_URLS.get(other.kind) == folder):
            line, col = doc.loc("former_ids", i)
            add(Finding(doc.path, line, col, f"former id '{old}' is the page of an existing entry ({other.path}); "
                                             f"a redirect there would hide it"))
    if doc.kind == "guide":
        out += check_guide(doc, index)
    if doc.kind == "model":
        out += check_model_figures(doc)
    if doc.kind == "engine":
        out += check_release_date(doc)
    if doc.kind in ("hardware", "model"):
        out += check_memory_sizes(doc, index)
    return out


def check_guide(doc: Document, index: _Index) -> list[Finding]:
    """A guide is a tree of questions: every question reachable, no cycles, every leaf real."""
    d = doc.data
    questions = d.get("questions")
    if not isinstance(questions, dict) or not questions:
        return []
    out: list[Finding] = []
    start = d.get("start")
    if isinstance(start, str) and start not in questions:
        line, col = doc.loc("start")
        out.append(Finding(doc.path, line, col, f"start question '{start}' does not exist{did_you_mean(start, questions)}"))
        return out
    edges: dict[str, list[str]] = {}
    for qid, q in questions.items():
        edges[qid] = []
        options = q.get("options") if isinstance(q, dict) else None
        seen_ids: set[str] = set()
        for i, opt in enumerate(options if isinstance(options, list) else []):
            if not isinstance(opt, dict):
                continue
            oid = opt.get("id")
            if oid in seen_ids:
                line, col = doc.loc("questions", qid, "options", i, "id")
                out.append(Finding(doc.path, line, col, f"option id '{oid}' is used twice in question '{qid}'"))
            seen_ids.add(oid)
            nxt = opt.get("next")
            if isinstance(nxt, str):
                if nxt not in questions:
                    line, col = doc.loc("questions", qid, "options", i, "next")
                    out.append(Finding(doc.path, line, col, f"option '{oid}' leads to unknown question '{nxt}'{did_you_mean(nxt, questions)}"))
                else:
                    edges[qid].append(nxt)
            calc = opt.get("calculator")
            if isinstance(calc, dict):
                problem = _ref(doc, ("questions", qid, "options", i, "calculator", "model"), calc.get("model"), index, "model")
                if problem:
                    out.append(problem)
                elif calc.get("model") in index.entries and index.entries[calc["model"]].kind != "model":
                    line, col = doc.loc("questions", qid, "options", i, "calculator", "model")
                    out.append(Finding(doc.path, line, col, f"calculator model '{calc['model']}' is a "
                                       f"{index.entries[calc['model']].kind}, not a model entry"))
            for j, rec in enumerate(opt.get("recommend") or []):
                if isinstance(rec, dict):
                    problem = _ref(doc, ("questions", qid, "options", i, "recommend", j, "entry"), rec.get("entry"), index)
                    if problem:
                        out.append(problem)
    if isinstance(start, str):
        reached: set[str] = set()
        stack = [start]
        while stack:
            q = stack.pop()
            if q not in reached:
                reached.add(q)
                stack.extend(edges.get(q, []))
        for qid in questions:
            if qid not in reached:
                line, col = doc.loc("questions", qid, key=True)
                out.append(Finding(doc.path, line, col, f"question '{qid}' cannot be reached from the start question '{start}'"))
    # Cycles: depth-first search with colours; report the edge that closes the loop.
    colour: dict[str, int] = {}

    def nexts(q: str) -> list[tuple[int, str]]:
        opts = questions[q].get("options") if isinstance(questions[q], dict) else None
        return [(i, o["next"]) for i, o in enumerate(opts if isinstance(opts, list) else [])
                if isinstance(o, dict) and o.get("next") in questions]

    # Iterative depth-first search (a chain of thousands of questions must not overflow the
    # stack): a trail of (question, its remaining options) pairs, grey while on the trail.
    for root in questions:
        if colour.get(root) is not None or not isinstance(questions[root], dict):
            continue
        colour[root] = 1
        trail = [(root, iter(nexts(root)))]
        while trail:
            q, todo = trail[-1]
            step = next(todo, None)
            if step is None:
                colour[q] = 2
                trail.pop()
                continue
            i, nxt = step
            if colour.get(nxt) == 1:
                names = [t for t, _ in trail]
                line, col = doc.loc("questions", q, "options", i, "next")
                loop = " -> ".join(names[names.index(nxt):] + [nxt])
                out.append(Finding(doc.path, line, col, f"guide loops back: {loop}; every path must end in a recommendation"))
            elif colour.get(nxt) is None:
                colour[nxt] = 1
                trail.append((nxt, iter(nexts(nxt))))
    return out


def check_engine_logs(doc: Document, index: _Index) -> list[Finding]:
    """Each engine log names a model entry, once under its id."""
    out: list[Finding] = []
    seen: set[str] = set()
    for i, item in enumerate(doc.data):
        if not isinstance(item, dict):
            continue
        problem = _ref(doc, (i, "model"), item.get("model"), index, "model")
        if problem:
            out.append(problem)
        elif isinstance(item.get("model"), str) and index.kind_of(item["model"]) != "model":
            line, col = doc.loc(i, "model")
            out.append(Finding(doc.path, line, col, f"'{item['model']}' is a {index.kind_of(item['model'])}; an engine log names a model"))
        if item.get("id") in seen:
            line, col = doc.loc(i, "id")
            out.append(Finding(doc.path, line, col, f"engine log id '{item['id']}' is used twice"))
        seen.add(item.get("id"))
    return out


def check_comparisons(doc: Document, index: _Index) -> list[Finding]:
    out: list[Finding] = []
    for i, item in enumerate(doc.data):
        if not isinstance(item, dict):
            continue
        for side in ("a", "b"):
            eid = item.get(side)
            problem = _ref(doc, (i, side), eid, index, "engine")
            if problem:
                out.append(problem)
            elif isinstance(eid, str) and index.kind_of(eid) != "engine":
                line, col = doc.loc(i, side)
                out.append(Finding(doc.path, line, col, f"'{eid}' is a {index.kind_of(eid)}; comparisons join two engines"))
        summary = item.get("summary")
        if isinstance(summary, str):
            out += markdown_findings(doc, (i, "summary"), summary)
            for m in CITE_RE.finditer(summary):
                if m.group(1) not in index.sources:
                    line, col = doc.text_loc((i, "summary"), m.start(), summary)
                    out.append(Finding(doc.path, line, col, f"citation [@{m.group(1)}] names an unknown source{did_you_mean(m.group(1), index.sources)}"))
    return out


def check_unlinked_aliases(doc: Document) -> list[Finding]:
    """Every unlinked alias is one of the entry's aliases (the field only silences a name)."""
    data = doc.data if isinstance(doc.data, dict) else {}
    aliases = set(_list(data, "aliases"))
    out = []
    for i, name in enumerate(_list(data, "unlinked_aliases")):
        if name not in aliases:
            line, col = doc.loc("unlinked_aliases", i)
            out.append(Finding(doc.path, line, col, f"unlinked alias '{name}' is not one of the aliases; add it to aliases "
                                                    f"or remove it here"))
    return out


def check_aliases(index: _Index) -> list[Finding]:
    """A title or alias names exactly one entry; otherwise links and search are ambiguous."""
    owner: dict[str, tuple[str, Document, tuple]] = {}
    out: list[Finding] = []
    names: list[tuple[str, Document, tuple]] = []
    for eid, doc in index.entries.items():
        if isinstance(doc.data.get("title"), str):
            names.append((doc.data["title"], doc, ("title",)))
    for eid, doc in index.entries.items():
        for i, alias in enumerate(_list(doc.data, "aliases")):
            if isinstance(alias, str):
                names.append((alias, doc, ("aliases", i)))
    for name, doc, path in names:
        key = normalise(name)
        if key in owner and owner[key][1].id != doc.id:
            other_name, other_doc, other_path = owner[key]
            line, col = doc.loc(*path)
            ol = other_doc.loc(*other_path)[0]
            what = "title" if path == ("title",) else "alias"
            their = "title" if other_path == ("title",) else "alias"
            out.append(Finding(doc.path, line, col, f"{what} '{name}' is already the {their} of '{other_doc.id}' ({other_doc.path}:{ol}); a name may belong to one entry only"))
        elif key not in owner:
            owner[key] = (name, doc, path)
    return out


def validate(docs: list[Document], meanwhile: Callable[[], Any] | None = None, kept: dict | None = None) -> list[Finding]:
    """All findings for a loaded knowledge base (empty when it is valid). `meanwhile`:
    other work for this process while the others check documents (workers.fork_map).
    `kept` (pipeline.Memo.checked, under `atlas serve`): each document's own findings from
    the last run, used again for a document whose text is unchanged while nothing it is
    checked against changed (the ids and kinds of entries, the sources, categories and
    relations): at 1,002 entries an edit no longer waits about 0.3 s for a thousand
    unchanged files to be checked again."""
    from generator.speed.workers import fork_map

    out: list[Finding] = []
    _fast_checks()  # built once, before the workers fork
    _validators()
    index = _Index(docs)
    out += index.duplicates
    if kept is not None:
        context = (frozenset((i, d.kind) for i, d in index.entries.items()), frozenset(index.sources),
                   frozenset(index.categories), repr(index.relations),
                   frozenset((d.path, d.text) for d in index.sources.values()))
        if kept.get(None) != context:
            kept.clear()
            kept[None] = context

    def check(doc: Document) -> list[Finding]:
        """A document's schema and, for an entry (the first of its id), what it refers to."""
        if doc.kind == "measurement":
            return check_measurement(doc, index) + check_text(doc)
        found = check_schema(doc) + check_text(doc)
        if doc.kind == "sources":
            found += check_source_pulls(doc)
        if doc.kind in KINDS and index.entries.get(doc.id) is doc:
            found += check_entry(doc, index) + check_unlinked_aliases(doc) + check_shipped(doc, index.source_data)
        return found

    def across() -> None:
        """The checks that read every document at once, here while the others check documents one by one."""
        formats = lru_cache(maxsize=None)(lambda: format_names(index.entries))
        out.extend(check_aliases(index))
        for doc in docs:
            if doc.kind == "comparisons":
                out.extend(check_comparisons(doc, index))
            if doc.kind == "engine-logs":
                out.extend(check_engine_logs(doc, index))
            if doc.kind == "benchmarks":
                out.extend(check_benchmarks(doc, index, formats()))
            if doc.kind == "engine-flags":
                out.extend(check_engine_flags(doc, index))
        former: dict[str, Document] = {}
        for doc in index.entries.values():
            for i, old in enumerate(_list(doc.data, "former_ids")):
                if old in former:
                    line, col = doc.loc("former_ids", i)
                    out.append(Finding(doc.path, line, col, f"former id '{old}' is also claimed by {former[old].path}"))
                former[old] = doc
        if meanwhile is not None:
            meanwhile()

    if kept is None:
        todo = docs
    else:
        todo = []
        for doc in docs:
            was = kept.get((doc.path, doc.kind, doc.id, index.entries.get(doc.id) is doc))
            if was is not None and was[0] == doc.text:
                out += was[1]
            else:
                todo.append(doc)
    for doc, found in zip(todo, fork_map(check, todo, here=True, meanwhile=across)):  # each document on its own: any core
        out += found
        if kept is not None:
            kept[(doc.path, doc.kind, doc.id, index.entries.get(doc.id) is doc)] = (doc.text, found)
    return sorted(set(out))


@lru_cache(maxsize=None)
def _record_validator() -> Draft202012Validator | None:
    """bench/gpu/record.schema.json, the one schema of the GPU suite's records (the suite's
    tests use it too); None where the generator runs without the repository around it."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / MEASUREMENT_SCHEMA  # generator/kb/validate.py -> the repository
    if not path.is_file():
        return None
    return Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def check_measurement(doc: Document, index: _Index) -> list[Finding]:
    """A GPU suite record: its schema, a file name usable as an id, and the model and
    hardware entries it was measured for."""
    out: list[Finding] = []
    if not ID_RE.match(doc.id):
        out.append(Finding(doc.path, 1, 1, f"file name '{doc.id}.yaml' is not a valid id: use lowercase letters, digits and single hyphens"))
    validator = _record_validator()
    if validator is not None:
        for err in sorted(validator.iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path))):
            out.extend(_explain(doc, err))
        if out:
            return out
    d = doc.data if isinstance(doc.data, dict) else {}
    model = (d.get("model") or {}).get("id") if isinstance(d.get("model"), dict) else None
    if index.kind_of(model) != "model":
        line, col = doc.loc("model", "id")
        out.append(Finding(doc.path, line, col, f"model '{model}' is not a model entry{did_you_mean(str(model), index.entries)}"))
    sheet = d.get("datasheet")
    hw = sheet.get("hardware_id") if isinstance(sheet, dict) else None
    if hw is not None and index.kind_of(hw) != "hardware":
        line, col = doc.loc("datasheet", "hardware_id")
        out.append(Finding(doc.path, line, col, f"hardware '{hw}' is not a hardware entry{did_you_mean(str(hw), index.entries)}"))
    return out
