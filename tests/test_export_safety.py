"""Every way out of the knowledge base is as strict as the site: a value is valid by one
definition (generator/kb/values.py) checked once by `atlas check`; a directive names a figure
that exists; whatever is accepted, every export takes (parsed back with its own reader);
and the folder `atlas markdown` writes is already sanitized, so plain MkDocs and Zensical,
which run no sanitizer, build a site where no injected script runs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import rdflib
import yaml
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import minikb
from conftest import BIN, goto, mkdocs_build, serve
from generator.exports.markdown import split_front
from generator.kb.load import load_tree
from generator.pipeline import build
from generator.kb.validate import validate
from generator.kb.values import date_problem, email_problem, language_problem, url_problem
from test_hostile_classes import HOSTILE, inert

ATLAS = str(BIN / "atlas")
ZENSICAL = shutil.which("zensical", path=str(Path(sys.executable).parent))


def atlas(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ATLAS, *args], cwd=root, capture_output=True, text=True, timeout=600)


# --- one definition of a valid value -------------------------------------------------------

@pytest.mark.parametrize("url", [
    "https://example.org/a", "http://example.org", "https://arxiv.org/abs/2309.06180v1#S3",
    "https://bücher.de/straße?q=ä",  # an IRI: international host and path
    "https://example.org/a%20b", "https://[2001:db8::1]:8443/x", "https://example.org/?a=1&b=(2)",
])
def test_addresses_readers_can_open_are_valid(url):
    assert url_problem(url) is None


@pytest.mark.parametrize("url, words", [
    ('https://example.org/a b"c<d>', "a space"), ('https://example.org/a"b', "double quote"),
    ("https://example.org/<x>", "'<'"), ("https://example.org/{x}", "'{'"), ("https://example.org/a%zz", "'%'"),
    ("ftp://example.org/x", "http"), ("javascript:alert(1)", "http"), ("https://", "no host"),
    ("https://user:pw@example.org/", "password"), ("https://exa mple.org", "a space"), ("https://a..b/", "host"),
    ("https://example.org:99999/", "invalid"), ("//example.org/x", "http"),
])
def test_malformed_addresses_are_refused_saying_what_is_wrong(url, words):
    problem = url_problem(url)
    assert problem and words in problem, problem


def test_dates_emails_and_language_tags_have_one_definition():
    assert date_problem("2026-11-28") is None and "calendar" in date_problem("2026-02-30")
    assert date_problem("28/11/2026") is not None
    assert email_problem("editors@example.org") is None and email_problem("a b@example.org") is not None
    assert language_problem("en-GB") is None and language_problem("english") is not None


@pytest.fixture
def kb(tmp_path) -> Path:
    return minikb.write(tmp_path / "repo")


def _set(kb: Path, rel: str, edit) -> None:
    path = kb / rel
    data = yaml.safe_load(path.read_text())
    edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def test_a_source_address_with_a_space_quote_and_brackets_is_a_located_error_and_nothing_is_built(kb):
    _set(kb, "glossary/sources.yaml", lambda d: d["src-a"].update(url='https://example.org/a b"c<d>'))
    r = atlas(kb, "check")
    assert r.returncode == 2
    assert "glossary/sources.yaml:" in r.stdout + r.stderr and "src-a.url' contains a space" in r.stdout + r.stderr
    built = mkdocs_build(kb, kb / "site")
    assert built.returncode != 0 and "Traceback" not in built.stderr and "src-a.url" in built.stderr
    assert not (kb / "site").exists()


def test_an_impossible_date_is_a_located_error(kb):
    _set(kb, "glossary/sources.yaml", lambda d: d["src-b"].update(date="2026-02-30"))
    r = atlas(kb, "check")
    assert r.returncode == 2 and "'2026-02-30' is not a calendar date" in r.stdout + r.stderr


# --- every directive checked ---------------------------------------------------------------

@pytest.mark.parametrize("directive, message", [
    ("<!-- atlas:figure no-such-figure -->", "figure 'no-such-figure' does not exist"),
    ("<!-- atlas:figure ../../../etc/passwd -->", "is not an id: a figure is named, never a path"),
    ("<!-- atlas:figure rooflin -->", "did you mean 'roofline'"),
    ("<!--atlas:figur roofline-->", "unknown directive 'atlas:figur'"),
    ("<!-- atlas:figure -->", "needs a figure name"),
])
def test_a_directive_that_names_no_figure_is_a_located_error(kb, directive, message):
    page = kb / "docs" / "about.md"
    page.write_text(page.read_text() + "\nSome text.\n\n" + directive + "\n")
    line = page.read_text().splitlines().index(directive) + 1
    r = atlas(kb, "check")
    assert r.returncode == 2, r.stdout
    assert f"docs/about.md:{line}:1: " in r.stdout + r.stderr and message in r.stdout + r.stderr, r.stdout + r.stderr
    assert mkdocs_build(kb, kb / "site").returncode != 0 and not (kb / "site").exists()


def test_a_handwritten_link_with_a_script_scheme_is_a_located_error(kb):
    page = kb / "docs" / "about.md"
    page.write_text(page.read_text() + "\n[click](javascript:alert(1))\n")
    r = atlas(kb, "check")
    assert r.returncode == 2 and "docs/about.md:" in r.stderr and "may not use javascript" in r.stderr


# --- no export crashes on accepted input -----------------------------------------------------

URLS = st.one_of(
    st.sampled_from(["https://example.org/a", "https://bücher.de/ß", "http://[::1]/x", 'https://e.org/a b"<>',
                     "https://e.org/%", "javascript:alert(1)", "https://e.org/a'b(c)*!$", "https://e.org/#a#b",
                     "https://xn--bcher-kva.de/", "https://e.org/\u202e", "https://e.org/a?b=<script>"]),
    st.builds(lambda a, b: f"https://{a}.org/{b}", st.from_regex(r"[a-z0-9-]{1,12}", fullmatch=True),
              st.text(max_size=12)),
)


def every_export_parses(root: Path) -> None:
    """Run the generator and read back each data export with its own reader."""
    _, files, _ = build(root)
    rdflib.Graph().parse(data=files["glossary.skos.ttl"], format="turtle")
    rdflib.Graph().parse(data=files["glossary.skos.jsonld"], format="json-ld")
    for name in ("glossary.json", "graph/graph.json", "graph/graph-view.json", "search/entries.json",
                 "search/definitions.json"):
        json.loads(files[name])
    ET.fromstring(files["graph/graph.graphml"].encode("utf-8"))
    assert files["llms.txt"].startswith("#") and files["llms-full.txt"]
    assert all("\x00" not in text for text in files.values())


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
          phases=[Phase.explicit, Phase.generate])  # a failure is reported as found: shrinking a build takes minutes
@example(payload="``<script>window.__pwned=1</script>`", url="https://example.org/a")  # a title that looked like code
@given(payload=HOSTILE, url=URLS)
def test_whatever_atlas_check_accepts_every_export_takes(tmp_path_factory, payload, url):
    root = minikb.write(tmp_path_factory.mktemp("exp") / "repo", " " + payload)
    _set(root, "glossary/sources.yaml", lambda d: d["src-a"].update(url=url))
    docs, found = load_tree(root)
    findings = found + validate(docs)
    if findings:  # refused: with a place, and then no export is asked to take it
        assert all(f.path and f.line for f in findings), findings
        return
    every_export_parses(root)
    out = root.parent / "export"
    r = atlas(root, "markdown", str(out))
    assert r.returncode == 0, r.stderr[-2000:]
    built = subprocess.run([str(BIN / "mkdocs"), "build", "--strict", "-q"], cwd=out, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    assert inert(out / "site") == []


# --- the exit path is as safe as the site --------------------------------------------------

HANDWRITTEN_ATTACKS = """

<img src="x" onerror="window.__pwned=1"> <script>window.__pwned=2</script>

<div class="note" onmouseover="window.__pwned=3" markdown="1">

A [link](https://example.org){: onclick="window.__pwned=4" } and <a href="javascript:window.__pwned=5">a bad one</a>.

</div>

<svg viewBox="0 0 10 10" onload="window.__pwned=6"><circle cx="5" cy="5" r="4" onclick="window.__pwned=7"/></svg>

<iframe src="https://example.org"></iframe><style>body{display:none}</style>

Braces { onfocus=window.__pwned=8 autofocus } and <details open ontoggle="window.__pwned=9"><summary>x</summary></details>
"""


@pytest.fixture(scope="module")
def hostile_export(tmp_path_factory) -> Path:
    root = minikb.write(tmp_path_factory.mktemp("hostile") / "repo", ' <img src=x onerror="window.__pwned=10"> {: onclick=x }')
    about = root / "docs" / "about.md"
    about.write_text(about.read_text() + HANDWRITTEN_ATTACKS)
    assert atlas(root, "check").returncode == 0
    out = root.parent / "export"
    r = atlas(root, "markdown", str(out))
    assert r.returncode == 0, r.stderr
    return out


TAG_OR_ATTR_LIST = re.compile(r"<[A-Za-z][^<>]*>|(?<!&#123;)\{:?[^{}\n]*\}", re.S)
QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
LIVE = [
    re.compile(r"<(script|iframe|style|object|embed)\b", re.I),
    re.compile(r"(href|src)\s*=\s*[\"']?\s*javascript:", re.I),
]


def live_handlers(text: str) -> list[str]:
    """Event-handler attributes in raw tags and attribute lists (not in the quoted values)."""
    return [m.group(0)[:120] for m in TAG_OR_ATTR_LIST.finditer(text)
            if re.search(r"(^|[\s{<:])on[a-z]+\s*=", QUOTED.sub('""', m.group(0)))]


def test_the_exported_markdown_carries_no_handler_script_or_bad_scheme(hostile_export):
    pages = list((hostile_export / "docs").rglob("*.md"))
    assert len(pages) > 10
    for page in pages:
        _, _, text = split_front(page.read_text())  # front matter is data: Material escapes what it prints
        assert live_handlers(text) == [], page
        for pattern in LIVE:
            assert not pattern.search(text), (page, pattern.search(text).group(0))
    about = (hostile_export / "docs/about/index.md").read_text()
    assert '<div class="note" markdown="1">' in about and "<circle" in about  # allowed markup kept
    assert "window.__pwned=2" in about  # the script's text is shown as text, not run


@pytest.mark.parametrize("generator", ["mkdocs", "zensical"])
def test_plain_mkdocs_and_zensical_build_the_hostile_export_and_no_script_runs(hostile_export, generator, browser,
                                                                                 tmp_path):
    if generator == "zensical" and ZENSICAL is None:
        pytest.skip("zensical is not installed (make test installs it where Python >= 3.11)")
    folder = tmp_path / "src"
    shutil.copytree(hostile_export, folder)
    cmd = [str(BIN / "mkdocs"), "build", "--strict"] if generator == "mkdocs" else [ZENSICAL, "build"]
    r = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    site = folder / "site"
    assert inert(site) == []
    with serve(site) as base:
        page = browser.new_page()
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for path in ["/about/", "/glossary/decode/", "/sources/src-a/", "/engines/engine-x/"]:
            goto(page, base + path)
            assert "Braces" in page.content() or path != "/about/"
            for link in page.locator("article a").all()[:20]:  # the hover cards, as a reader opens them
                if link.is_visible():
                    link.hover(force=True)
            # and every event an injected handler could wait for, on every element of the content
            page.evaluate("""() => document.querySelectorAll('article *').forEach(el =>
                ['mouseover', 'mouseenter', 'focus', 'click', 'load', 'error', 'toggle', 'animationstart']
                  .forEach(type => el.dispatchEvent(new Event(type, {cancelable: true}))))""")
            assert page.evaluate("window.__pwned") is None, path
        assert dialogs == []
        page.close()
