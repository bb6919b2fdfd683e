"""The stages in order, for the CLI, the MkDocs plugin and the tests to share."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from generator.kb.findings import AtlasError
from generator.kb.load import load_tree
from generator.kb.model import Atlas, build_model
from generator.kb.validate import validate

if TYPE_CHECKING:
    from generator.knowledge.link import Linker


def find_root(start: Path | None = None) -> Path:
    """The repository root: the nearest folder upwards that holds glossary/."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "glossary").is_dir():
            return folder
    return here


def load_atlas(root: Path) -> Atlas:
    """Load and validate everything; raise AtlasError with every problem, or return the model."""
    return _load(Path(root)).atlas


class Loaded(NamedTuple):
    atlas: Atlas
    linker: Linker  # the term index: every entry's title and aliases
    covered: set[str]  # every name and word of a name (undefined.covered_names)


class Memo:
    """What `atlas serve` keeps from one rebuild to the next, so that an edit re-does only
    what it changed: each file's parsed document (by its bytes) and each body's scan (by
    its text, while no title or alias changes). Measured on the real knowledge
    base, the two save about half of the generator's time per edit (docs/benchmark-serve.md)."""

    def __init__(self) -> None:
        self.parsed: dict = {}  # (path, kind) -> (bytes, (document, findings)): load.read_file
        self.fresh: set[str] = set()  # the files parsed anew by the last load: what the author changed
        self.scans: dict[str, tuple[str, "Scan"]] = {}  # entry id -> (body, scan)
        self.scan_key: tuple | None = None  # the term index and names the scans were made with
        self.checked: dict = {}  # (path, kind, id, first of its id) -> (text, findings): validate's own checks of each document


def _load(root: Path, memo: Memo | None = None) -> Loaded:
    """The load, validate and model stages. The model and the term index are built on
    this core while the others validate documents (they need one core, and the documents
    are read-only), and thrown away if validation fails."""
    from generator.knowledge.link import Linker
    from generator.speed.timing import stage
    from generator.kb.undefined import covered_names

    ahead: list[Loaded] = []

    def model() -> None:
        atlas = build_model(docs)
        ahead.append(Loaded(atlas, Linker.from_atlas(atlas), covered_names(atlas)))

    def prepare() -> None:
        try:
            model()
        except Exception:  # noqa: BLE001 - documents that validation is about to refuse
            pass

    with stage("load"):
        docs, findings = load_tree(root, memo)
    with stage("validate"):
        findings += validate(docs, meanwhile=prepare, kept=memo.checked if memo is not None else None)
        errors = [f for f in findings if f.severity == "error"]
        if errors:
            raise AtlasError(errors)
    with stage("model"):
        if not ahead:  # a model that valid documents cannot make is a bug: raised here
            model()
        warned = tuple(sorted(f for f in findings if f.severity != "error"))
        if warned:  # kept with the model, so that atlas check shows them beside the author findings
            import dataclasses

            return ahead[0]._replace(atlas=dataclasses.replace(ahead[0].atlas, warnings=warned))
        return ahead[0]


def mentions(atlas: Atlas, linker=None) -> dict[str, list[str]]:
    """For each entry, the entries its prose names (explicit [[links]] and plain mentions)."""
    return {eid: scan.named for eid, scan in scan_bodies(atlas, linker).items()}


class Scan(NamedTuple):
    """What one reading of an entry's body finds."""

    named: list[str]  # the entries it names (the graph's mentions)
    found: list[tuple[int, int, str]]  # where each mention its page may link is (link.scan_body)
    terms: set[str] | None  # the terms it uses that no entry names (undefined.used_terms), if asked for


def scan_bodies(atlas: Atlas, linker=None, covered: set[str] | None = None, meanwhile=None,
                memo: Memo | None = None) -> dict[str, Scan]:
    """Read every entry's body once, on every core: the graph's mentions and the page's
    term links come from the same reading, and (given `covered`, the names
    undefined.covered_names lists) the check stage's undefined terms too. `meanwhile`:
    work for this process while the others read (workers.fork_map)."""
    from generator.knowledge.link import WORD_RE, Linker
    from generator.knowledge.link_markdown import scan_body
    from generator.kb.undefined import used_terms
    from generator.speed.workers import fork_map

    linker = linker or Linker.from_atlas(atlas)

    def scan(e) -> Scan:
        named, found = scan_body(e.body, linker)
        named.discard(e.id)
        return Scan(sorted(named), found, used_terms(e.body, covered) if covered is not None else None)

    entries = list(atlas.entries.values())
    if memo is None:
        return {e.id: r for e, r in zip(entries, fork_map(scan, entries, min_items=500, here=True, meanwhile=meanwhile))}
    # A scan depends on the names and the entries they point to, not on what a link's hover
    # card says: a changed short or category keeps every scan. A changed title or alias can
    # change the scan only of a body that holds all of its words (a match or a plural needs
    # them written), so only those are read again: at 1,002 entries, reading every body
    # again cost about 0.3 s of the edit's wait.
    key = (frozenset((name, t.id) for name, t in linker.names), frozenset(covered) if covered is not None else None)
    if memo.scan_key is not None and memo.scan_key != key:
        (names, cov), (old_names, old_cov) = key, memo.scan_key
        if (cov is None) != (old_cov is None):
            memo.scans = {}
        else:
            # a name can match, or stop matching, only where every one of its words is written
            # (plurals extend the last); a term's coverage changes only where the term is written
            changed = {tuple(w.casefold() for w in WORD_RE.findall(name)) for name, _ in names ^ old_names}
            changed |= {(w.casefold(),) for w in cov ^ old_cov} if cov is not None else set()

            def affected(body: str) -> bool:
                text = body.casefold()
                return any(all(w in text for w in words) for words in changed)

            memo.scans = {i: kept for i, kept in memo.scans.items() if not affected(kept[0])}
    memo.scan_key = key
    if meanwhile is not None:
        meanwhile()
    out = {}
    for e in entries:
        kept = memo.scans.get(e.id)
        if kept is None or kept[0] != e.body:
            kept = memo.scans[e.id] = (e.body, scan(e))
        out[e.id] = kept[1]
    return out


def _allowed(root: Path) -> dict:
    """graph/allowed.yaml: what authors accepted, each with a reason."""
    import yaml

    path = Path(root) / "graph" / "allowed.yaml"
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.exists() else {}


def undefined_findings(root: Path, atlas: Atlas, used: dict[str, set[str]] | None = None) -> list:
    """Terms that several entries use and none defines: errors unless allowed with a reason.
    `used`: each entry's terms, if its body was read already (scan_bodies)."""
    from generator.kb.findings import Finding
    from generator.kb.undefined import first_line, undefined_terms

    allowed = _allowed(root).get("undefined") or {}
    found = undefined_terms(atlas, used=used)
    out = [Finding("graph/allowed.yaml", 1, 1, f"'{t}' is listed under undefined but is no longer used undefined by "
                   f"several entries; remove it", severity="warning") for t in sorted(set(allowed) - set(found))]
    for term, users in found.items():
        if term in allowed:
            continue
        e = atlas.entries[users[0]]
        line, col = first_line((Path(root) / e.path).read_text(encoding="utf-8"), term)
        shown = ", ".join(users[:5]) + (f" and {len(users) - 5} more" if len(users) > 5 else "")
        out.append(Finding(e.path, line, col, f"'{term}' is used by {len(users)} entries ({shown}) but no entry defines it; "
                           f"write an entry or add it as an alias, or list it under undefined in graph/allowed.yaml with a reason"))
    return out


def graph_findings(root: Path, atlas: Atlas, g) -> list:
    """What the graph shows authors: orphans (errors unless allowed with a reason in
    graph/allowed.yaml) and entries reached only through prose mentions (warnings)."""

    from generator.kb.findings import Finding
    from generator.knowledge.graph import mention_only, orphans

    allowed = _allowed(root).get("orphans") or {}
    out = []
    for eid in orphans(g):
        if eid not in allowed:
            e = atlas.entries[eid]
            out.append(Finding(e.path, 1, 1, f"'{eid}' has no relation and nothing links to it; add a relation, "
                               f"or list it under orphans in graph/allowed.yaml with a reason"))
    for eid in mention_only(g):
        e = atlas.entries[eid]
        out.append(Finding(e.path, 1, 1, f"'{eid}' is reached only through mentions in prose; consider a typed relation",
                           severity="warning"))
    return out


def author_findings(root: Path, atlas: Atlas, g, used: dict[str, set[str]] | None = None) -> list:
    """Everything `atlas check` and the build report beyond the entries themselves: the
    graph's findings, terms used but not defined, unknown links or citations in the
    handwritten pages, and a short that contradicts its engine's status. `used`: as for
    undefined_findings."""
    from generator.kb.freshness import contradictions
    from generator.pages.handwritten import check_docs

    return (graph_findings(root, atlas, g) + undefined_findings(root, atlas, used) + check_docs(root, atlas)
            + contradictions(atlas, root) + list(atlas.warnings))


def build(root: Path, memo: Memo | None = None):
    """The model, every generated file, and the term linker that pages are linked with:
    load, validate, model, graph, check, emit. Returns (atlas, files, linker)."""
    from generator.speed.timing import no_collections, stage

    with no_collections():
        emitter = prepare(Path(root), memo)
        with stage("emit"):
            return emitter.atlas, emitter.files(), emitter.linker


def prepare(root: Path, memo: Memo | None = None):
    """Every stage before emit (load, validate, model, graph, check), ending in the
    emit.Emitter that writes any page of the build. Raises AtlasError."""
    from generator.emit import Emitter
    from generator.knowledge.graph import add_mentions, typed_graph
    from generator.speed.timing import stage

    atlas, linker, covered = _load(root, memo)  # the load, validate and model stages
    with stage("graph"):
        typed = []  # the entries and their declared relations: built here while the others read bodies
        scans = scan_bodies(atlas, linker, covered, meanwhile=lambda: typed.append(typed_graph(atlas)), memo=memo)
        g = add_mentions(typed[0], {eid: scan.named for eid, scan in scans.items()})
    with stage("check"):
        used = {eid: scan.terms for eid, scan in scans.items()}
        errors = [f for f in author_findings(root, atlas, g, used) if f.severity == "error"]
        if errors:
            raise AtlasError(errors)
    with stage("emit"):
        return Emitter(atlas, g, linker, {eid: scan.found for eid, scan in scans.items()})


def build_site_files(root: Path) -> dict[str, str]:
    return build(root)[1]
