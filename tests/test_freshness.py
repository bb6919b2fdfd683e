"""True today: each kind's facts fall due for a re-check after its own review period
(engines 3 months, hardware and models 12, terms 24), a support cell checked before the
release its engine's facts describe is due, `atlas stale` lists what is due most overdue
first, and a short that hides its engine's archived status stops the build."""

from __future__ import annotations

import datetime as dt
import json
import subprocess

import yaml

import minikb
from conftest import BIN, REPO, mkdocs_build
from generator.kb.freshness import due, stale_findings
from generator.pipeline import load_atlas


def _add(path, text):
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _kb(tmp_path):
    root = minikb.write(tmp_path / "repo")
    g = root / "glossary"
    _add(g / "engines/engine-x.yaml", "checked: '2026-08-24'\n")  # three months and a day before 2026-11-25
    _add(g / "hardware/gpu-y.yaml", "checked: '2026-01-10'\n")  # ten months: within a year
    _add(g / "models/model-z.yaml", "checked: '2025-10-01'\n")  # past a year
    for t in ("decode", "kv-cache", "fp16"):
        _add(g / f"terms/{t}.yaml", "checked: '2025-01-01'\n")  # 23 months: within two years
    _add(g / "guides/pick.yaml", "checked: '2026-11-01'\n")
    return root


def test_each_kind_falls_due_after_its_own_period(tmp_path):
    root = _kb(tmp_path)
    atlas = load_atlas(root)
    found = due(atlas, root, today=dt.date(2026, 11, 25))
    assert [(d.entry, d.field) for d in found] == [("model-z", "checked"), ("engine-x", "checked")]  # most overdue first
    assert found[0].due_since == "2026-10-01" and found[0].overdue_days == 55
    assert "more than 3 months ago (the review period of engine entries)" in found[1].why
    # three months to the day is not yet due
    assert not [d for d in due(atlas, root, today=dt.date(2026, 11, 24)) if d.entry == "engine-x"]
    # warnings in atlas check, with the line of the date
    w = [f for f in stale_findings(atlas, root, today=dt.date(2026, 11, 25)) if "engine-x" in f.path][0]
    text = (root / "glossary/engines/engine-x.yaml").read_text().splitlines()
    assert w.severity == "warning" and text[w.line - 1].startswith("checked:")


def test_a_cloud_price_falls_due_before_its_device_does(tmp_path):
    """Prices age fastest (issue 35 item 2): GPU Y's entry was checked in January and is
    within its year, but its hourly price, read on 2026-08-01, is more than three months old
    on 2026-11-25 and is due on its own line; the same price read on 2026-09-01 is not yet."""
    root = _kb(tmp_path)
    path = root / "glossary/hardware/gpu-y.yaml"
    data = yaml.safe_load(path.read_text())
    data["specs"]["cloud_hourly_usd"]["checked"] = "2026-08-01"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    found = [d for d in due(load_atlas(root), root, today=dt.date(2026, 11, 25)) if d.entry == "gpu-y"]
    assert [(d.field, d.checked, d.due_since, d.overdue_days) for d in found] == [
        ("specs.cloud_hourly_usd", "2026-08-01", "2026-11-01", 24)]
    assert "read the cloud's price list again" in found[0].why
    assert path.read_text().splitlines()[found[0].line - 1].strip().startswith("cloud_hourly_usd:")
    out = subprocess.run([str(BIN / "atlas"), "--root", str(root), "stale", "--json"], capture_output=True, text=True)
    assert out.returncode in (0, 1) and json.loads(out.stdout)["fact_months"] == {"cloud_hourly_usd": 3}
    data["specs"]["cloud_hourly_usd"]["checked"] = "2026-09-01"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert not [d for d in due(load_atlas(root), root, today=dt.date(2026, 11, 25)) if d.entry == "gpu-y"]


def test_a_cell_checked_before_the_engines_release_is_due(tmp_path):
    root = _kb(tmp_path)
    path = root / "glossary/engines/engine-x.yaml"
    data = yaml.safe_load(path.read_text())
    data["checked"] = "2026-11-20"
    data["features"]["kv-cache"]["checked"] = "2026-10-01"  # before as_of 2026-11-01
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    found = due(load_atlas(root), root, today=dt.date(2026, 11, 25))
    cell = [d for d in found if d.field == "features.kv-cache"]
    assert cell and "before the release its facts describe (1.0, 2026-11-01)" in cell[0].why


def test_atlas_stale_lists_what_is_due_and_exits_1_or_0(tmp_path):
    root = _kb(tmp_path)
    r = subprocess.run([str(BIN / "atlas"), "--root", str(root), "stale", "--json"], cwd=root, capture_output=True, text=True)
    report = json.loads(r.stdout)
    assert r.returncode == 1 and report["review_months"]["engine"] == 3
    assert [d["entry"] for d in report["due"]][:1] == ["model-z"]  # today is later than 2026-11-25: still first
    for f in ("glossary/engines/engine-x.yaml", "glossary/models/model-z.yaml"):
        _add(root / f, "")
    data = yaml.safe_load((root / "glossary/models/model-z.yaml").read_text())
    data["checked"] = dt.date.today().isoformat()
    (root / "glossary/models/model-z.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    data = yaml.safe_load((root / "glossary/engines/engine-x.yaml").read_text())
    data["checked"] = dt.date.today().isoformat()
    (root / "glossary/engines/engine-x.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    for t in ("decode", "kv-cache", "fp16"):
        p = root / f"glossary/terms/{t}.yaml"
        p.write_text(p.read_text().replace("checked: '2025-01-01'", f"checked: '{dt.date.today().isoformat()}'"))
    p = root / "glossary/hardware/gpu-y.yaml"
    p.write_text(p.read_text().replace("checked: '2026-01-10'", f"checked: '{dt.date.today().isoformat()}'"))
    r = subprocess.run([str(BIN / "atlas"), "--root", str(root), "stale"], cwd=root, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("nothing is due"), r.stdout


def test_a_short_that_hides_an_archived_status_stops_check_and_build(tmp_path):
    root = _kb(tmp_path)
    path = root / "glossary/engines/engine-x.yaml"
    data = yaml.safe_load(path.read_text())
    data["status"] = {"value": "archived", "source": "src-a"}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    r = subprocess.run([str(BIN / "atlas"), "--root", str(root), "check"], cwd=root, capture_output=True, text=True)
    assert r.returncode == 2 and "'engine-x' is archived (its status) but its short does not say so" in r.stderr
    assert mkdocs_build(root, root / "site").returncode != 0 and not (root / "site").exists()
    data["short"] = "A serving engine used in tests of the generator; archived since 2026."
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert subprocess.run([str(BIN / "atlas"), "--root", str(root), "check"], cwd=root).returncode == 0


def test_the_real_knowledge_base_has_no_contradiction_and_every_engine_says_its_release():
    from conftest import REPO

    atlas = load_atlas(REPO)
    from generator.kb.freshness import contradictions

    assert contradictions(atlas, REPO) == []
    assert all(e.get("as_of", {}).get("version") for e in atlas.of_kind("engine"))


def test_learn_pages_say_when_their_facts_were_last_checked(site, kb):
    """Issue 36 item 5: glossary, guide and learn pages show when their facts were last
    checked. A learn page's front matter `checked:` is printed at its foot; an impossible
    date stops `atlas check` at its line."""
    html = (site / "learn/quantization/index.html").read_text()
    page = (REPO / "docs/learn/quantization.md").read_text()
    date = next(line.split(":", 1)[1].strip() for line in page.splitlines() if line.startswith("checked:"))
    y, m, d = date.split("-")
    assert f"Facts on this page last checked {int(d)} {dt.date(int(y), int(m), 1):%B} {y}." in html
    bad = kb / "docs/learn/quantization.md"
    bad.write_text(bad.read_text().replace(f"checked: {date}", "checked: 2026-02-30"))
    out = subprocess.run([str(BIN / "atlas"), "check"], capture_output=True, text=True, cwd=kb)
    assert out.returncode == 2 and "docs/learn/quantization.md:4:" in out.stderr and "checked:" in out.stderr
