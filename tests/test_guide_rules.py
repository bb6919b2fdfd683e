"""Every decision rule of the five starting articles is reachable in the real guides.

tests/guide_rules.yaml lists each rule (in our words) with the guide path that carries it.
Here each path is walked with the same code the page and `atlas recommend` use, and must
end where the rule says: at an answer that names the recommended entries, or at the
question where the rule is stated as advice, with the rule's words and its source at that
place. The disagreements the articles contain must appear at the answer where they matter,
each side citing its own sources. And the answers must make sense together: many users
with little infrastructure never ends at an engine meant for a couple of users, the budget
guide sizes its answers to a model, the quantization guide ends at a level."""

from pathlib import Path

import pytest
import yaml

from conftest import REPO
from generator.knowledge.guides import all_paths, questions, walk
from generator.pipeline import load_atlas

RULES = yaml.safe_load((Path(__file__).with_name("guide_rules.yaml")).read_text(encoding="utf-8"))
SEEDS = {"seed-understanding-engines", "seed-hardware-strategy", "seed-engines-chapter", "seed-rishiraj-engines",
         "seed-doubleword-behind-the-stack"}


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def _place(guide, path):
    """The walk's end, and the text and sources a reader sees there: the answer (whys,
    whens, settings, notes, disputes, advice) or the pending question (text, help,
    advice), plus the sources of every option on the way."""
    state = walk(guide, path)
    qs = questions(guide)
    texts: list[str] = []
    sources: set[str] = set()
    for step in state.steps:
        for o in qs[step.question]["options"]:
            if o["id"] == step.option:
                sources.update(o.get("sources", ()))

    def advice(items):
        for a in items or ():
            texts.append(a["text"])
            sources.update(a["sources"])

    def disputes(items):
        for d in items or ():
            texts.append(d["claim"])
            texts.append(d.get("verdict", ""))
            for p in d["positions"]:
                texts.append(p["says"])
                sources.update(p["sources"])

    if state.leaf is not None:
        leaf = state.leaf
        for r in leaf["recommend"]:
            texts += [r["why"], r.get("when", ""), r.get("setting", "")]
            sources.update(r["sources"])
        texts.append(leaf.get("note", ""))
        disputes(leaf.get("disputes"))
        advice(leaf.get("advice"))
        advice(qs[state.steps[-1].question].get("advice"))  # advice stated where this choice was made
    else:
        q = qs[state.question]
        texts += [q["text"], q.get("help", "")]
        advice(q.get("advice"))
    return state, " ".join(texts), sources


def test_the_rule_list_covers_every_article_and_every_guide():
    rules = RULES["rules"]
    assert len(rules) >= 80
    assert len({r["id"] for r in rules}) == len(rules), "rule ids are unique"
    assert {r["source"] for r in rules} == SEEDS
    assert {r["guide"] for r in rules} >= {"choose-an-engine", "choose-hardware-by-budget",
                                           "choose-a-quantization-format", "choose-hardware-for-a-model"}
    assert all(r["before"] in ("reachable", "partly", "unreachable") for r in rules)


@pytest.mark.parametrize("rule", RULES["rules"], ids=lambda r: r["id"])
def test_every_rule_is_reachable(atlas, rule):
    guide = atlas.entries[rule["guide"]]
    state, text, sources = _place(guide, rule["path"])
    if "asks" in rule:
        assert state.leaf is None and state.question == rule["asks"], f"{rule['id']}: stops at {state.question}"
    if "recommends" in rule:
        assert state.leaf is not None, f"{rule['id']}: the path does not end at an answer"
        named = [r["entry"] for r in state.leaf["recommend"]]
        missing = [e for e in rule["recommends"] if e not in named]
        assert not missing, f"{rule['id']}: {missing} not among {named}"
    assert "asks" in rule or "recommends" in rule or "says" in rule, rule["id"]
    if "says" in rule:
        assert rule["says"].lower() in text.lower(), f"{rule['id']}: '{rule['says']}' is not said there"
    assert rule["source"] in sources, f"{rule['id']}: {rule['source']} is not cited there"


@pytest.mark.parametrize("dispute", RULES["disputes"], ids=lambda d: f"{d['claim']} @ {','.join(d['path'])}")
def test_every_disagreement_is_shown_with_both_sides(atlas, dispute):
    leaf = walk(atlas.entries[dispute["guide"]], dispute["path"]).leaf
    assert leaf is not None
    found = [d for d in leaf.get("disputes", ()) if d["claim"] == dispute["claim"]]
    assert found, f"'{dispute['claim']}' is not shown at {dispute['path']}"
    sides = found[0]["positions"]
    assert len(sides) >= 2 and all(p["sources"] for p in sides)
    assert len({tuple(sorted(p["sources"])) for p in sides}) == len(sides), "each side cites its own sources"


def test_many_users_with_little_infrastructure_ends_at_a_multi_user_engine(atlas):
    leaf = walk(atlas.entries["choose-an-engine"], ["many-users", "minimal"]).leaf
    first = leaf["recommend"][0]
    assert first["entry"] == "vllm"
    for r in leaf["recommend"]:
        said = f"{r.get('when', '')} {r['why']}".lower()
        assert not any(w in said for w in ("couple of users", "two or three", "a few users")), r
        assert r["entry"] not in ("llama-cpp", "llama-server", "ollama")


def test_the_budget_guide_sizes_every_purchase_to_a_model(atlas):
    guide = atlas.entries["choose-hardware-by-budget"]
    for path in all_paths(guide):
        leaf = walk(guide, [s.option for s in path]).leaf
        assert leaf.get("calculator", {}).get("model") in atlas.entries, path
        asked = [s.question for s in path]
        tier = next((s.option for s in path if s.question == "budget"), None)
        if tier in ("tight", "moderate", "average"):
            assert f"{tier}-model" in asked, path  # the model's size was asked before the answer


def test_the_quantization_guide_ends_at_a_level(atlas):
    guide = atlas.entries["choose-a-quantization-format"]
    levels = set()
    for path in all_paths(guide):
        first = walk(guide, [s.option for s in path]).leaf["recommend"][0]
        assert first.get("setting"), (path, first["entry"])
        levels.add(first["setting"].split()[0])
    assert {"Q4_K_M", "Q8_0", "FP8", "NVFP4", "4-bit"} <= levels


def test_the_engines_with_entries_are_on_some_path(atlas):
    reached = set()
    for guide in atlas.of_kind("guide"):
        for path in all_paths(guide):
            reached.update(r["entry"] for r in walk(guide, [s.option for s in path]).leaf["recommend"])
    for engine in ("mlc-llm", "onnx-runtime-genai", "openvino", "tgi", "lmdeploy", "vllm", "sglang", "tensorrt-llm",
                   "llama-cpp", "ollama", "mlx-lm", "exllamav2", "exllamav3", "nvidia-dynamo", "mistral-rs"):
        assert engine in reached, engine
