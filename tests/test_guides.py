"""Decision guides: every path of every real guide walks to real entries, broken guides
fail validation with their place, and `atlas recommend` answers scripts and people."""

import json
import sys
from pathlib import Path

import pytest

from conftest import REPO, run
from generator.knowledge.guides import GuideError, all_paths, walk
from generator.kb.load import load_tree
from generator.pipeline import load_atlas
from generator.kb.validate import validate

ATLAS = str(Path(sys.executable).parent / "atlas")


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def test_every_path_of_every_guide_ends_in_real_entries_with_sources(atlas):
    guides = atlas.of_kind("guide")
    assert len(guides) >= 3
    for guide in guides:
        paths = list(all_paths(guide))
        assert paths, guide.id
        for path in paths:
            state = walk(guide, [s.option for s in path])
            assert state.question is None and state.leaf is not None
            for rec in state.leaf["recommend"]:
                assert rec["entry"] in atlas.entries
                assert rec["why"] and rec["sources"]
                assert all(s in atlas.sources for s in rec["sources"])
            if len(state.leaf["recommend"]) > 1:  # several answers: each says when it applies
                assert all(r.get("when") for r in state.leaf["recommend"][1:])


def test_every_question_is_on_some_path(atlas):
    for guide in atlas.of_kind("guide"):
        asked = {s.question for path in all_paths(guide) for s in path}
        assert asked == set(guide.get("questions")), guide.id


def test_disagreements_the_documents_contain_are_shown(atlas):
    guide = atlas.entries["choose-an-engine"]
    two_to_four = walk(guide, ["just-me", "rtx", "two-to-four"]).leaf
    assert {r["entry"] for r in two_to_four["recommend"]} == {"exllamav2", "exllamav3"}
    assert "ExLlamaV2 for a single card" in two_to_four["note"]
    mac = walk(guide, ["just-me", "mac"]).leaf
    assert {r["entry"] for r in mac["recommend"]} == {"mlx-lm", "ollama", "lm-studio"}
    assert [d["claim"] for d in mac["disputes"]][0] == "Which engine a Mac user should start with"


def test_wrong_answers_are_refused(atlas):
    guide = atlas.entries["choose-an-engine"]
    with pytest.raises(GuideError, match="has no option 'nope'"):
        walk(guide, ["nope"])


GUIDE = """\
title: Broken guide
short: A guide written wrong on purpose to check that validation finds it.
start: first
questions:
  first:
    text: First?
    options:
      - id: a
        label: A
        next: second
      - id: b
        label: B
        next: nowhere
  second:
    text: Second?
    options:
      - id: back
        label: Back to the first
        next: first
      - id: done
        label: Done
        recommend:
          - entry: no-such-engine
            why: Because.
            sources: [seed-engines-chapter]
  orphan:
    text: Never asked?
    options:
      - id: x
        label: X
        next: first
      - id: y
        label: Y
        next: first
sources: [seed-engines-chapter]
"""


def test_broken_guide_reports_cycle_dead_end_unreachable_and_unknown_entry(kb):
    (kb / "glossary/guides/broken.yaml").write_text(GUIDE)
    docs, _ = load_tree(kb)
    out = [str(f) for f in validate(docs) if f.path.endswith("broken.yaml")]
    p = "glossary/guides/broken.yaml"
    assert f"{p}:13:15: option 'b' leads to unknown question 'nowhere'" in out
    assert f"{p}:19:15: guide loops back: first -> second -> first; every path must end in a recommendation" in out
    assert any(o.startswith(f"{p}:23:20: unknown entry 'no-such-engine'") for o in out)
    assert f"{p}:26:3: question 'orphan' cannot be reached from the start question 'first'" in out


def test_option_with_neither_next_nor_recommend_is_an_error(kb):
    text = GUIDE.replace("        next: nowhere\n", "")
    (kb / "glossary/guides/broken.yaml").write_text(text)
    docs, _ = load_tree(kb)
    out = [str(f) for f in validate(docs) if f.path.endswith("broken.yaml")]
    assert any(":11:9: option " in o and "needs exactly one of 'next'" in o for o in out)


def test_recommend_with_answers_and_json():
    r = run([ATLAS, "recommend", "choose-an-engine", "--answer", "who=many-users", "--answer", "infra=servers",
             "--answer", "scale=servers", "--answer", "workload=general"], cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert "vLLM" in r.stdout and "Why this answer" in r.stdout
    r = run([ATLAS, "recommend", "choose-an-engine", "--json", "--answer", "who=just-me", "--answer", "where=rtx",
             "--answer", "rtx-count=one"], cwd=REPO)
    out = json.loads(r.stdout)
    assert [x["id"] for x in out["recommend"]] == ["exllamav3", "exllamav2", "llama-cpp", "ktransformers"]  # V2 archived: V3 first; a large MoE: KTransformers
    assert [s["option"] for s in out["path"]] == ["just-me", "rtx", "one"]
    assert out["url"] == "/guides/choose-an-engine/?answers=just-me,rtx,one#walk"


def test_recommend_tells_a_script_what_is_missing_and_rejects_bad_answers():
    r = run([ATLAS, "recommend", "choose-an-engine", "--answer", "who=many-users"], cwd=REPO, input="")
    assert r.returncode == 2
    assert "question 'infra' needs an answer" in r.stderr and "minimal" in r.stderr
    r = run([ATLAS, "recommend", "choose-an-engine", "--answer", "who=everyone"], cwd=REPO, input="")
    assert r.returncode == 2 and "has no option 'everyone'" in r.stderr
    r = run([ATLAS, "recommend", "choose-an-engin"], cwd=REPO, input="")
    assert r.returncode == 2 and "choose-an-engine" in r.stderr


def test_recommend_asks_questions_when_run_interactively():
    # A real terminal (pty) so the command asks instead of demanding --answer.
    import os
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(REPO)
        os.execv(ATLAS, [ATLAS, "recommend", "choose-an-engine"])
    out = b""
    answers = iter([b"1\n", b"3\n", b"2\n"])  # just me -> RTX PC -> two to four cards
    while True:
        ready, _, _ = select.select([fd], [], [], 20)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if out.rstrip().endswith(b">"):
            os.write(fd, next(answers, b"\n"))
    os.waitpid(pid, 0)
    text = out.decode()
    assert "Who will use the model?" in text and "How many RTX cards?" in text
    assert "ExLlamaV3" in text


def test_hardware_guide_ends_in_the_calculator_and_its_figures_hold(atlas):
    """Every leaf of the hardware-for-a-model guide hands its inputs to the calculator, and
    the calculator agrees that the first device it names holds the model in that setting
    (taking 'two cards' or 'eight GPUs' answers at their word)."""
    from generator.knowledge.calc import device_spec, estimate, model_spec

    guide = atlas.entries["choose-hardware-for-a-model"]
    leaves = 0
    for path in all_paths(guide):
        leaf = walk(guide, [s.option for s in path]).leaf
        calc = leaf["calculator"]
        m = model_spec(atlas.entries[calc["model"]])
        first = leaf["recommend"][0]
        d = device_spec(atlas.entries[first["entry"]])
        est = estimate(m, d, calc.get("bits", 16), calc.get("context", 4096), calc.get("concurrency", 1))
        gpus = 8 if "eight" in first["why"].lower() else 1
        assert est.total_gb <= d.memory_gb * gpus, (path, first["entry"], est.total_gb)
        leaves += 1
    assert leaves == 12  # nine, the mixture-of-experts branch's two, and the rented 48 GB card for a 70B


def test_recommend_points_a_script_at_the_calculator():
    r = run([ATLAS, "recommend", "choose-hardware-for-a-model", "--json", "--answer", "size=mid", "--answer", "mid-who=me"], cwd=REPO)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["recommend"][0]["id"] == "nvidia-rtx-5090"
    assert out["calculator"] == {"model": "qwen3-6-27b", "bits": 4.89, "context": 32768}
    r = run([ATLAS, "recommend", "choose-hardware-for-a-model", "--answer", "size=mid", "--answer", "mid-who=me"], cwd=REPO)
    assert "atlas fit qwen3-6-27b --bits 4.89 --context 32768" in r.stdout


def test_calculator_hand_off_must_name_a_model(kb):
    text = GUIDE.replace("        recommend:\n          - entry: no-such-engine",
                         "        calculator: {model: seed-engines-chapter}\n        recommend:\n          - entry: no-such-engine")
    assert text != GUIDE
    (kb / "glossary/guides/broken.yaml").write_text(text)
    docs, _ = load_tree(kb)
    out = [str(f) for f in validate(docs) if f.path.endswith("broken.yaml")]
    assert any("calculator: {model" not in o and "unknown model 'seed-engines-chapter'" in o for o in out), out


def test_every_guide_answer_cites_a_source_a_reader_can_open():
    """Answers keep the articles that made them, and each also cites a document a reader can
    open and check: documentation, a benchmark, a paper (a source with an address that is not
    one of the five starting articles)."""
    from generator.pipeline import load_atlas

    atlas = load_atlas(REPO)
    checkable = {sid for sid, s in atlas.sources.items() if s.url and s.kind != "seed"}
    answers = [(g.id, qid, o["id"], r["entry"], r["sources"]) for g in atlas.of_kind("guide")
               for qid, q in g.get("questions").items() for o in q["options"] for r in o.get("recommend", ())]
    assert len(answers) > 80
    assert [a for a in answers if not set(a[4]) & checkable] == []


def _hardware_answers():
    from generator.pipeline import load_atlas
    from conftest import REPO

    atlas = load_atlas(REPO)
    out = []
    for g in atlas.of_kind("guide"):
        for qid, q in (g.get("questions") or {}).items():
            for o in q.get("options", []):
                calc = o.get("calculator")
                for r in o.get("recommend", []):
                    e = atlas.entries[r["entry"]]
                    # a product family (RTX 40 series) names no one device's memory to size against
                    if calc and e.kind == "hardware" and e.get("class") not in ("family", "cluster"):
                        out.append(pytest.param(atlas, calc, r, id=f"{g.id}:{qid}:{o['id']}:{e.id}"))
    return out


@pytest.mark.parametrize("atlas, calc, answer", _hardware_answers())
def test_every_hardware_answer_fits_by_the_calculators_arithmetic(atlas, calc, answer):
    """Issue 34: the hardware guide said two RTX 3090s hold a 4-bit 70B while the calculator
    it links to needed three. Each answer that names a device for a model is sized with the
    calculator (weights + KV cache + 10% overhead) at the option's settings, or at what the
    answer says it assumes (bits, devices, a memory configuration), and must fit."""
    from generator.knowledge.calc import device_spec, estimate, model_spec

    e = atlas.entries[answer["entry"]]
    d = device_spec(e)
    assumes = answer.get("assumes") or {}
    m = model_spec(atlas.entries[assumes.get("model", calc["model"])])
    est = estimate(m, None, assumes.get("bits", calc["bits"]), assumes.get("context", calc.get("context", 4096)),
                   calc.get("concurrency", 1))
    memory = assumes.get("memory_gb") or d.usable_gb
    devices = assumes.get("devices", 1)
    assert memory, f"{e.id} has no memory figure"
    assert est.total_gb <= devices * memory, (
        f"{e.id}: {est.total_gb:.1f} GB needed, {devices} x {memory:g} GB assumed; say in 'assumes' what the answer relies on")
