"""Stage 1: YAML is read with the place of every node, and hostile YAML is refused."""

from pathlib import Path

from generator.kb.load import MAX_FILE_BYTES, load_tree, parse, read_file

ENTRY = """\
title: Test entry
aliases: [TE, test-entry]
category: runtime
short: A test entry that checks where the loader says each value is.
body: |
  First line.
  Second line with [[kv-cache]] in it.
sources: [seed-engines-chapter]
"""


def test_values_and_their_places():
    doc, problems = parse(ENTRY, "glossary/terms/test-entry.yaml", "term")
    assert problems == []
    assert doc.id == "test-entry"
    assert doc.data["aliases"] == ["TE", "test-entry"]
    assert doc.loc("aliases", 1) == (2, 15)
    assert doc.loc("category", key=True) == (3, 1)
    body = doc.data["body"]
    # The link sits on line 7 of the file, after the two-space indent and "Second line with ".
    assert doc.text_loc(("body",), body.index("[[kv-cache]]"), body) == (7, 20)


def test_aliases_and_anchors_are_refused_so_yaml_bombs_cannot_expand():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b]\n"
    doc, problems = parse(bomb, "glossary/terms/bomb.yaml", "term")
    assert doc is None
    assert len(problems) == 1
    assert (problems[0].line, problems[0].col) == (1, 4)  # the anchor &a
    assert "anchors and aliases are not allowed" in problems[0].message


def test_duplicate_keys_are_an_error_not_a_silent_overwrite():
    doc, problems = parse("title: A\nshort: x\ntitle: B\n", "glossary/terms/dup.yaml", "term")
    assert doc is None
    assert str(problems[0]) == "glossary/terms/dup.yaml:3:1: duplicate key 'title' (first at line 1)"


def test_syntax_error_points_at_the_line():
    doc, problems = parse("title: ok\nshort: [unclosed\nbody: x\n", "glossary/terms/bad.yaml", "term")
    assert doc is None
    assert problems[0].line in (3, 4) and problems[0].message.startswith("YAML syntax error")


def test_bom_is_accepted_and_non_utf8_is_located():
    doc, problems = parse(b"\xef\xbb\xbf" + ENTRY.encode(), "glossary/terms/bom.yaml", "term")
    assert problems == [] and doc.data["title"] == "Test entry"
    doc, problems = parse(b"title: ok\nshort: caf\xe9\n", "glossary/terms/latin1.yaml", "term")
    assert doc is None
    assert (problems[0].line, problems[0].col) == (2, 11)
    assert "not valid UTF-8" in problems[0].message


def test_the_characters_that_mark_term_links_are_refused_where_they_are():
    from generator.pages.entry import _BODY_SLOT
    from generator.knowledge.link_markdown import CAND_CLOSE, CAND_MID, CAND_OPEN, MARK_CLOSE, MARK_MID, MARK_OPEN
    from generator.kb.load import RESERVED_CHARS

    assert set(RESERVED_CHARS) == {MARK_OPEN, MARK_MID, MARK_CLOSE, CAND_OPEN, CAND_MID, CAND_CLOSE, _BODY_SLOT}
    doc, problems = parse(f"title: ok\nshort: a {MARK_MID}GPU\n".encode(), "glossary/terms/m.yaml", "term")
    assert doc is None
    assert str(problems[0]).startswith("glossary/terms/m.yaml:2:10: character U+FDD1 is a Unicode noncharacter")


def test_empty_file_and_non_mapping():
    assert "file is empty" in parse(b"", "glossary/terms/e.yaml", "term")[1][0].message
    assert "top level must be a mapping" in parse("- a\n- b\n", "glossary/terms/l.yaml", "term")[1][0].message


def test_oversized_file_is_refused_without_parsing(tmp_path: Path):
    big = tmp_path / "glossary" / "terms" / "big.yaml"
    big.parent.mkdir(parents=True)
    big.write_bytes(b"title: x\nbody: |\n" + b"  " + b"y" * (MAX_FILE_BYTES + 10) + b"\n")
    doc, problems = read_file(big, tmp_path, "term")
    assert doc is None
    assert problems[0].path == "glossary/terms/big.yaml"
    assert "the limit is" in problems[0].message


def test_symlink_outside_the_repository_is_refused(tmp_path: Path):
    outside = tmp_path / "outside.yaml"
    outside.write_text(ENTRY)
    repo = tmp_path / "repo"
    (repo / "glossary" / "terms").mkdir(parents=True)
    (repo / "glossary" / "terms" / "evil.yaml").symlink_to(outside)
    docs, problems = load_tree(repo)
    assert not any(d.id == "evil" for d in docs)
    assert any(p.path == "glossary/terms/evil.yaml" and "symlink points outside" in p.message for p in problems)
