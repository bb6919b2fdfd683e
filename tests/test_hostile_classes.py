"""Each class of hostile input, one test each: it renders inert, or it is refused with its
place (exit 2, nothing written). Then generated attacks (Hypothesis) in every text field
of a small knowledge base, built for real and parsed, and a sample opened in Chromium."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minikb
from conftest import BIN, mkdocs_build, serve, goto
from generator.kb.load import load_tree
from generator.kb.validate import validate
from test_validate import GOOD, PATH, findings_for

ALLOWED_SCHEMES = {"", "http", "https", "mailto"}


def inert(site: Path) -> list[str]:
    """What an HTML parser finds live in a built site that the site did not write itself:
    event-handler attributes, script elements with injected text, links whose scheme is
    not allowed, and title attributes whose value Material's tooltip would read as a tag."""
    problems = []
    for page in site.rglob("*.html"):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for el in soup.find_all(True):
            for attr, value in el.attrs.items():
                if attr.lower().startswith("on"):
                    problems.append(f"{page}: <{el.name} {attr}>")
                if attr in ("href", "src", "action", "formaction", "xlink:href"):
                    scheme = urlparse(str(value).strip()).scheme.lower()
                    if scheme not in ALLOWED_SCHEMES:
                        problems.append(f"{page}: <{el.name} {attr}={value!r}>")
                if attr == "title" and "<" in str(value):
                    problems.append(f"{page}: title {value!r}")
        for script in soup.find_all("script"):
            if script.get("type") == "application/ld+json":  # data, never run: it must parse and hold no '<'
                text = script.string or ""
                if "<" in text or not isinstance(json.loads(text), dict):
                    problems.append(f"{page}: JSON-LD {text[:200]!r}")
                continue
            if "pwned" in (script.string or "") or (script.get("src") and urlparse(script["src"]).scheme):
                problems.append(f"{page}: {script}")
        for el in soup.find_all(["iframe", "object", "embed", "form", "img", "style", "base", "meta"]):
            if el.name in ("meta",) and el.find_parent("head"):
                continue
            if el.name == "style" and el.find_parent("head"):
                continue
            if el.find_parent("article"):
                problems.append(f"{page}: <{el.name}> in the content")
    return problems


# --- rendering: hostile text stays text -------------------------------------------------

ATTACKS = [
    '{: onerror="window.__pwned=1" }',  # a Markdown attribute list
    '{ onmouseover="window.__pwned=2" }',
    "[x](javascript:window.__pwned=3)",
    "[x](java&#115;cript:window.__pwned=4)",
    "[x]( data:text/html,<script>window.__pwned=5</script>)",
    "X](javascript:window.__pwned=6) [y",
    "\\`<img src=x onerror=window.__pwned=7>\\`",  # escaped backticks: not code
    "`a\n\n<img src=x onerror=window.__pwned=8>\n\nb`",  # a code span cannot cross paragraphs
    "<img src=x onerror=window.__pwned=9>",
    "%%{init: {'securityLevel': 'loose'}}%%",
]


def _chunks(attacks: list[str], size: int = 100) -> list[str]:
    out, cur = [], ""
    for a in attacks:
        a = a.replace("\n", " ")
        if cur and len(cur) + len(a) > size:
            out.append(cur)
            cur = ""
        cur += " " + a
    return out + [cur]


@pytest.mark.parametrize("payload", _chunks(ATTACKS))
def test_attacks_in_every_field_render_as_text_or_are_refused(tmp_path, payload):
    root = minikb.write(tmp_path / "repo", payload)
    result = mkdocs_build(root, root / "site")
    if result.returncode != 0:  # a body's dangerous link: refused with its place, nothing written
        assert "links may not use" in result.stderr and ".yaml:" in result.stderr, result.stderr[-3000:]
        assert not (root / "site").exists()
        for f in (root / "glossary").rglob("*.yaml"):  # the same attacks, the bodies' links made text
            data = yaml.safe_load(f.read_text())
            if isinstance(data, dict) and isinstance(data.get("body"), str):
                data["body"] = data["body"].replace("](", "]\\(")
                f.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
        result = mkdocs_build(root, root / "site")
    assert result.returncode == 0, result.stderr[-3000:]
    assert inert(root / "site") == []


def test_material_tooltips_and_search_tags_get_text_not_markup(tmp_path):
    root = minikb.write(tmp_path / "repo", '<img src=x onerror="window.__pwned=1">')
    result = mkdocs_build(root, root / "site")
    assert result.returncode == 0, result.stderr[-3000:]
    site = root / "site"
    assert inert(site) == []
    # A citation's title attribute (the tooltip) holds the source title as text.
    soup = BeautifulSoup((site / "glossary/decode/index.html").read_text(), "html.parser")
    cite = soup.select_one("sup.atlas-cite a[title]")
    assert "&lt;img" in cite["title"] and "<img" not in cite["title"]
    # Search tags are HTML-escaped: Material inserts them as HTML in its results.
    import json
    index = json.loads((site / "search/search_index.json").read_text())
    tagged = [d for d in index["docs"] if d.get("tags")]
    assert tagged and all("<img" not in t for d in tagged for t in d["tags"])


# --- refused at check, with the place ----------------------------------------------------

def _check(kb: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "atlas"), "--root", str(kb), "check"], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("body, message", [
    ("[r]: javascript:alert(1)\n\nSee [r].", "links may not use javascript: URLs"),
    ("[x](java&#115;cript:alert(1))", "links may not use javascript: URLs"),
    ("[x](data:text/html,hi)", "links may not use data: URLs"),
    ("X](vbscript:msgbox) [y", "links may not use vbscript: URLs"),
    ("[" * 5000, "brackets nested more than 8 deep"),
    ("[a\n\n" * 30, "'[' are never closed"),
    ("".join("  " * i + "- x\n" for i in range(40)), "nested more than 8 levels deep"),
    ("> " * 30 + "deep", "nested more than 8 levels deep"),
    ("```\nnever closed", "this code fence is never closed"),
    ("x" * 25_000, "at most 20,000"),
])
def test_pathological_or_dangerous_bodies_are_refused_with_their_place(kb, body, message):
    text = GOOD.replace("body: |\n  Plain body text.\n", "body: " + yaml.safe_dump(body, default_style='"', width=10**9))
    out = findings_for(kb, text)
    assert any(message in f for f in out), out
    assert all(f.startswith(PATH + ":") for f in out)
    assert all(int(f.split(":")[1]) >= 4 and f.split(":")[1:3] != ["1", "1"] for f in out)  # in the body, not at 1:1


def test_a_45_kb_body_of_open_links_and_citations_is_refused_not_hung(kb):
    body = "[[a " * 5_000 + "[@b " * 5_000
    (kb / "glossary/terms/test-entry.yaml").write_text(GOOD.replace("Plain body text.", body[:19_000]))
    result = _check(kb)  # the bounded patterns make this linear; the subprocess timeout is only a hang guard
    assert result.returncode == 2 and f"{PATH}:" in result.stdout + result.stderr


@pytest.mark.parametrize("text, message", [
    ("extra: !!python/name:os.system\n", "YAML tag '!!python/name:os.system' is not allowed"),
    ("extra: !custom value\n", "YAML tag '!custom' is not allowed"),
])
def test_yaml_tags_are_refused_with_their_place(kb, text, message):
    out = findings_for(kb, GOOD + text)
    assert out == [f"{PATH}:7:8: {message}; write a plain value (text, number, true/false)"]


def test_nan_and_infinity_are_refused_in_data_and_options(kb):
    hw = (kb / "glossary/hardware/nvidia-h100-sxm.yaml")
    hw.write_text(hw.read_text().replace("memory_gb: {value: 80,", "memory_gb: {value: .nan,"))
    result = _check(kb)
    assert result.returncode == 2
    assert "glossary/hardware/nvidia-h100-sxm.yaml:" in result.stdout + result.stderr
    assert "'.nan' is not a finite number" in result.stdout + result.stderr
    for option in (["--overhead", "nan"], ["--bits", "inf"], ["--kv-bits=-inf"]):
        r = subprocess.run([str(BIN / "atlas"), "fit", "llama-3-1-8b", *option], capture_output=True, text=True)
        assert r.returncode == 2 and "not a finite number" in r.stderr, (option, r.stderr)


def test_control_characters_and_bidi_overrides_in_text_are_refused(kb):
    out = findings_for(kb, GOOD.replace("title: Test entry", 'title: "Test \\e[31mentry"'))
    assert out == [f"{PATH}:1:8: 'title' contains the control character U+001B; delete it"]
    out = findings_for(kb, GOOD.replace("title: Test entry", 'title: "Test \\u202eyrtne"'))
    assert out == [f"{PATH}:1:8: 'title' contains the control character U+202E; delete it"]


def test_a_nul_byte_is_reported_where_it_is(kb):
    (kb / "glossary/terms/test-entry.yaml").write_bytes(GOOD.replace("Plain body", "Plain\0body").encode())
    docs, problems = load_tree(kb)
    assert [str(p) for p in problems] == [f"{PATH}:5:8: control character U+0000 in the file; delete it (write a line break or a tab as itself)"]


def test_names_that_differ_only_by_unicode_normalisation_collide(kb):
    nfc, nfd = "Caf\u00e9 cache", "Cafe\u0301 cache"
    findings_for(kb, GOOD.replace("title: Test entry", f"title: {nfc}"), name="one")
    out = findings_for(kb, GOOD.replace("title: Test entry", f"title: {nfd}"), name="two")
    assert len(out) == 1 and "is already the title of 'one'" in out[0]


def test_a_symlink_loop_is_a_located_error(kb):
    terms = kb / "glossary/terms"
    os.symlink("loop-b.yaml", terms / "loop-a.yaml")
    os.symlink("loop-a.yaml", terms / "loop-b.yaml")
    result = _check(kb)
    assert result.returncode == 2
    assert "glossary/terms/loop-a.yaml:1:1: a loop of symlinks" in result.stdout + result.stderr


def test_an_id_that_collides_with_a_generated_page_is_refused(kb):
    # A copy of a real engine under the file name 'compare' (its page would be /engines/compare/, the matrix's).
    (kb / "glossary/engines/compare.yaml").write_text((kb / "glossary/engines/vllm.yaml").read_text())
    docs, problems = load_tree(kb)
    out = [str(f) for f in problems + validate(docs) if f.path == "glossary/engines/compare.yaml"]
    assert "glossary/engines/compare.yaml:1:1: id 'compare' is taken by a page the site generates at the same address; choose another file name" in out


def test_a_guide_of_thousands_of_chained_questions_is_checked_without_recursion(kb):
    n = 3000
    questions = {f"q{i}": {"text": f"Question {i}?", "options": [{"id": "on", "label": "On", "next": f"q{i + 1}"}]}
                 for i in range(n)}
    questions[f"q{n}"] = {"text": "Last?", "options": [{"id": "end", "label": "End", "recommend": [
        {"entry": "vllm", "why": "Because.", "sources": ["seed-engines-chapter"]}]}]}
    guide = {"title": "Deep guide", "short": "A guide with a very long chain of questions.", "start": "q0",
             "body": "Deep.", "sources": ["seed-engines-chapter"], "questions": questions}
    (kb / "glossary/guides/deep.yaml").write_text(yaml.safe_dump(guide, sort_keys=False))
    result = _check(kb)
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    assert result.returncode in (0, 2)
    from generator.knowledge.guides import all_paths
    from generator.pipeline import load_atlas
    if result.returncode == 0:
        paths = list(all_paths(load_atlas(kb).entries["deep"]))
        assert len(paths) == 1 and len(paths[0]) == n + 1


def test_braces_and_percent_signs_in_a_question_build_under_strict(tmp_path):
    root = minikb.write(tmp_path / "repo")
    guide = root / "glossary/guides/pick.yaml"
    data = yaml.safe_load(guide.read_text())
    data["questions"]["who"]["text"] = "Who {uses} it? %%{init: {}}%% {#x}"
    guide.write_text(yaml.safe_dump(data, sort_keys=False))
    result = mkdocs_build(root, root / "site")
    assert result.returncode == 0, result.stderr[-3000:]
    html = (root / "site/guides/pick/index.html").read_text()
    assert 'id="q-who"' in html
    chart = html.split('id="chart-who"', 1)[1].split("</figure>", 1)[0]
    assert "Who {uses} it? %%{init: {}}%% {#x}" in chart  # shown as text in the flowchart, not read as syntax


# --- generated attacks -------------------------------------------------------------------

PIECES = st.sampled_from([
    "<script>window.__pwned=1</script>", "<img src=x onerror=window.__pwned=1>", "<svg onload=window.__pwned=1>",
    '"><b onmouseover=window.__pwned=1>', "' onfocus='window.__pwned=1", "{: onclick=window.__pwned=1 }",
    "{ #id .cls onerror=x }", "[a](javascript:x)", "[a]: javascript:x", "&#106;avascript:", "java\tscript:",
    "data:text/html;base64,PHNjcmlwdD4=", "`", "``", "```", "~~~", "\\", "*", "_", "[[", "]]", "[@", "|", "#", "!",
    "<!--", "-->", "]]>", "&lt;script&gt;", "\u202e", "\u200b", "e\u0301", "\ufeff", "%%{init}%%", "\n", "\n\n",
    "    ", "- ", "> ", "1. ", "<", ">", "&", '"', "'", "javascript:", "vbscript:", "mailto:x@y",
])
HOSTILE = st.lists(st.one_of(PIECES, st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=8)),
                   min_size=1, max_size=12).map("".join)


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(payload=HOSTILE)
def test_generated_hostile_text_in_every_field_never_becomes_script(tmp_path_factory, payload):
    root = minikb.write(tmp_path_factory.mktemp("gen") / "repo", " " + payload)
    result = mkdocs_build(root, root / "site")
    if result.returncode != 0:  # refused: then with a located error, and nothing written
        assert "Traceback" not in result.stderr, result.stderr[-3000:]
        assert ".yaml:" in result.stderr, result.stderr[-3000:]
        assert not (root / "site").exists()
        return
    assert inert(root / "site") == []


def test_in_chromium_no_injected_script_runs_on_hover_tooltip_or_search(tmp_path, browser):
    payload = ' <img src=x onerror="window.__pwned=1"> {: onmouseover="window.__pwned=2" } x'
    root = minikb.write(tmp_path / "repo", payload)
    result = mkdocs_build(root, root / "site")
    assert result.returncode == 0, result.stderr[-3000:]
    with serve(root / "site") as base:
        page = browser.new_page()
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for path in ["/glossary/decode/", "/sources/src-a/", "/engines/engine-x/", "/guides/pick/"]:
            goto(page, base + path)
            for link in page.locator("article a").all()[:25]:
                if link.is_visible():
                    link.hover()
            assert page.evaluate("window.__pwned") is None, path
        # Material's search: results show titles and tags of entries whose names carry the payload.
        goto(page, base + "/")
        page.locator(".md-search__input").click()
        # Material builds its index in a worker and drops a query typed before it is ready:
        # wait for it (a guard against a hang, not a speed check), then type as a reader does.
        page.wait_for_function("() => { const m = document.querySelector('.md-search-result__meta');"
                               " return m && !/Initializing/i.test(m.textContent); }", timeout=120_000)
        page.locator(".md-search__input").press_sequentially("decode", delay=20)
        page.wait_for_selector(".md-search-result__list:not(.atlas-search) .md-search-result__item", state="attached", timeout=120_000)
        page.wait_for_selector(".atlas-search .md-search-result__item", timeout=120_000)
        for item in page.locator(".md-search-result__item:not([hidden])").all()[:10]:  # hidden: already listed above
            item.hover()
        assert page.evaluate("window.__pwned") is None
        assert dialogs == []
        page.close()
