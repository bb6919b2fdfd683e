"""Stage 2: one test per validation case, each asserting the exact place and message.

Every case writes one small entry into a copy of the real knowledge base, so the expected
line and column can be read straight off the text the test wrote.
"""

from pathlib import Path

import pytest

from generator.kb.findings import AtlasError
from generator.kb.load import load_tree
from generator.pipeline import load_atlas
from generator.kb.validate import validate

GOOD = """\
title: Test entry
category: runtime
short: A test entry that exists only to check where validation points.
body: |
  Plain body text.
sources: [seed-engines-chapter]
"""

PATH = "glossary/terms/test-entry.yaml"


def findings_for(kb: Path, text: str, name: str = "test-entry", folder: str = "terms") -> list[str]:
    (kb / "glossary" / folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    docs, problems = load_tree(kb)
    return [str(f) for f in problems + validate(docs) if f.path.endswith(f"/{name}.yaml")]


def test_the_good_entry_is_clean(kb):
    assert findings_for(kb, GOOD) == []


def test_yaml_syntax_error(kb):
    out = findings_for(kb, GOOD.replace("title: Test entry", "title: [Test entry"))
    assert len(out) == 1 and out[0].startswith(f"{PATH}:2:") and "YAML syntax error" in out[0]


def test_unknown_key_with_did_you_mean(kb):
    out = findings_for(kb, GOOD.replace("category: runtime", "category: runtime\ncatgory: memory"))
    assert out == [f"{PATH}:3:1: unknown key 'catgory' — did you mean 'category'?"]


def test_wrong_type(kb):
    out = findings_for(kb, GOOD + "aliases: TE\n")
    assert out == [f"{PATH}:7:10: 'aliases' must be a list, not text"]


def test_missing_required_field(kb):
    out = findings_for(kb, GOOD.replace("short: A test entry that exists only to check where validation points.\n", ""))
    assert out == [f"{PATH}:1:1: missing required field 'short'"]


def test_id_not_matching_file_name(kb):
    out = findings_for(kb, "id: test-entri\n" + GOOD)
    assert out == [f"{PATH}:1:5: id 'test-entri' does not match the file name 'test-entry.yaml'; an id is the file name without .yaml (rename one of them)"]


def test_invalid_file_name(kb):
    out = findings_for(kb, GOOD, name="Test_Entry")
    assert out == ["glossary/terms/Test_Entry.yaml:1:1: file name 'Test_Entry.yaml' is not a valid id: use lowercase letters, digits and single hyphens, like 'kv-cache.yaml'"]


def test_duplicate_id_across_kinds(kb):
    text = (kb / "glossary/terms/kv-cache.yaml").read_text()
    (kb / "glossary/models/kv-cache.yaml").write_text(text)
    docs, problems = load_tree(kb)
    out = [str(f) for f in validate(docs) if "duplicate id" in f.message]
    assert out == ["glossary/models/kv-cache.yaml:1:1: duplicate id 'kv-cache': glossary/terms/kv-cache.yaml already uses it; ids are unique across all kinds"]


def test_alias_colliding_with_another_entrys_title(kb):
    kv_title_line = next(i for i, l in enumerate((kb / "glossary/terms/kv-cache.yaml").read_text().splitlines(), 1) if l.startswith("title:"))
    out = findings_for(kb, GOOD + "aliases: [TE, kv  Cache]\n")
    assert out == [f"{PATH}:7:15: alias 'kv  Cache' is already the title of 'kv-cache' (glossary/terms/kv-cache.yaml:{kv_title_line}); a name may belong to one entry only"]


def test_reference_to_unknown_entry(kb):
    out = findings_for(kb, GOOD + "relations:\n  uses: [kv-cahce]\n")
    assert out == [f"{PATH}:8:10: unknown entry 'kv-cahce' — did you mean 'kv-cache'?"]


def test_unknown_relation(kb):
    out = findings_for(kb, GOOD + "relations:\n  manged_by: [kv-cache]\n")
    assert out == [f"{PATH}:8:3: unknown relation 'manged_by' — did you mean 'managed_by'?"]


def test_unknown_source(kb):
    out = findings_for(kb, GOOD.replace("sources: [seed-engines-chapter]", "sources: [seed-engine-chapter]"))
    assert out == [f"{PATH}:6:11: unknown source 'seed-engine-chapter' — did you mean 'seed-engines-chapter'?; add it to glossary/sources.yaml or glossary/sources/"]


def test_relation_between_kinds_the_ontology_forbids(kb):
    out = findings_for(kb, GOOD + "relations:\n  orchestrates: [kv-cache]\n")
    assert out == [f"{PATH}:8:3: relation 'orchestrates' cannot start at a term; it goes from engine to engine"]


def test_short_over_200_characters(kb):
    long = "A definition that keeps going " + "and going " * 20 + "until it is far too long."
    out = findings_for(kb, GOOD.replace("short: A test entry that exists only to check where validation points.", f"short: {long}"))
    assert out == [f"{PATH}:3:8: short is {len(long)} characters; at most 200 allowed (one sentence that stands alone in a tooltip)"]


def test_citation_and_link_in_prose_are_located(kb):
    body = "body: |\n  Plain body text.\n  Cites [@kwon-2023-pagedattention] and links [[kv-cach]].\n"
    out = findings_for(kb, GOOD.replace("body: |\n  Plain body text.\n", body))
    assert out == [
        f"{PATH}:6:9: citation [@kwon-2023-pagedattention] is not listed in this entry's sources; add 'kwon-2023-pagedattention' to sources",
        f"{PATH}:6:47: link [[kv-cach]] names an unknown entry — did you mean 'kv-cache'?",
    ]


def test_every_error_is_collected_before_failing_once(kb):
    (kb / "glossary/terms/a-broken.yaml").write_text(GOOD.replace("category: runtime", "category: runtim"))
    (kb / "glossary/terms/b-broken.yaml").write_text(GOOD.replace("title: Test entry", "titel: Other"))
    with pytest.raises(AtlasError) as info:
        load_atlas(kb)
    lines = [str(f) for f in info.value.findings]
    assert "glossary/terms/a-broken.yaml:2:11: unknown category 'runtim' — did you mean 'runtime'?; categories are listed in glossary/categories.yaml" in lines
    assert "glossary/terms/b-broken.yaml:1:1: unknown key 'titel' — did you mean 'title'?" in lines
    assert "glossary/terms/b-broken.yaml:1:1: missing required field 'title'" in lines


def test_ten_thousand_character_title_is_refused(kb):
    out = findings_for(kb, GOOD.replace("title: Test entry", "title: " + "T" * 10_000))
    assert out == [f"{PATH}:1:8: 'title' is 10000 characters; at most 120 allowed"]


def test_script_in_a_link_url_is_refused(kb):
    body = "body: |\n  Click [here](javascript:alert(1)).\n"
    out = findings_for(kb, GOOD.replace("body: |\n  Plain body text.\n", body))
    assert out == [f"{PATH}:5:14: links may not use javascript: URLs; use an http, https or mailto link, or a relative one"]


def test_fast_schema_check_rejects_whatever_jsonschema_rejects():
    """Valid documents skip jsonschema through a fast check of the same schemas
    (jsonschema-rs). It must never pass a document that jsonschema rejects: broken copies
    of every real document (a key dropped, a value of the wrong type or empty, an unknown
    key, at every depth) get the same verdict from both."""
    import copy
    import random

    from conftest import REPO
    from generator.kb.schema import _fast_checks, _validators

    docs, _ = load_tree(REPO)
    fast, full = _fast_checks(), _validators()
    assert set(fast) == set(full), "every kind has a fast check"
    rng = random.Random(3)
    wrong = [7, 2.5, -1, "", "x" * 300, None, True, [], ["x"], {}, {"x": 1}, "Not An Id!"]

    def paths(node, path=()):
        yield path
        if isinstance(node, dict):
            for k, v in node.items():
                yield from paths(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from paths(v, path + (i,))

    checked = rejected = 0
    for doc in docs:
        if doc.kind == "measurement":  # GPU suite records: bench/gpu/record.schema.json, checked by jsonschema only
            continue
        all_paths = [p for p in paths(doc.data) if p]
        for path in rng.sample(all_paths, min(12, len(all_paths))):
            data = copy.deepcopy(doc.data)
            parent = data
            for p in path[:-1]:
                parent = parent[p]
            how = rng.randrange(3)
            if how == 0 and isinstance(parent, dict):
                del parent[path[-1]]
            elif how == 1 and isinstance(parent, dict):
                parent[f"unknown_{path[-1]}"] = "x"
            else:
                parent[path[-1]] = rng.choice(wrong)
            jsonschema_says = not any(True for _ in full[doc.kind].iter_errors(data))
            assert fast[doc.kind](data) == jsonschema_says, (doc.path, path, how, jsonschema_says)
            checked += 1
            rejected += not jsonschema_says
    assert checked > 1000 and rejected > checked // 3, (checked, rejected)


def test_fast_check_reads_refs_as_jsonschema_does():
    """Keywords beside a $ref (applied in draft 2020-12, ignored in draft 7), a $ref to
    another file and a schema that refers to itself: the fast check gives jsonschema's
    verdict on each. (The real schemas have none of the first kind yet.)"""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    from generator.kb.schema import compile_schema

    draft = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    schemas = {
        "common.json": {**draft, "$defs": {"id": {"type": "string", "pattern": "^[a-z]+$"}}},
        "main.json": {**draft, "$defs": {"tree": {"type": "object", "additionalProperties": False,
                                         "properties": {"name": {"$ref": "common.json#/$defs/id"},
                                                        "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}},
                      "type": "object",
                      "properties": {"short": {"$ref": "common.json#/$defs/id", "maxLength": 3}, "tree": {"$ref": "#/$defs/tree"}}},
    }
    fast = compile_schema("main.json", schemas)
    registry = Registry().with_resources((n, Resource.from_contents(s)) for n, s in schemas.items())
    full = Draft202012Validator(schemas["main.json"], registry=registry)
    deep = {"name": "a", "kids": [{"name": "b", "kids": [{"name": "c", "kids": [{"name": "D"}]}]}]}
    cases = [{"short": "abc"}, {"short": "abcd"}, {"short": "AB"}, {"tree": deep},
             {"tree": {"name": "a", "kids": [{"name": "b"}]}}, {"tree": {"kids": [{"kids": [{"extra": 1}]}]}}]
    verdicts = []
    for data in cases:
        assert fast(data) == full.is_valid(data), data
        verdicts.append(fast(data))
    assert verdicts == [True, False, False, False, True, False]


def test_a_large_knowledge_base_gets_the_same_precise_errors(tmp_path):
    """The fast check screens every document first; a broken entry in a large knowledge
    base still gets jsonschema's file:line explanation, the same as in a small one."""
    from bench.build import make_corpus

    make_corpus(tmp_path, 520)
    entry = tmp_path / "glossary" / "terms" / "term-7.yaml"
    lines = entry.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("category:"))
    lines.insert(at + 1, "catgory: memory")
    entry.write_text("\n".join(lines) + "\n")
    docs, problems = load_tree(tmp_path)
    assert len(docs) >= 500 and not problems
    out = [str(f) for f in validate(docs)]
    assert out == [f"glossary/terms/term-7.yaml:{at + 2}:1: unknown key 'catgory' — did you mean 'category'?"]


def test_a_former_address_of_another_kind_redirects_unless_a_page_lives_there(kb):
    # engines/old-name: a term that used to be an engine keeps the engine address working
    assert findings_for(kb, GOOD + "former_ids: [engines/old-name]\n") == []
    # but a redirect on top of a live page would hide it
    out = findings_for(kb, GOOD + "former_ids: [engines/vllm]\n")
    assert out == [f"{PATH}:7:14: former id 'engines/vllm' is the page of an existing entry "
                   f"(glossary/engines/vllm.yaml); a redirect there would hide it"]
    # a folder that is not a kind's is refused by the schema
    out = findings_for(kb, GOOD + "former_ids: [blog/old-name]\n")
    assert len(out) == 1 and out[0].startswith(f"{PATH}:7:14: 'blog/old-name' is not a valid id")


def test_a_citation_the_page_would_show_as_text_is_refused(kb):
    """'[@a, b]' is not a citation the renderer understands: the reader would see the brackets
    and ids as text (it happened on the MI355X page). atlas check points at it."""
    body = "body: |\n  Plain body text.\n  Two reports agree [@kwon-2023-pagedattention, other-source].\n"
    out = findings_for(kb, GOOD.replace("body: |\n  Plain body text.\n", body))
    assert out == [f"{PATH}:6:21: citation not understood: write one [@source-id] per source, "
                   "with no spaces or commas inside, e.g. [@a] [@b]"]
