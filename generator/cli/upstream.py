"""`atlas upstream`: how far each engine's facts lag behind the release that is out.

Each engine entry names where its releases are published (`releases`: a PyPI or npm package,
or a public repository's releases). The command asks those registries for every release and
its date, and compares the newest with the entry's `as_of`: how many releases and how many
days behind it is, most overdue first.

Where the answers come from: PyPI's JSON Simple API (PEP 691, with each file's upload time,
PEP 700) at the index pip is configured with; `npm view NAME time --json`; GitHub's public
releases API. `--answers FILE` reads recorded answers instead (the tests, and a machine with
no network): a JSON object from "pypi:vllm" (or "npm:NAME", "github:OWNER/REPO") to a list of
[version, ISO date] pairs, or to {"error": "why it could not be reached"}.

Exit codes: 0 every engine is within the threshold; 1 one or more engines are behind by
more than --days (default 30); 3 none is behind but some source could not be reached, so
"up to date" cannot be said; 2 bad input (an unreadable --answers file, an unknown engine).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from generator.cli.common import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, _load, _plain, _print_json

EXIT_UNREACHABLE = 3
TIMEOUT_S = 30

Releases = list[tuple[str, dt.date]]


def _version(text: str):
    """A release version PEP 440 can order (leading 'v' dropped), or None: build tags such as
    llama.cpp's b7000 order as numbers, anything else is not a release version."""
    from packaging.version import InvalidVersion, Version

    text = text.strip().lstrip("vV")
    if text[:1] == "b" and text[1:].isdigit():
        text = text[1:]
    try:
        return Version(text)
    except InvalidVersion:
        return None


@functools.lru_cache(maxsize=1)
def _index() -> str:
    """The index pip is configured with (https only), else PyPI's: asked once per run."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "get", "global.index-url"], capture_output=True, text=True, timeout=TIMEOUT_S)
        if out.returncode == 0 and out.stdout.strip().startswith("https://"):
            return out.stdout.strip().rstrip("/")
    except (OSError, subprocess.TimeoutExpired):
        pass
    return "https://pypi.org/simple"


def _pypi(name: str) -> Releases:
    index = _index()
    req = urllib.request.Request(f"{index}/{name}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:  # noqa: S310 (an https index)
        data = json.load(r)
    first: dict[str, dt.date] = {}
    for f in data.get("files", []):
        when = f.get("upload-time")
        version = _file_version(f.get("filename", ""))
        if when and version and not f.get("yanked"):
            day = dt.date.fromisoformat(when[:10])
            first[version] = min(first.get(version, day), day)
    return sorted(first.items(), key=lambda x: x[1])


def _file_version(filename: str) -> str | None:
    """The version a wheel or sdist file carries (packaging's parsers of the standard names)."""
    from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, parse_wheel_filename

    try:
        return str(parse_wheel_filename(filename)[1] if filename.endswith(".whl") else parse_sdist_filename(filename)[1])
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None


def _npm(name: str) -> Releases:
    npm = shutil.which("npm")
    if npm is None:
        raise OSError("npm is not installed")
    out = subprocess.run([npm, "view", name, "time", "--json"], capture_output=True, text=True, timeout=TIMEOUT_S)
    if out.returncode != 0:
        raise OSError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"npm view exited {out.returncode}")
    times = json.loads(out.stdout)
    return sorted(((v, dt.date.fromisoformat(t[:10])) for v, t in times.items() if v not in ("created", "modified")), key=lambda x: x[1])


def _github(repo: str) -> Releases:
    req = urllib.request.Request(f"https://api.github.com/repos/{repo}/releases?per_page=100",
                                 headers={"Accept": "application/vnd.github+json"})
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:  # noqa: S310
        data = json.load(r)
    return sorted(((x["tag_name"], dt.date.fromisoformat(x["published_at"][:10])) for x in data
                   if not x.get("draft") and not x.get("prerelease") and x.get("published_at")), key=lambda x: x[1])


ASK = {"pypi": _pypi, "npm": _npm, "github": _github}


@dataclass
class Row:
    """One engine: its pin, the newest release found, and how far behind the pin is."""

    id: str
    title: str
    pinned: str | None
    pinned_date: str | None
    source: str | None = None  # "pypi:vllm"
    newest: str | None = None
    newest_date: str | None = None
    releases_behind: int | None = None
    days_behind: int | None = None  # days since the first release after the pin came out
    problem: str | None = None  # why it could not be compared
    unreachable: bool = False
    newer: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def compare(e, releases: Releases, source: str, today: dt.date) -> Row:
    as_of = e.get("as_of") or {}
    row = Row(e.id, e.title, as_of.get("version"), as_of.get("date"), source)
    stable = [(v, d) for v, d in releases if (p := _version(v)) is not None and not p.is_prerelease and not p.is_devrelease]
    if not stable:
        row.problem = "no release versions published there"
        return row
    newest = max(stable, key=lambda x: _version(x[0]))
    row.newest, row.newest_date = newest[0], newest[1].isoformat()
    pin = _version(row.pinned or "")
    if pin is None:
        row.problem = f"as_of '{row.pinned}' is not a release version"
        return row
    after = [(v, d) for v, d in stable if _version(v) > pin]
    row.newer = [v for v, _ in sorted(after, key=lambda x: _version(x[0]))]
    row.releases_behind = len(after)
    row.days_behind = (today - min(d for _, d in after)).days if after else 0
    return row


def cmd_upstream(args) -> int:
    atlas = _load(args)
    today = dt.date.fromisoformat(args.today) if args.today else dt.date.today()
    answers = None
    if args.answers:
        try:
            answers = json.loads(Path(args.answers).read_text(encoding="utf-8"))
            if not isinstance(answers, dict):
                raise ValueError("the top level is not an object")
        except (OSError, ValueError) as exc:
            print(f"atlas upstream: --answers {args.answers}: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    engines = sorted(atlas.of_kind("engine"), key=lambda e: e.id)
    if args.engine:
        known = {e.id for e in engines}
        unknown = [x for x in args.engine if x not in known]
        if unknown:
            print(f"atlas upstream: unknown engine {', '.join(unknown)}; known: {', '.join(sorted(known))}", file=sys.stderr)
            return EXIT_BAD_INPUT
        engines = [e for e in engines if e.id in args.engine]
    rows = []
    for e in engines:
        where = e.get("releases") or []
        if not where:
            continue
        got, errors = None, []
        for w in where:  # the first source that answers
            key = f"{w['registry']}:{w['name']}"
            try:
                if answers is not None:
                    a = answers.get(key)
                    if a is None or isinstance(a, dict):
                        raise OSError((a or {}).get("error") or "no recorded answer")
                    got = (key, [(v, dt.date.fromisoformat(d)) for v, d in a])
                else:
                    got = (key, ASK[w["registry"]](w["name"]))
                break
            except (OSError, ValueError, KeyError, subprocess.TimeoutExpired) as exc:
                errors.append(f"{key}: {exc}")
        if got is None:
            as_of = e.get("as_of") or {}
            rows.append(Row(e.id, e.title, as_of.get("version"), as_of.get("date"), problem="; ".join(errors), unreachable=True))
        else:
            rows.append(compare(e, got[1], got[0], today))
    rows.sort(key=lambda r: (-(r.days_behind or 0), -(r.releases_behind or 0), r.id))
    behind = [r for r in rows if (r.days_behind or 0) > args.days]
    code = EXIT_FINDINGS if behind else EXIT_UNREACHABLE if any(r.unreachable for r in rows) else EXIT_OK
    if args.json:
        _print_json({"today": today.isoformat(), "threshold_days": args.days, "behind": [r.id for r in behind],
                     "unreachable": [r.id for r in rows if r.unreachable], "engines": [r.as_dict() for r in rows]})
        return code
    print(f"{'engine':26} {'as_of':22} {'newest':26} {'behind':>8} {'days':>5}")
    for r in rows:
        pin = f"{r.pinned or '-'}" + (f" ({r.pinned_date})" if r.pinned_date else "")
        new = f"{r.newest} ({r.newest_date})" if r.newest else "-"
        print(f"{_plain(r.title)[:26]:26} {pin[:22]:22} {new[:26]:26} {r.releases_behind if r.releases_behind is not None else '-':>8} "
              f"{r.days_behind if r.days_behind is not None else '-':>5}" + (f"  {r.problem}" if r.problem else ""))
    print(f"\n{len(behind)} of {len(rows)} engines behind their newest release by more than {args.days} days"
          + (f"; {sum(r.unreachable for r in rows)} could not be asked" if any(r.unreachable for r in rows) else ""))
    return code
