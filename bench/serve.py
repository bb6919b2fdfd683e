"""Authoring benchmark: how long an author waits, under `make serve`, between saving an
entry and seeing it served, beside a clean build of the same sources.

    python -m bench.serve [--sizes real 1000] [--runs 5] [--page docs/benchmark-serve.md]

For the real knowledge base (a copy) and a synthetic one of 1,000 entries
(generator.bench.make_corpus), it
- times a clean `mkdocs build --strict` (`--runs` times; and with page rendering in one
  process, ATLAS_WORKERS=1, to show what the forked workers buy);
- starts `atlas serve` and, `--runs` times, appends a marker sentence to one entry's body
  and polls the entry's page over HTTP every 10 ms until the marker is there: the time
  from the write to the first response that has it. The server's log gives, for the same
  edit, when the rest of the site was up to date and how many pages it rendered again;
- does the same for an edit to a short (every link to the entry carries it on its hover
  card) and, once, a title (which can change links anywhere, so every page is rendered);
- times the generator's stages for one edit with and without what `atlas serve` keeps
  between edits (parsed files, scanned bodies, the graph layout).

No pass/fail: the numbers go to the page, with medians and ranges.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import date
from pathlib import Path

from bench.build import PROJECT_DIRS, REPO, make_corpus

BIN = Path(sys.executable).parent
DONE = re.compile(r"(\d+) page\(s\) rendered again, (\d+) with new hover cards; edited page\(s\) written after ([\d.]+) s, "
                  r"all after ([\d.]+) s")


def _real(dest: Path) -> tuple[Path, str]:
    if dest.exists():
        shutil.rmtree(dest)
    for name in ("glossary", *PROJECT_DIRS):
        shutil.copytree(REPO / name, dest / name)
    shutil.copytree(REPO / "bench/gpu/results", dest / "bench/gpu/results")  # measurements entries cite
    shutil.copy(REPO / "mkdocs.yml", dest / "mkdocs.yml")
    return dest / "glossary" / "terms" / "kv-cache.yaml", "glossary/kv-cache/"


def _synthetic(dest: Path, n: int) -> tuple[Path, str]:
    make_corpus(dest, n)
    entry = sorted((dest / "glossary" / "terms").glob("*.yaml"))[0]
    return entry, f"glossary/{entry.stem}/"


def _body_edit(text: str, marker: str) -> tuple[str, str]:
    """(old, new): `marker` put at the start of the body, whether a block or a quoted scalar."""
    m = re.search(r"^body: (\|\n  |')", text, re.M)
    assert m, "the entry has no body written as a block or a quoted string"
    return m.group(0), f"{m.group(0)}{marker} "


def _clean_builds(root: Path, runs: int, workers: str | None = None) -> list[float]:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", **({"ATLAS_WORKERS": workers} if workers else {}))
    out = []
    for _ in range(runs):
        site = root.parent / "bench-clean-site"
        t = time.perf_counter()
        subprocess.run([str(BIN / "mkdocs"), "build", "-q", "--strict", "--site-dir", str(site)], cwd=root, env=env,
                       check=True, capture_output=True)
        out.append(time.perf_counter() - t)
        shutil.rmtree(site)
    return out


class _Server:
    """`atlas serve` in a subprocess, its log read line by line."""

    def __init__(self, root: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.lines: list[str] = []
        started = time.perf_counter()
        self.proc = subprocess.Popen([str(BIN / "atlas"), "--root", str(root), "serve", "--port", str(self.port),
                                      "--site-dir", str(root.parent / "bench-serve-site")],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        while True:
            try:
                self.get("")
                break
            except OSError:
                if self.proc.poll() is not None or time.perf_counter() - started > 600:
                    raise SystemExit("atlas serve did not start:\n" + "".join(self.lines[-30:]))
                time.sleep(0.1)
        self.startup = time.perf_counter() - started

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    def get(self, path: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/{path}", timeout=120) as r:
            return r.read().decode("utf-8")

    def edit(self, file: Path, old: str, new: str, page: str, marker: str, wait_rest: bool = True) -> dict:
        """Write the edit, poll `page` until `marker` is served, then (unless `wait_rest` is
        off: an author saving again at once) wait for the log line that says the rest is done."""
        seen = len(self.lines)
        text = file.read_text(encoding="utf-8")
        assert old in text, (file, old)
        file.write_text(text.replace(old, new, 1), encoding="utf-8")
        t = time.perf_counter()
        while marker not in self.get(page):
            if time.perf_counter() - t > 600:
                raise SystemExit("the edit never showed:\n" + "".join(self.lines[-30:]))
            time.sleep(0.01)
        shown = time.perf_counter() - t
        print(f"  edit shown after {shown:.2f} s", file=sys.stderr)
        if not wait_rest:
            return {"shown_s": shown}
        while True:
            done = [m for line in self.lines[seen:] if (m := DONE.search(line))]
            if done:
                pages, patched, first, rest = done[-1].groups()
                return {"shown_s": shown, "first_s": float(first), "all_s": float(rest), "pages": int(pages),
                        "patched": int(patched)}
            if time.perf_counter() - t > 600:
                raise SystemExit("the rebuild never finished:\n" + "".join(self.lines[-30:]))
            time.sleep(0.05)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _generator_per_edit(root: Path, entry: Path, runs: int) -> dict:
    """The generator's stages for one body edit: from scratch, and with what serve keeps."""
    from generator.knowledge import graph
    from generator.speed import workers
    from generator.pipeline import Memo, prepare

    workers.serial_only = True  # as under serve
    text = entry.read_text(encoding="utf-8")
    cold, warm = [], []
    memo = Memo()
    prepare(root, memo).files()
    for i in range(runs):
        entry.write_text(text.replace(*_body_edit(text, f"Generator edit {i}."), 1), encoding="utf-8")
        graph._last_layout.clear()
        t = time.perf_counter()
        prepare(root).files()
        cold.append(time.perf_counter() - t)
        prepare(root, memo)  # the layout of this shape is kept again, as in a server that saw the last edit
        entry.write_text(text.replace(*_body_edit(text, f"Generator edit {i} again."), 1), encoding="utf-8")
        t = time.perf_counter()
        prepare(root, memo).files()
        warm.append(time.perf_counter() - t)
    entry.write_text(text, encoding="utf-8")
    return {"cold": cold, "warm": warm}


def measure(size: str, workdir: Path, runs: int) -> dict:
    root = workdir / f"serve-{size}" / "repo"
    root.parent.mkdir(parents=True, exist_ok=True)
    entry, page = _real(root) if size == "real" else _synthetic(root, int(size))
    entries = sum(1 for _ in (root / "glossary").rglob("*.yaml")) - 2
    print(f"[{size}] clean builds", file=sys.stderr)
    clean = _clean_builds(root, runs)
    serial = _clean_builds(root, max(1, min(3, runs)), workers="1")
    print(f"[{size}] generator per edit", file=sys.stderr)
    gen = _generator_per_edit(root, entry, runs)
    print(f"[{size}] atlas serve", file=sys.stderr)
    server = _Server(root)
    try:
        server.get(page)
        body = [server.edit(entry, *_body_edit(entry.read_text(encoding="utf-8"), f"Benchmark marker {i}."), page,
                            f"Benchmark marker {i}.") for i in range(runs)]
        short = []
        for i in range(max(1, min(3, runs))):
            text = entry.read_text(encoding="utf-8")
            m = re.search(r"^short: (>-\n  )?(\S+)", text, re.M)  # its first word swapped: the length stays within the limit
            old = m.group(0)
            short.append(server.edit(entry, old, old[:-len(m.group(2))] + f"Shortmark{i}", page, f"Shortmark{i}"))
        # Saves in quick succession: each the moment the previous one shows, while the rest of
        # the site is still being rebuilt (the newer edit stops that rest and comes first).
        quick = [server.edit(entry, *_body_edit(entry.read_text(encoding="utf-8"), f"Quick marker {i}."), page,
                             f"Quick marker {i}.", wait_rest=i == runs - 1) for i in range(runs)]
        m = re.search(r"^title: (.*)$", entry.read_text(encoding="utf-8"), re.M)
        title = server.edit(entry, m.group(0), f"title: {m.group(1)} renamed", page, f"{m.group(1)} renamed")
    finally:
        server.stop()
    return {"size": size, "entries": entries, "clean": clean, "serial": serial, "startup": server.startup,
            "body": body, "short": short, "quick": quick, "title": title, "generator": gen}


def _med(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f}"


def _span(xs: list[float]) -> str:
    return f"{min(xs):.2f}–{max(xs):.2f}" if len(xs) > 1 else "one run"


def _cell(xs: list[float]) -> str:
    """A table cell: the median, then the range."""
    return f"{_med(xs)} ({_span(xs)})"


def _name(r: dict) -> str:
    return "real" if r["size"] == "real" else f"synthetic {r['entries']:,}"


def report(results: list[dict], runs: int) -> str:
    out = ["---", "title: Authoring benchmark",
           "description: How long an author waits under make serve between saving an entry and seeing it, beside a clean build.",
           "---", "", "# Authoring benchmark", "",
           "How long an author waits, under `make serve`, between saving an entry and seeing the",
           "page served, beside a clean build of the same sources. Made by",
           "`make bench-serve` (`bench/serve.py`); no test times anything.", "",
           f"Measured on {date.today().isoformat()}, on {platform.machine()}, {os.cpu_count()} cores, "
           f"Python {platform.python_version()}; medians of {runs} runs, with the range.", "",
           "| knowledge base | clean build (s) | edit → page served (s) | … rest of the site (s) | pages rendered again | page ÷ clean build |",
           "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        name = "real" if r["size"] == "real" else "synthetic"
        shown = [b["shown_s"] for b in r["body"]]
        rest = [b["all_s"] for b in r["body"]]
        pages = statistics.median(b["pages"] for b in r["body"])
        out.append(f"| {name}, {r['entries']:,} files | {_med(r['clean'])} ({_span(r['clean'])}) | "
                   f"{_med(shown)} ({_span(shown)}) | {_med(rest)} ({_span(rest)}) | {pages:g} | "
                   f"{statistics.median(shown) / statistics.median(r['clean']):.3f} |")
    out += ["", "*Edit → page served*: a marker sentence is appended to one entry's body and the entry's",
            "page is fetched over HTTP every 10 ms until it has the marker; the time runs from the",
            "write to that response, so it includes noticing the change (the server polls the",
            "folders every 0.05 s and waits 0.05 s for the writes to settle). *Rest of the site*: from",
            "the start of the rebuild until every page that the edit changed is written, from the",
            "server's log.", "",
            "## Every edit, one by one", "",
            "Each edit's time from save to page served, in the order made: body edits that wait for the rest",
            "of the site, then saves made the moment the previous one showed (an author saving again while",
            "the rest is still being rebuilt; the newer save stops that rest and is written first).", "",
            "| knowledge base | body edits, each (s) | quick saves, each (s) |",
            "|---|---|---|"]
    for r in results:
        each = ", ".join(f"{b['shown_s']:.2f}" for b in r["body"])
        quick = ", ".join(f"{b['shown_s']:.2f}" for b in r.get("quick", []))
        out.append(f"| {_name(r)} | {each} | {quick} |")
    out += ["", "## Other edits", "",
            "| knowledge base | edit | page served (s) | rest of the site (s) | pages rendered again | pages with new hover cards |",
            "|---|---|---:|---:|---:|---:|"]
    for r in results:
        for what, items in (("short (one-line definition)", r["short"]), ("title", [r["title"]])):
            shown = [b["shown_s"] for b in items]
            rest = [b["all_s"] for b in items]
            out.append(f"| {_name(r)} | {what} | {_cell(shown)} | {_cell(rest)} | "
                       f"{statistics.median(b['pages'] for b in items):g} | {statistics.median(b['patched'] for b in items):g} |")
    out += ["", "A short shows on the hover card of every link to its entry: the pages that link it get",
            "those attributes rewritten in their written HTML, without a render. A title or an alias can",
            "make or unmake a link only where the old or new name is written or the entry was linked, so",
            "those pages are rendered again. Either way the edited entry's page is written first.", "",
            "## What each mechanism buys", "",
            "| knowledge base | generator per edit, from scratch (s) | with what serve keeps (s) | clean build, pages in one process (s) | with a worker per core (s) | server start (s) |",
            "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        g = r["generator"]
        out.append(f"| {_name(r)} | {_cell(g['cold'])} | {_cell(g['warm'])} | {_cell(r['serial'])} | "
                   f"{_med(r['clean'])} | {r['startup']:.1f} |")
    out += ["", "- **Re-rendering only the changed pages** (`generator/serve/server.py`) is what turns a",
            "  whole-site rebuild into a page: the first two tables.",
            "- **What serve keeps between edits** (`pipeline.Memo`: each file's parsed YAML by its bytes,",
            "  each file's own checks while nothing it is checked against changes, each body's scan unless a",
            "  changed title or alias has all its words in it; the graph's force layout while no edge moves and the",
            "  SKOS files while no name, short or relation changes, `graph.layout`, `linked_data.skos_files`;",
            "  both columns keep the SKOS files) is the difference between the first two columns above.",
            "- **A worker per core for page rendering** (`generator/speed/parallel.py`) serves clean builds",
            "  only (`make build`, CI, the server's first build does without it: the server's threads",
            "  run beside it, so it never forks); the difference between the last two build columns.", ""]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["real", "1000"])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--page", help="write the Markdown report here (e.g. docs/benchmark-serve.md)")
    args = ap.parse_args()
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    workdir = Path(args.out).resolve()
    results = [measure(size, workdir, args.runs) for size in args.sizes]
    text = report(results, args.runs)
    print(text)
    if args.page:
        Path(args.page).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
