"""Shared fixtures: the real repository, throw-away copies of it, and one real site build."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


def copy_repo(dest: Path) -> Path:
    """A copy of everything a build reads: entries, ontology, handwritten docs, config."""
    from generator.bench import PROJECT_DIRS

    for name in ("glossary", *PROJECT_DIRS):
        shutil.copytree(REPO / name, dest / name)
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
def site(tmp_path_factory) -> Path:
    """The real site, built once per test session with `mkdocs build --strict`."""
    out = tmp_path_factory.mktemp("site") / "site"
    result = mkdocs_build(REPO, out, workers=2)
    assert result.returncode == 0, result.stderr[-5000:]
    assert "generated pages in 2 processes" in result.stderr  # the parallel path is the one tested
    return out


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class CompressingHandler(QuietHandler):
    """Serves text files gzip-compressed with a long cache lifetime for fingerprinted
    assets, as any production static host does (GitHub Pages, Netlify, nginx with gzip on),
    so that page-weight budgets measure what a reader's browser really transfers."""

    TEXT = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".map"}

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if "gzip" not in self.headers.get("Accept-Encoding", "") or path.suffix not in self.TEXT or not path.is_file():
            return super().send_head()
        if not self.path.split("?")[0].endswith("/") and (Path(self.translate_path(self.path))).is_dir():
            return super().send_head()  # let the base class redirect /dir to /dir/
        import gzip
        import io

        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        cache = "public, max-age=31536000, immutable" if "/assets/" in self.path else "no-cache"
        self.send_header("Cache-Control", cache)
        self.end_headers()
        return io.BytesIO(body)


class serve:
    """Serve a built site on a loopback port for the duration of a `with` block;
    `compress=True` serves it gzip-compressed, as production hosts do."""

    def __init__(self, directory: Path, compress: bool = False):
        handler = functools.partial(CompressingHandler if compress else QuietHandler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)

    def __enter__(self) -> str:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()


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
