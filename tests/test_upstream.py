"""Issue 45 item 4: `atlas upstream` compares each engine's as_of with the newest release its
registry publishes, on answers recorded from PyPI and GitHub on 2026-12-06
(tests/recorded/upstream-2026-12-06.json; GitHub was unreachable from that machine, and the
file records why). Never the live network."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import yaml

from conftest import REPO

ANSWERS = REPO / "tests/recorded/upstream-2026-12-06.json"


def _upstream(*args: str, root=REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "generator.cli", "--root", str(root), "upstream", "--answers", str(ANSWERS),
                           "--today", "2026-12-06", *args], cwd=REPO, capture_output=True, text=True)


def test_no_registry_published_engine_is_behind_and_unreachable_sources_are_named():
    r = _upstream("--json")
    out = json.loads(r.stdout)
    rows = {x["id"]: x for x in out["engines"]}
    assert out["behind"] == [], [(x["id"], x["pinned"], x["newest"], x["days_behind"]) for x in out["engines"] if x["id"] in out["behind"]]
    # every engine whose package is on PyPI was compared, pinned at a release PyPI holds
    recorded = json.loads(ANSWERS.read_text())
    for path in sorted((REPO / "glossary/engines").glob("*.yaml")):
        d = yaml.safe_load(path.read_text(encoding="utf-8"))
        for w in d.get("releases") or ():
            if w["registry"] == "pypi":
                row = rows[path.stem]
                assert row["source"] == f"pypi:{w['name']}" and row["problem"] is None, row
                assert row["pinned"] in {v for v, _ in recorded[row["source"]]}, row
                break
    assert {"vllm", "sglang", "mlx-lm", "nvidia-dynamo", "exllamav3"} <= {k for k, x in rows.items() if x["source"]}
    # GitHub could not be asked: named with the reason, and no "up to date" (exit 3)
    assert "llama-cpp" in out["unreachable"] and "Name or service not known" in rows["llama-cpp"]["problem"]
    assert r.returncode == 3


def test_an_engine_behind_is_counted_in_releases_and_days_most_overdue_first(kb):
    for eid, pin in (("vllm", '{version: "0.31.0", date: "2026-10-05", source: vllm-readme}'),
                     ("sglang", '{version: "0.5.21", date: "2026-10-01", source: sglang-readme}')):
        p = kb / f"glossary/engines/{eid}.yaml"
        text = p.read_text(encoding="utf-8")
        start = text.index("\nas_of:")
        end = text.index("\n", start + 1)
        p.write_text(text[:start] + f"\nas_of: {pin}" + text[end:], encoding="utf-8")
        # the launch flags are read from the pinned release, so an older pin has older flags
        flags = kb / f"glossary/engine-flags/{eid}.yaml"
        version = pin.split('"')[1]
        flags.write_text(re.sub(r'(?m)^release: ".*"$', f'release: "{version}"', flags.read_text(encoding="utf-8")), encoding="utf-8")
    r = _upstream("--json", root=kb)
    out = json.loads(r.stdout)
    rows = {x["id"]: x for x in out["engines"]}
    # vLLM 0.31.0: 0.32.0 (2026-10-18), 0.33.0, 0.34.0 are newer; the first came out 49 days before 2026-12-06
    assert rows["vllm"]["releases_behind"] == 3 and rows["vllm"]["newer"] == ["0.32.0", "0.33.0", "0.34.0"]
    assert rows["vllm"]["days_behind"] == 49 and rows["vllm"]["newest"] == "0.34.0"
    # SGLang 0.5.21: 0.5.22 (2026-10-16) and 0.5.23: 51 days
    assert rows["sglang"]["releases_behind"] == 2 and rows["sglang"]["days_behind"] == 51
    assert out["behind"][:2] == ["sglang", "vllm"] and r.returncode == 1
    # a looser threshold: neither is behind
    assert json.loads(_upstream("--json", "--days", "60", root=kb).stdout)["behind"] == []
    text = _upstream(root=kb).stdout
    assert text.index("SGLang") < text.index("vLLM") and "behind their newest release by more than 30 days" in text


def test_bad_answers_or_engines_are_refused(tmp_path):
    bad = tmp_path / "a.json"
    bad.write_text("[1, 2]")
    r = subprocess.run([sys.executable, "-m", "generator.cli", "upstream", "--answers", str(bad)], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 2 and "top level is not an object" in r.stderr
    r = _upstream("no-such-engine")
    assert r.returncode == 2 and "unknown engine no-such-engine" in r.stderr


def test_a_weekly_workflow_runs_it_and_files_what_moved():
    wf = yaml.safe_load((REPO / ".github/workflows/upstream.yml").read_text(encoding="utf-8"))
    on = wf.get("on") or wf.get(True)  # YAML 1.1 reads the key `on` as true
    assert "schedule" in on and on["schedule"][0]["cron"].split()[-1] in {"0", "1", "2", "3", "4", "5", "6"}
    steps = " ".join(json.dumps(s) for job in wf["jobs"].values() for s in job["steps"])
    assert "atlas upstream --json" in steps and "gh issue create" in steps and "gh issue close" in steps
