"""The walk-through never fails silently: a shared link whose answers no longer exist shows
a notice and where it stopped; a renamed option (former_ids) keeps old links working, in
the page and in `atlas recommend`; `atlas recommend --json` reports a pending question as
JSON."""

import json
import subprocess

import pytest
import yaml

import minikb
from conftest import BIN, REPO, mkdocs_build, serve, goto


@pytest.fixture(scope="module")
def renamed_site(tmp_path_factory):
    root = minikb.write(tmp_path_factory.mktemp("guide") / "repo")
    path = root / "glossary/guides/pick.yaml"
    guide = yaml.safe_load(path.read_text())
    laptop = guide["questions"]["where"]["options"][0]
    laptop["id"], laptop["former_ids"] = "notebook", ["laptop"]  # renamed: old links said 'laptop'
    path.write_text(yaml.safe_dump(guide, sort_keys=False))
    result = mkdocs_build(root, root / "site")
    assert result.returncode == 0, result.stderr[-3000:]
    with serve(root / "site") as url:
        yield root, url


def test_a_stale_link_says_where_the_walk_stopped(renamed_site, browser):
    _, base = renamed_site
    page = browser.new_page()
    goto(page, base + "/guides/pick/?answers=me,gone-option#walk")
    notice = page.locator(".atlas-guide__notice")
    assert "gone-option" in notice.inner_text() and "after 1 answer" in notice.inner_text()
    assert "Where?" in page.locator("#atlas-guide").inner_text()  # it stopped at the question it could not answer
    page.close()


def test_a_renamed_option_keeps_old_links_working(renamed_site, browser):
    root, base = renamed_site
    page = browser.new_page()
    goto(page, base + "/guides/pick/?answers=me,laptop#walk")
    assert "Our answer" in page.locator("#atlas-guide").inner_text()
    assert page.locator(".atlas-guide__notice").count() == 0
    page.close()
    r = subprocess.run([str(BIN / "atlas"), "--root", str(root), "recommend", "pick", "--answer", "who=me",
                        "--answer", "where=laptop", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["recommend"][0]["id"] == "engine-x"


def test_recommend_json_reports_the_pending_question_as_json():
    r = subprocess.run([str(BIN / "atlas"), "recommend", "choose-an-engine", "--json"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 1  # not finished: a finding, not bad input
    data = json.loads(r.stdout)
    assert data["status"] == "question" and data["question"]["id"] == "who"
    assert all({"id", "label"} <= set(o) for o in data["question"]["options"])
    assert data["answer_with"] == "--answer who=OPTION"


def test_recommend_in_the_terminal_shows_both_sides_and_what_else_to_weigh():
    """The answer the page gives, disagreements and advice included, in the terminal too."""
    argv = [str(BIN / "atlas"), "recommend", "choose-an-engine", "--answer", "who=just-me", "--answer", "where=mac"]
    data = json.loads(subprocess.run(argv + ["--json"], capture_output=True, text=True, cwd=REPO, check=True).stdout)
    mac = next(d for d in data["disputes"] if "Mac" in d["claim"])
    assert len(mac["positions"]) >= 2 and len({tuple(p["sources"]) for p in mac["positions"]}) >= 2
    assert data["advice"] and all(a["sources"] for a in data["advice"])
    text = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert f"Sources disagree: {mac['claim']}" in text and "Also weigh:" in text
    assert mac["positions"][1]["says"] in text
