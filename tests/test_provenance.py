"""Issue 45 item 3: a source is what shipped. A pull request cited as a source says whether
it was merged; `atlas check` refuses a matrix cell or a body sentence resting only on a pull
request that was not merged (a located error naming it), and warns where a fact rests on a
merged change the engine's pinned release cannot carry yet."""

from __future__ import annotations

import subprocess
import sys

import yaml

from conftest import REPO


def _check(kb) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "generator.cli", "--root", str(kb), "check"], cwd=REPO, capture_output=True, text=True)


def _add_source(kb, sid: str, pull: str | None) -> None:
    p = kb / "glossary/sources/test-pulls.yaml"
    old = p.read_text(encoding="utf-8") if p.exists() else ""
    extra = f"  pull: {pull}\n" if pull else ""
    p.write_text(old + f"{sid}:\n  title: A change\n  publisher: someone on GitHub\n"
                       f"  url: https://github.com/ml-explore/mlx-lm/pull/9{len(old)}\n  kind: repository\n{extra}", encoding="utf-8")


def _edit(kb, rel: str, old: str, new: str) -> int:
    p = kb / rel
    text = p.read_text(encoding="utf-8")
    assert old in text, old
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return text[: text.index(old)].count("\n") + 1  # the line the edit starts on


def test_every_pull_request_cited_says_whether_it_was_merged():
    """Here: every pull request among the sources records its fate."""
    from generator.kb.provenance import is_pull

    pulls = {}
    for p in sorted((REPO / "glossary").rglob("*.yaml")):
        if p.parent.name == "sources" or p.name == "sources.yaml":
            for sid, s in (yaml.safe_load(p.read_text(encoding="utf-8")) or {}).items():
                if is_pull(s):
                    pulls[sid] = s.get("pull")
    assert len(pulls) >= 30 and [sid for sid, x in pulls.items() if not x] == []
    assert {x["state"] for x in pulls.values()} >= {"merged", "closed"}


def test_a_pull_request_without_its_fate_is_a_located_error(kb):
    _add_source(kb, "mlx-lm-pr-test", None)
    r = _check(kb)
    assert r.returncode == 2
    assert "test-pulls.yaml:1:1: source 'mlx-lm-pr-test' is a pull request: add pull: {state: merged|closed|open" in r.stdout + r.stderr


def test_a_cell_or_sentence_resting_on_an_unmerged_change_is_refused(kb):
    _add_source(kb, "mlx-lm-pr-unmerged", "{state: closed, date: 2026-07-01}")
    body = _edit(kb, "glossary/engines/mlx-lm.yaml", "  MLX-LM is the LLM package built on [[mlx]]",
                 "  It answers out-of-memory errors with HTTP 503 [@mlx-lm-pr-unmerged].\n  MLX-LM is the LLM package built on [[mlx]]")
    line = _edit(kb, "glossary/engines/mlx-lm.yaml", "  prefix-caching: {status: \"yes\", source: mlx-lm-readme,",
                 "  prefix-caching: {status: \"yes\", source: mlx-lm-pr-unmerged,")
    _edit(kb, "glossary/engines/mlx-lm.yaml", "  - mlx-lm-readme\n", "  - mlx-lm-readme\n  - mlx-lm-pr-unmerged\n")
    out = (r := _check(kb)).stdout + r.stderr
    assert r.returncode == 2
    assert f"mlx-lm.yaml:{line}:" in out and "features.prefix-caching rests only on 'mlx-lm-pr-unmerged' (closed)" in out
    assert f"mlx-lm.yaml:{body}:1: a body sentence rests only on 'mlx-lm-pr-unmerged' (closed)" in out


def test_a_sentence_with_a_source_that_shipped_beside_it_stands_and_a_discussion_is_allowed(kb):
    _add_source(kb, "mlx-lm-pr-unmerged", "{state: closed, date: 2026-07-01}")
    _add_source(kb, "ds-log", "{state: closed, date: 2026-07-01, cited_for: discussion}")
    _edit(kb, "glossary/engines/mlx-lm.yaml", "  MLX-LM is the LLM package built on [[mlx]]",
          "  Its server batches requests [@mlx-lm-pr-unmerged] [@mlx-lm-release-0-32-2]. A user measured it [@ds-log].\n"
          "  MLX-LM is the LLM package built on [[mlx]]")
    _edit(kb, "glossary/engines/mlx-lm.yaml", "  - mlx-lm-readme\n", "  - mlx-lm-readme\n  - mlx-lm-pr-unmerged\n  - ds-log\n")
    r = _check(kb)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_merged_change_after_the_pinned_release_is_flagged_not_refused(kb):
    _add_source(kb, "mlx-lm-pr-later", "{state: merged, date: 2026-11-20}")
    line = _edit(kb, "glossary/engines/mlx-lm.yaml", "  prefix-caching: {status: \"yes\", source: mlx-lm-readme,",
                 "  prefix-caching: {status: \"yes\", source: mlx-lm-pr-later,")
    _edit(kb, "glossary/engines/mlx-lm.yaml", "  - mlx-lm-readme\n", "  - mlx-lm-readme\n  - mlx-lm-pr-later\n")
    r = _check(kb)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out  # a warning, not an error
    assert f"mlx-lm.yaml:{line}:" in out and "'mlx-lm-pr-later' (merged 2026-11-20, after the pinned release of 2026-10-16)" in out
