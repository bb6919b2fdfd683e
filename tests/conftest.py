"""Shared fixtures: the real repository, throw-away copies of it, and one real site build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.serve.local import serve  # noqa: F401  (tests import it from here)

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


def copy_repo(dest: Path) -> Path:
    """A copy of everything a build reads: entries, ontology, handwritten docs, config."""
    from bench.build import PROJECT_DIRS

    for name in ("glossary", *PROJECT_DIRS):
        shutil.copytree(REPO / name, dest / name)
    # The GPU suite's records are sources that entries cite (generator/kb/load.py MEASUREMENTS_DIR).
    shutil.copytree(REPO / "bench/gpu/results", dest / "bench/gpu/results")
    shutil.copy(REPO / "mkdocs.yml", dest / "mkdocs.yml")
    return dest


def run(cmd: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, **kw)


def mkdocs_build(project: Path, site: Path, workers: int | None = None) -> subprocess.CompletedProcess:
    """`mkdocs build --strict`; `workers` sets how many processes render the generated pages
    (ATLAS_WORKERS), else the plugin's default, one per core."""
    env = dict(os.environ, **({"ATLAS_WORKERS": str(workers)} if workers is not None else {}))
    return run([str(BIN / "mkdocs"), "build", "--strict", "--site-dir", str(site)], cwd=project, env=env)


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """A fresh copy of the real knowledge base to break on purpose."""
    return copy_repo(tmp_path / "repo")


@pytest.fixture(scope="session")
def site(tmp_path_factory, worker_id) -> Path:
    """The real site, built once per test run with `mkdocs build --strict`. Under
    pytest-xdist (`make test` runs two worker processes) the first worker to ask builds it
    and the other waits on a file lock and reads the same folder: tests only read it."""
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    out = shared / "real-site" / "site"
    with FileLock(str(shared / "real-site.lock")):
        if not (out.parent / "built").exists():
            result = mkdocs_build(REPO, out, workers=2)
            assert result.returncode == 0, result.stderr[-5000:]
            assert "generated pages in 2 processes" in result.stderr  # the parallel path is the one tested
            (out.parent / "built").write_text("ok")
    return out


def goto(page, url: str):
    """Open `url` the way a reader's tab settles: after the load event (so every script has
    run and mounted its widget) and then no network for half a second. Playwright's
    "networkidle" alone can fire before the load event while a big page still parses on a
    busy machine, and then a test reads a widget before its script ran (a CI failure of
    the compare view, 2026-11)."""
    response = page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    return response


from bench.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (one list of flags for tests and benchmark)


@pytest.fixture(scope="session")
def base(site: Path):
    """The real site served on a loopback port, once per test session."""
    with serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for the whole session, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Debian's chromium is required (make test installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def mini_site(tmp_path_factory):
    """The small test knowledge base, built and served on loopback: (root, base URL)."""
    import minikb

    root = minikb.write(tmp_path_factory.mktemp("mini") / "repo")
    site = root / "site"
    result = mkdocs_build(root, site)
    assert result.returncode == 0, result.stderr[-3000:]
    with serve(site) as url:
        yield root, url
