"""The term linker: which words become links, and that its cost follows the text, not the glossary."""

import sys

from conftest import REPO

from generator.knowledge.link import Linker, Target, link_html


def target(i: str) -> Target:
    return Target(i, f"/glossary/{i}/", i.replace("-", " ").title(), f"Definition of {i} & <friends>.", "Runtime")


LINKER = Linker([("prefix caching", target("prefix-caching")), ("caching", target("caching")), ("TTFT", target("ttft")),
                 ("decode", target("decode")), ("KV cache", target("kv-cache")), ("MoE", target("moe")),
                 ("llama.cpp", target("llama-cpp")), ("GPU", target("gpu"))])


def ids(text: str) -> list[str]:
    return [m.target.id for m in LINKER.find(text)]


def test_longest_name_wins_and_hyphens_equal_spaces():
    assert ids("prefix caching beats caching") == ["prefix-caching", "caching"]
    assert ids("the KV-cache and the KV cache") == ["kv-cache", "kv-cache"]


def test_acronyms_match_exactly_and_ordinary_words_in_any_case():
    assert ids("ttft TTFT moe MoE") == ["ttft", "moe"]
    assert ids("Decode decode DECODE") == ["decode", "decode", "decode"]


def test_plurals_and_dotted_names():
    assert ids("two GPUs and KV caches; llama.cpp.") == ["gpu", "kv-cache", "llama-cpp"]


def test_html_links_first_mention_only_and_never_in_code_headings_or_links():
    html = ("<h2>decode</h2><p>We decode &amp; cache. <code>decode</code> <a href='x'>TTFT</a> "
            "and TTFT again, TTFT.</p><pre>MoE</pre><p data-atlas-nolink>MoE</p><p>MoE</p>")
    out, linked = link_html(html, LINKER, "learn/flow/")
    assert linked == ["decode", "ttft", "moe"]
    assert "<h2>decode</h2>" in out and "<code>decode</code>" in out and "<pre>MoE</pre>" in out
    assert out.count('data-atlas-id="ttft"') == 1
    assert 'href="../../glossary/decode/"' in out
    # Definitions are data: escaped inside the attribute, never live markup.
    assert 'data-atlas-short="Definition of decode &amp; &lt;friends&gt;."' in out


def test_an_entry_never_links_itself():
    _, linked = link_html("<p>decode and TTFT</p>", LINKER, "glossary/decode/", skip_id="decode")
    assert linked == ["ttft"]


def test_cost_grows_with_text_not_with_glossary_size():
    """Counted, not timed: the calls (Python and C) that finding the mentions makes are the
    same for a glossary of 100 names and one of 10,000; a scan per name would multiply them."""
    text = " ".join(f"word{i} decode the KV cache with prefix caching" for i in range(2000))

    def calls(n_terms: int) -> int:
        linker = Linker([(f"synthetic term {i}", target(f"t{i}")) for i in range(n_terms)] + [("decode", target("decode"))])
        count = 0

        def profile(frame, event, arg):
            nonlocal count
            if event in ("call", "c_call"):
                count += 1
        sys.setprofile(profile)
        try:
            found = list(linker.find(text))
        finally:
            sys.setprofile(None)
        assert len(found) == 2000  # every "decode", in both glossaries
        return count

    small, large = calls(100), calls(10_000)
    assert small > 2000 and large <= small * 1.05, (small, large)  # 100x the glossary, the same work


def test_bare_entry_links_read_as_part_of_the_sentence():
    """[[id]] shows the title as running prose writes it: lower case mid-sentence for
    ordinary terms, the title at the start of a sentence, and names as they are."""
    from generator.pages.handwritten import expand
    from generator.pipeline import load_atlas

    atlas = load_atlas(REPO)
    out = expand("Decode waits on [[memory-bandwidth]].\n\n[[memory-bandwidth]] caps it. "
                 "Serve it on [[kubernetes]] with [[vllm]] and [[ttft]] targets.", atlas, "learn/x.md")
    assert "waits on [memory bandwidth](../glossary/memory-bandwidth.md)" in out
    assert "\n\n[Memory bandwidth](../glossary/memory-bandwidth.md) caps it" in out
    assert "on [Kubernetes](" in out and "with [vLLM](" in out and "[Time to first token](" not in out


def test_prose_title_counts_match_their_regular_expressions():
    """Whether a title reads capitalised mid-sentence is decided by two counts, written
    with str.find for speed; they must be what the regular expressions that define them
    find, on every body of the knowledge base and on many made-up snippets."""
    import random
    import re

    from generator.render.page import _lower_uses, _mid_sentence_capitals
    from generator.pipeline import load_atlas

    texts = [e.body for e in load_atlas(REPO).entries.values()]
    rng = random.Random(7)
    bits = ["Word", "word", " ", "  ", "\n", "\t", "\u00a0", "a", "A", "1", ",", ";", ")", "'", "’", ".", "-", "/", "_",
            "é", "Wordy", "words"]
    texts += ["".join(rng.choice(bits) for _ in range(rng.randrange(16))) for _ in range(50_000)]
    words = ["Word"] + [m.group(0) for m in (re.match(r"[A-Z][a-z]+", t) for t in ("Memory", "Kubernetes", "Metal", "Speculative")) if m]
    for text in texts:
        for w in words:
            assert _mid_sentence_capitals(text, w) == len(re.findall(r"[a-z0-9,;)'’]\s+" + w + r"\b", text)), (w, text)
            assert _lower_uses(text, w.lower()) == len(re.findall(r"(?<![\w/.-])" + w.lower() + r"\b", text)), (w, text)


def test_relative_links_between_pages_match_the_standard_library():
    """The generator's fast relative path (no abspath, no getcwd) must give the links
    posixpath.relpath gives, for pages at every depth, siblings and look-alike folders."""
    import itertools
    import posixpath
    import random

    from generator.kb.text import relpath

    rng = random.Random(7)
    names = ["glossary", "glossaryx", "engines", "compare", "a", "b", "index.md", "kv-cache.md"]
    paths = {"index.md", "glossary/kv.md", "glossaryx/kv.md", "engines/compare/index.md"}
    while len(paths) < 60:
        paths.add("/".join(rng.choice(names[:6]) for _ in range(rng.randrange(0, 4))) + "/" + rng.choice(names[6:]))
    paths = {p.lstrip("/") for p in paths}
    for target, source in itertools.product(sorted(paths), sorted(paths)):
        assert relpath(target, source) == posixpath.relpath(target, posixpath.dirname(source) or "."), (target, source)


def test_term_link_hrefs_match_the_standard_library():
    """Term links in rendered pages use a fast relative URL; it must equal what
    posixpath.relpath gives for pages and targets at every depth, the home page included."""
    import itertools
    import posixpath
    import random

    from generator.knowledge.link import relative_url

    rng = random.Random(11)
    parts = ["glossary", "glossaryx", "engines", "compare", "az", "2"]
    urls = {"", "glossary/", "glossary/kv-cache/", "engines/compare/", "404.html", "learn/flow/"}
    while len(urls) < 50:
        urls.add("/".join(rng.choice(parts) for _ in range(rng.randrange(1, 4))) + rng.choice(["/", "/page.html", ""]))
    for target, page in itertools.product(sorted(urls), sorted(urls)):
        target = "/" + target
        base = "/" + page if page.endswith("/") or not page else posixpath.dirname("/" + page) + "/"
        rel = posixpath.relpath(target, base)
        expected = rel + "/" if target.endswith("/") and not rel.endswith("/") else rel
        assert relative_url(target, page) == expected, (target, page)


def test_skipped_elements_end_at_their_own_closing_tag():
    """A link, code or heading is skipped up to its matching closing tag, nested ones of the
    same name included; text after it links again. One left open ends where its parent does."""
    out, linked = link_html("<p><code>decode <code>TTFT</code> MoE</code> MoE <a href='x'>GPU <!-- </a> --> KV cache</a> "
                            "GPU</p>", LINKER, "learn/flow/")
    assert linked == ["moe", "gpu"]
    assert "<code>decode <code>TTFT</code> MoE</code>" in out and "KV cache</a>" in out
    _, linked = link_html("<p><a href='x'>decode TTFT</p><p>MoE", LINKER, "learn/flow/")
    assert linked == ["moe"]


def test_plural_of_the_last_word_only():
    # 'caches' is neither 'cach' + es nor a name + s; 'KVs' is a plural of a word that is not a whole name
    assert ids("GPUs, prefix cachings, caches and decodes") == ["gpu", "prefix-caching", "decode"]
    assert ids("GPUS gpus KVs cache") == ["gpu"]  # exact-case words keep their case before the ending


def test_nothing_is_linked_below_the_end_of_prose_marker():
    """Generated entry pages end their prose with a marker: the graph, relation lists and
    source titles below it get no term links, and the marker itself is not published."""
    from generator.knowledge.link import NO_LINKS_BELOW

    out, linked = link_html(f"<p>decode</p>{NO_LINKS_BELOW}<p>TTFT and MoE</p>", LINKER, "learn/flow/")
    assert linked == ["decode"]
    assert "<p>TTFT and MoE</p>" in out and NO_LINKS_BELOW not in out


# --- Markdown linking: entry pages are linked before MkDocs renders them ---------------

def _markdown():
    """Python-Markdown with the site's own extensions, as MkDocs runs it."""
    import markdown
    from mkdocs.config import load_config

    cfg = load_config(str(REPO / "mkdocs.yml"))
    return markdown.Markdown(extensions=cfg["markdown_extensions"], extension_configs=cfg["mdx_configs"])


def _term_links(html_text: str) -> list[tuple[str, str]]:
    import html as html_lib
    import re

    # (in any order: Python-Markdown writes an attribute list's attributes sorted)
    return [(re.search(r'data-atlas-id="([^"]*)"', attrs).group(1), html_lib.unescape(t)) for attrs, t in
            re.findall(r'<a\b([^>]*)>(.*?)</a>', html_text, re.S) if 'class="atlas-term"' in attrs]


def _without_term_links(html_text: str) -> str:
    import html as html_lib
    import re

    return html_lib.unescape(re.sub(r'<a class="atlas-term"[^>]*>(.*?)</a>', r"\1", html_text, flags=re.S))


def test_entry_pages_get_the_links_html_linking_would_give(monkeypatch):
    """Every entry page of the knowledge base, as the build writes it (mentions found as
    Markdown, the body's from the graph stage's reading of it) and rendered, has the very
    term links (same entries, same words, same order) that linking the rendered page
    without them gives, and the same text; linked once per page and once per section."""
    from pathlib import Path

    from generator import emit as emit_module
    from generator.pages import entry as entry_pages
    from generator.knowledge.graph import build_graph
    from generator.knowledge.link import NO_LINKS_BELOW
    from generator.knowledge.link_markdown import resolve_marks
    from generator.pipeline import load_atlas, scan_bodies

    atlas = load_atlas(REPO)
    linker = Linker.from_atlas(atlas)
    scans = scan_bodies(atlas, linker)
    g = build_graph(atlas, {i: scan.named for i, scan in scans.items()})
    found = {i: scan.found for i, scan in scans.items()}
    # Entry pages only, each as the build's Emitter writes it (the graph exports, indexes and
    # other files the whole emit also makes are not linked here and cost most of its time).
    plain_pages = emit_module.Emitter(atlas, g)  # no linker: the pages as they were before linking
    plain = {e.src_path: plain_pages.entry_page(e) for e in atlas.entries.values()}
    md = _markdown()
    for long_page, per_section in ((10**9, False), (0, True)):
        monkeypatch.setattr(entry_pages, "LONG_PAGE", long_page)
        pages = emit_module.Emitter(atlas, g, linker, found)
        marked = {e.src_path: pages.entry_page(e) for e in atlas.entries.values()}
        checked = 0
        for e in atlas.entries.values():
            if NO_LINKS_BELOW not in plain[e.src_path]:
                continue
            url = e.url.lstrip("/")
            expected, expected_ids = link_html(md.reset().convert(plain[e.src_path].split("\n---\n", 1)[1]), linker, url,
                                               skip_id=e.id, per_section=per_section)
            got = resolve_marks(md.reset().convert(marked[e.src_path].split("\n---\n", 1)[1]), linker, url)
            where = f"{Path(e.path).name} (per_section={per_section})"
            assert _term_links(got) == _term_links(expected), where
            assert [i for i, _ in _term_links(got)] == expected_ids, where
            assert _without_term_links(got) == _without_term_links(expected), where
            checked += 1
        assert checked > 200  # every term, engine, hardware and model page


def _md_link(markdown_text: str, **kw) -> tuple[str, list[str]]:
    """Marked, then resolved as `atlas markdown` writes it: Markdown links with the card's
    data as an attribute list (generator/exports/markdown.py)."""
    from generator.knowledge.link_markdown import link_markdown, resolve_marks

    marked, linked = link_markdown(markdown_text, LINKER, "glossary/x/", **kw)
    return resolve_marks(marked, LINKER, "glossary/x/", markdown=True), linked


def test_markdown_linking_leaves_code_headings_links_attributes_and_titles_alone():
    text = ("# decode\n\nTTFT in `decode` and\n\n```\nMoE\n```\n\n## GPU\n\n[KV cache](kv.md){ .x } {: #decode }\n\n"
            '!!! note "MoE"\n\n    MoE and [the\n    GPU](g.md "GPU title") <sup class="atlas-cite">[1](#s "decode")</sup> '
            "<https://gpu.example/decode> <!-- KV cache -->\n\nKV cache.")
    out, linked = _md_link(text)
    assert linked == ["ttft", "moe", "kv-cache"]
    rendered = _markdown().convert(out)
    assert [i for i, _ in _term_links(rendered)] == linked
    assert "<code>decode</code>" in rendered and '<h2 id="gpu">GPU' in rendered and 'title="GPU title"' in rendered
    assert '<p class="admonition-title">MoE</p>' in rendered and ">KV cache</a>.</p>" in rendered


def test_list_items_paragraphs_and_hard_line_breaks_end_a_name():
    for text in ("- prefix\n- caching", "prefix\n\ncaching", "prefix  \ncaching", "1. prefix\n2. caching"):
        assert _md_link(text)[1] == ["caching"], text
    assert _md_link("prefix\ncaching")[1] == ["prefix-caching"]  # one paragraph: one name


def test_markdown_linking_reads_escapes_as_the_characters_they_render_to():
    out, linked = _md_link("KV&#32;cache and GPU\\s, TTFT&amp;decode")
    assert linked == ["kv-cache", "gpu", "ttft", "decode"]
    assert '[KV&#32;cache](../kv-cache/index.md){ .atlas-term data-atlas-id="kv-cache"' in out
    assert '[GPU](../gpu/index.md){ .atlas-term' in out and '." }\\s, [TTFT]' in out


def test_markdown_linking_per_section_and_never_itself():
    text = "decode TTFT\n\n## One\n\ndecode TTFT\n\n### Sub\n\nTTFT"
    assert _md_link(text, skip_id="decode")[1] == ["ttft"]
    assert _md_link(text, skip_id="decode", per_section=True)[1] == ["ttft", "ttft"]


def test_a_term_link_inside_a_table_cell_keeps_the_table_and_its_definition_intact():
    """A definition can hold characters Markdown reads before it sees a tag: the bar that
    splits table cells, backticks, brackets, backslashes, quotes and braces. Written into
    Markdown (`atlas markdown`), the link's attribute list holds them as character
    references, so the table keeps its cells and the hover card its text; resolved in
    HTML, they are escaped as HTML."""
    from bs4 import BeautifulSoup

    from generator.knowledge.link_markdown import link_markdown, resolve_marks

    tricky = Target("gpu", "/glossary/gpu/", "GPU", 'A | B `code` [x](y) back\\slash & <b>bold</b> "q" {b}', "Hardware")
    linker = Linker([("GPU", tricky)])
    marked, _ = link_markdown("| a | b |\n|---|---|\n| one GPU | two |\n", linker, "glossary/x/")
    for html_text, href in ((_markdown().convert(resolve_marks(marked, linker, "glossary/x/", markdown=True)), "../gpu/index.md"),
                            (resolve_marks(_markdown().convert(marked), linker, "glossary/x/"), "../gpu/")):
        soup = BeautifulSoup(html_text, "html.parser")
        assert [td.get_text() for td in soup.find_all("td")] == ["one GPU", "two"]
        link = soup.find("a", class_="atlas-term")
        assert link["data-atlas-short"] == tricky.short and link["href"] == href
        assert soup.find("b") is None and soup.find("code") is None


def test_a_term_link_in_raw_html_stays_an_html_link_and_one_in_markdown_becomes_a_markdown_link():
    """Python-Markdown reads no Markdown inside a raw HTML block (a line that opens a
    block-level element), so a mark there becomes an <a> tag; inside md_in_html's
    markdown="1" and in ordinary text, a Markdown link. Rendered, all three are links."""
    text = '<ol class="x"><li>GPU</li>\n</ol>\n\nTTFT\n\n<div markdown="1">\n\nMoE\n\n</div>\n'
    out, linked = _md_link(text)
    assert '<li><a class="atlas-term" href="../gpu/" data-atlas-id="gpu"' in out
    assert "[TTFT](../ttft/index.md){ .atlas-term" in out and "[MoE](../moe/index.md){ .atlas-term" in out
    assert [i for i, _ in _term_links(_markdown().convert(out))] == linked == ["gpu", "ttft", "moe"]


def test_marks_in_authored_text_make_no_link_and_do_not_survive():
    """The loader refuses files that hold the marks (tests/test_load.py); should one reach
    a page anyway, a mark with an unknown id links nothing, and none is left on the page."""
    from generator.knowledge.link_markdown import MARK_CLOSE, MARK_MID, MARK_OPEN, resolve_marks

    forged = f"{MARK_OPEN}nope{MARK_MID}click{MARK_CLOSE} {MARK_OPEN}decode{MARK_MID}x{MARK_CLOSE} stray{MARK_MID}"
    out = resolve_marks(f"<p>{forged}</p>", LINKER, "glossary/x/")
    assert out.startswith("<p>click ") and out.endswith(" stray</p>")
    assert not any(c in out for c in MARK_OPEN + MARK_MID + MARK_CLOSE)


def test_pages_are_the_same_whether_bodies_are_read_once_or_twice():
    """Emit takes the body's mentions from the graph stage's reading of it; reading the
    body again instead gives every generated file byte for byte."""
    from generator.emit import emit
    from generator.knowledge.graph import build_graph
    from generator.pipeline import load_atlas, scan_bodies

    atlas = load_atlas(REPO)
    linker = Linker.from_atlas(atlas)
    scans = scan_bodies(atlas, linker)
    g = build_graph(atlas, {i: scan.named for i, scan in scans.items()})
    once = emit(atlas, g, linker, {i: scan.found for i, scan in scans.items()})
    twice = emit(atlas, g, linker)
    assert once.keys() == twice.keys()
    assert [p for p in once if once[p] != twice[p]] == []
    assert sum('"atlas_linked":true' in t for t in once.values()) > 200


def test_no_link_inside_a_compound_or_a_file_name():
    """tpu-inference is a project, vLLM-Metal a plugin, decode_x.py a file: a term inside
    them is part of another name, so it stays unlinked; standing alone it is linked."""
    linker = Linker([("inference", target("inference")), ("Metal", target("metal")), ("TPU", target("tpu")),
                     ("decode", target("decode")), ("KV cache", target("kv-cache"))])
    text = "tpu-inference on a TPU; vLLM-Metal uses Metal; decode_x.py and x.decode; the KV-cache and decode."
    assert [text[m.start:m.end] for m in linker.find(text)] == ["TPU", "Metal", "KV-cache", "decode"]
