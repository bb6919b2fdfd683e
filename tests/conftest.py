"""Shared fixtures: the real repository, throw-away copies of it, and one real site build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


def copy_repo(dest: Path) -> Path:
    """A copy of everything a build reads: entries, ontology, handwritten docs, config."""
    for name in ("glossary", "graph", "docs"):
        shutil.copytree(REPO / name, dest / name)
    shutil.copy(REPO / "mkdocs.yml", dest / "mkdocs.yml")
    return dest


def run(cmd: list[str], cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, **kw)


def mkdocs_build(project: Path, site: Path) -> subprocess.CompletedProcess:
    return run([str(BIN / "mkdocs"), "build", "--strict", "--site-dir", str(site)], cwd=project)


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """A fresh copy of the real knowledge base to break on purpose."""
    return copy_repo(tmp_path / "repo")


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The real site, built once per test session with `mkdocs build --strict`."""
    out = tmp_path_factory.mktemp("site") / "site"
    result = mkdocs_build(REPO, out)
    assert result.returncode == 0, result.stderr[-5000:]
    return out
