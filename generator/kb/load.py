"""Stage 1 — load: read every YAML file of the knowledge base, keeping the place of each node.

YAML is composed into nodes (libyaml's CSafeLoader where present) and converted by hand so
that every value and every key keeps its line and column: a later stage that finds a
problem with `relations.uses[2]` can point at the exact spot. The loader refuses what the
knowledge base never needs and an attacker would use: anchors and aliases (the
billion-laughs bomb), merge keys, duplicate keys, files over a size limit, files that are
not UTF-8, and symlinks that lead outside the repository.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from generator.kb.kinds import KIND_DIRS
from generator.kb.findings import Finding

try:  # libyaml is several times faster; fall back to the pure-Python parser.
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

MAX_FILE_BYTES = 512 * 1024
"""No entry needs more than a few KB; a larger file is a mistake or an attack."""

Loc = tuple[int, int]  # 1-based (line, column)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

RESERVED_CHARS = "\ufdd0\ufdd1\ufdd2\ufdd3\ufdd4\ufdd5\ufdd6"
"""The noncharacters the generator marks term mentions with (link.MARK_OPEN and
link.CAND_OPEN, with their partners) and the body's place in an entry page
(emit._BODY_SLOT): no file may contain them, so no text can forge a mark."""


@dataclass
class Document:
    """One YAML file: its data as plain Python values and the place of every node.

    Places are worked out from the source the first time a check asks for one (only to
    report a problem), not at load: a valid knowledge base never needs them, and 10,000
    documents' worth would have to be copied back from the workers that parse them."""

    path: str  # relative to the repository root, with forward slashes
    kind: str  # term, engine, hardware, model, guide, sources, categories, relations
    data: Any
    text: str = ""  # the source

    @cached_property
    def _places(self) -> "_Places":
        places = _Places()
        node = yaml.compose(self.text, Loader=_Loader) if self.text else None
        if node is not None:
            _convert(node, (), places, set())
        return places

    @property
    def locs(self) -> dict[tuple, Loc]:
        """Value locations by key path."""
        return self._places.locs

    @property
    def key_locs(self) -> dict[tuple, Loc]:
        """Key locations by key path."""
        return self._places.key_locs

    @property
    def block_scalars(self) -> set[tuple]:
        """Paths of `|` and `>` scalars."""
        return self._places.block_scalars

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @property
    def id(self) -> str:
        """The file name without its extension, as Path(path).stem (without building a
        Path: the checks ask for it tens of thousands of times)."""
        name = self.path.rpartition("/")[2]
        dot = name.rfind(".")
        return name[:dot] if 0 < dot < len(name) - 1 else name

    def loc(self, *path: Any, key: bool = False) -> Loc:
        """Location of the node at `path`, or of its nearest existing parent."""
        table = self.key_locs if key else self.locs
        p = tuple(path)
        while p:
            if p in table:
                return table[p]
            if key and p in self.locs:
                return self.locs[p]
            p = p[:-1]
        return self.locs.get((), (1, 1))

    def text_loc(self, path: tuple, offset: int, text: str) -> Loc:
        """Location of character `offset` inside the string scalar at `path`."""
        line, col = self.loc(*path)
        before = text[:offset]
        extra = before.count("\n")
        in_line = len(before) - (before.rfind("\n") + 1)
        if path in self.block_scalars:
            src_line = line + 1 + extra
            source = self.lines[src_line - 1] if src_line <= len(self.lines) else ""
            indent = len(source) - len(source.lstrip(" "))
            return src_line, indent + in_line + 1
        if extra:
            return line + extra, 1 + in_line
        return line, col + len(before)


@dataclass
class _Places:
    locs: dict[tuple, Loc] = field(default_factory=dict)
    key_locs: dict[tuple, Loc] = field(default_factory=dict)
    block_scalars: set[tuple] = field(default_factory=set)


class _Refused(Exception):
    def __init__(self, node: yaml.Node, message: str):
        self.node = node
        self.message = message


_SCALAR_LOADER = yaml.SafeLoader("")
_COLLECTION_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})


def _convert(node: yaml.Node, path: tuple, places: _Places | None, seen: set[int]) -> Any:
    """The node as plain values, refusing what the knowledge base does not allow; with
    `places`, recording where each node and key is."""
    if id(node) in seen:
        raise _Refused(node, "YAML anchors and aliases are not allowed in the knowledge base; write the value out")
    seen.add(id(node))
    if places is not None:
        places.locs[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.tag not in _COLLECTION_TAGS:
        raise _Refused(node, f"YAML tag '{node.tag}' is not allowed; write a plain mapping or list")
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise _Refused(key_node, "a mapping key must be a plain string")
            key = key_node.value
            if key == "<<":
                raise _Refused(key_node, "YAML merge keys ('<<') are not allowed; write the keys out")
            if key in out:
                first = next(k for k, _ in node.value if isinstance(k, yaml.ScalarNode) and k.value == key)
                raise _Refused(key_node, f"duplicate key '{key}' (first at line {first.start_mark.line + 1})")
            if places is not None:
                places.key_locs[path + (key,)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            out[key] = _convert(value_node, path + (key,), places, seen)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, path + (i,), places, seen) for i, item in enumerate(node.value)]
    if node.tag == "tag:yaml.org,2002:timestamp":
        return node.value  # dates stay ISO strings; the schemas check their shape
    if node.tag == "tag:yaml.org,2002:bool" and node.value.lower() not in ("true", "false"):
        return node.value  # YAML 1.1 reads yes/no/on/off as booleans; here they are words
    if places is not None and node.style in ("|", ">"):
        places.block_scalars.add(path)
    if node.tag == "tag:yaml.org,2002:str":
        return node.value  # most scalars: the text as written (what the constructor would return)
    if node.tag not in _PLAIN_TAGS:
        raise _Refused(node, f"YAML tag '{node.tag.replace('tag:yaml.org,2002:', '!!')}' is not allowed; "
                             f"write a plain value (text, number, true/false)")
    value = _SCALAR_LOADER.construct_object(node)
    _SCALAR_LOADER.constructed_objects.clear()
    if type(value) is float and not math.isfinite(value):
        raise _Refused(node, f"'{node.value}' is not a finite number; write the figure itself")
    return value


# Scalars the knowledge base may hold; anything else (!!python/name:..., !custom, !!binary)
# is refused with its place rather than handed to a constructor.
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "null"))


def parse(text_or_bytes: str | bytes, path: str, kind: str) -> tuple[Document | None, list[Finding]]:
    """Parse one file's content. Returns the document, or None with the reasons."""
    if isinstance(text_or_bytes, bytes):
        raw = text_or_bytes
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
            return None, [Finding(path, line, col, f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save it as UTF-8")]
    else:
        text = text_or_bytes.lstrip("\ufeff")
    if not text.strip():
        return None, [Finding(path, 1, 1, "file is empty; an entry needs at least title, short, body and sources")]
    for reserved in RESERVED_CHARS:
        if reserved in text:
            at = text.index(reserved)
            line = text.count("\n", 0, at) + 1
            col = at - (text.rfind("\n", 0, at) + 1) + 1
            return None, [Finding(path, line, col, f"character U+{ord(reserved):04X} is a Unicode noncharacter, which the "
                                  f"generator reserves for marking term links; delete it")]
    bad = _CONTROL_RE.search(text)
    if bad:  # YAML would refuse it too, but without saying where
        at = bad.start()
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        return None, [Finding(path, line, col, f"control character U+{ord(bad.group()):04X} in the file; delete it "
                                               f"(write a line break or a tab as itself)")]
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = exc.problem or exc.context or "invalid YAML"
        return None, [Finding(path, line, col, f"YAML syntax error: {what}")]
    except yaml.YAMLError as exc:
        return None, [Finding(path, 1, 1, f"YAML syntax error: {exc}")]
    if node is None:
        return None, [Finding(path, 1, 1, "file has no content; an entry needs at least title, short, body and sources")]
    doc = Document(path=path, kind=kind, data=None, text=text)
    try:
        doc.data = _convert(node, (), None, set())
    except _Refused as exc:
        m = exc.node.start_mark
        return None, [Finding(path, m.line + 1, m.column + 1, exc.message)]
    except RecursionError:
        return None, [Finding(path, 1, 1, "YAML nesting is too deep")]
    if kind in ("comparisons", "engine-logs"):
        if not isinstance(doc.data, list):
            return None, [Finding(path, 1, 1, f"{kind}.yaml must be a list of items, each a mapping")]
    elif not isinstance(doc.data, dict):
        return None, [Finding(path, 1, 1, f"top level must be a mapping of keys to values, not a {type(doc.data).__name__}")]
    return doc, []


def read_file(file: Path, root: Path, kind: str, rel: str | None = None,
              symlink: bool | None = None) -> tuple[Document | None, list[Finding]]:
    """Read and parse one file with the size, symlink and encoding guards. `rel`: its
    path relative to `root`, and `symlink`: whether it is one, if the caller knows (the
    folder listing does: no system call per file to ask again)."""
    if rel is None:
        rel = file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file)
    if file.is_symlink() if symlink is None else symlink:
        try:
            target = file.resolve(strict=True)
        except (OSError, RuntimeError) as exc:  # a loop of links, or a link to nothing
            why = "a loop of symlinks" if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == 40 else "a broken symlink"
            return None, [Finding(rel, 1, 1, f"{why}; replace the link with the file itself")]
        if not target.is_relative_to(root.resolve()):
            return None, [Finding(rel, 1, 1, f"symlink points outside the repository ({target}); copy the file in instead")]
    try:
        with open(file, "rb") as handle:  # read no more than the limit allows, whatever the file's size
            data = handle.read(MAX_FILE_BYTES + 1)
            size = os.fstat(handle.fileno()).st_size if len(data) > MAX_FILE_BYTES else len(data)
    except OSError as exc:
        return None, [Finding(rel, 1, 1, f"cannot read file: {exc.strerror}")]
    if size > MAX_FILE_BYTES:
        return None, [Finding(rel, 1, 1, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} (split it or shorten the body)")]
    return parse(data, rel, kind)


def _read_kept(memo, root: Path, file: Path, kind: str, rel: str, link: bool | None):
    """read_file, parsing only files whose bytes differ from the last time (under `atlas serve`)."""
    try:
        if link or file.stat().st_size > MAX_FILE_BYTES:
            return read_file(file, root, kind, rel, link)
        data = file.read_bytes()
    except OSError:
        return read_file(file, root, kind, rel, link)
    kept = memo.parsed.get((rel, kind))
    if kept is not None and kept[0] == data:
        return kept[1]
    memo.fresh.add(rel)
    made = memo.parsed[(rel, kind)] = (data, read_file(file, root, kind, rel, link))
    return made[1]


def entry_files(root: Path) -> list[tuple[Path, str, str, bool | None]]:
    """Every file the knowledge base consists of, with its kind, its path relative to the
    root (with forward slashes) and whether it is a symlink (None: not looked at), in a
    stable order."""
    files: list[tuple[Path, str, str, bool | None]] = []
    for kind, folder in KIND_DIRS.items():
        files += [(p, kind, rel, link) for p, rel, link in _listed(root, f"glossary/{folder}")]
    if (root / "glossary/sources.yaml").exists():
        files.append((root / "glossary/sources.yaml", "sources", "glossary/sources.yaml", None))
    files += [(p, "sources", rel, link) for p, rel, link in _listed(root, "glossary/sources")]
    # Speeds others published (issue 46): rows beside the ceilings, and what expected speed is calibrated on.
    files += [(p, "benchmarks", rel, link) for p, rel, link in _listed(root, BENCHMARKS_DIR)]
    # The launch flags each engine's pinned release accepts (issue 47): generated commands are checked against them.
    files += [(p, "engine-flags", rel, link) for p, rel, link in _listed(root, "glossary/engine-flags")]
    for rel, kind in (("glossary/categories.yaml", "categories"), ("glossary/comparisons.yaml", "comparisons"),
                      ("glossary/engine-logs.yaml", "engine-logs"),
                      ("graph/relations.yaml", "relations")):
        if (root / rel).exists():
            files.append((root / rel, kind, rel, None))
    # The GPU suite's records (bench/gpu/README.md): each is a source the pages cite as
    # measured by this project, and its figures stand beside the computed ceilings.
    files += [(p, "measurement", rel, link) for p, rel, link in _listed(root, MEASUREMENTS_DIR)]
    return files


MEASUREMENTS_DIR = "bench/gpu/results"
BENCHMARKS_DIR = "glossary/benchmarks"
MEASUREMENT_SCHEMA = "bench/gpu/record.schema.json"


def measurement_source_id(record_id: str) -> str:
    """The source id of a record (its file name without .yaml): what entries cite."""
    return f"measured-{record_id}"


def _listed(root: Path, folder: str) -> list[tuple[Path, str, bool]]:
    """The files (and symlinks) in a folder under root, by name, each with its path
    relative to root and whether it is a symlink; none if it is not a folder."""
    try:
        found = [(e.name, e.is_symlink()) for e in os.scandir(root / folder) if e.is_symlink() or e.is_file()]  # a link first: is_file follows it, into a loop perhaps
    except (FileNotFoundError, NotADirectoryError):
        return []
    base = root / folder
    return [(base / name, f"{folder}/{name}", link) for name, link in sorted(found)]


def load_tree(root: Path, memo=None) -> tuple[list[Document], list[Finding]]:
    """Load every file under glossary/ and graph/. Collects all problems; never raises.
    `memo` (pipeline.Memo, under `atlas serve`): a file whose bytes have not changed since
    the last load is not parsed again, and memo.fresh names those that were."""
    from generator.speed.workers import fork_map

    root = Path(root)
    docs: list[Document] = []
    findings: list[Finding] = []
    yaml_files = []
    for file, kind, rel, link in entry_files(root):
        if file.suffix != ".yaml":
            if file.name.startswith(".") or file.suffix in (".md", ".txt"):
                continue
            findings.append(Finding(rel, 1, 1, f"unexpected file '{file.name}'; entries are '<id>.yaml' files"))
            continue
        yaml_files.append((file, kind, rel, link))
    read = (lambda f: read_file(f[0], root, f[1], f[2], f[3])) if memo is None else (lambda f: _read_kept(memo, root, *f))
    if memo is not None:
        memo.fresh = set()
    for doc, problems in fork_map(read, yaml_files, here=True):  # any core, same order
        findings += problems
        if doc is not None:
            docs.append(doc)
    for required in ("glossary/sources.yaml", "glossary/categories.yaml", "graph/relations.yaml"):
        if not (root / required).exists():
            findings.append(Finding(required, 1, 1, "required file is missing"))
    return docs, findings
