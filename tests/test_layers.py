"""The house a newcomer reads: the generator's stages are layers that import only the ones
below them (import-linter's contract in pyproject.toml), no module imports itself back in a
circle, every package says what lives there, and no module outside the drawings is so long
that it holds more than one thing."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import grimp
import networkx as nx

from conftest import BIN

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "generator"


def test_the_stage_layers_hold():
    r = subprocess.run([str(BIN / "lint-imports"), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "1 kept, 0 broken" in r.stdout


def test_no_module_imports_itself_back_in_a_circle():
    graph = grimp.build_graph("generator")
    g = nx.DiGraph((m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m))
    assert list(nx.simple_cycles(g)) == []


def test_every_package_says_what_lives_there_and_what_it_may_import():
    packages = [p for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE]
    assert {p.parent.name for p in packages} >= {"kb", "knowledge", "render", "pages", "figures", "exports", "serve", "speed"}
    for init in packages:
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert len(doc) > 60 and ("import" in doc.lower()), init


def test_no_module_outside_the_drawings_runs_over_600_lines():
    long = {str(p.relative_to(REPO)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 600 and p.parent.name != "figures"}
    assert long == {}
