"""The term linker: which words become links, and that its cost follows the text, not the glossary."""

import time

from conftest import REPO

from generator.link import Linker, Target, link_html


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
    text = " ".join(f"word{i} decode the KV cache with prefix caching" for i in range(2000))

    def cost(n_terms: int) -> float:
        linker = Linker([(f"synthetic term {i}", target(f"t{i}")) for i in range(n_terms)] + [("decode", target("decode"))])
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            list(linker.find(text))
            best = min(best, time.perf_counter() - t)
        return best

    small, large = cost(100), cost(10_000)
    assert large < small * 3, (small, large)  # 100x the glossary, about the same time


def test_bare_entry_links_read_as_part_of_the_sentence():
    """[[id]] shows the title as running prose writes it: lower case mid-sentence for
    ordinary terms, the title at the start of a sentence, and names as they are."""
    from generator.handwritten import expand
    from generator.pipeline import load_atlas

    atlas = load_atlas(REPO)
    out = expand("Decode waits on [[memory-bandwidth]].\n\n[[memory-bandwidth]] caps it. "
                 "Serve it on [[kubernetes]] with [[vllm]] and [[ttft]] targets.", atlas, "learn/x.md")
    assert "waits on [memory bandwidth](../glossary/memory-bandwidth.md)" in out
    assert "\n\n[Memory bandwidth](../glossary/memory-bandwidth.md) caps it" in out
    assert "on [Kubernetes](" in out and "with [vLLM](" in out and "[Time to first token](" not in out


def test_relative_links_between_pages_match_the_standard_library():
    """The generator's fast relative path (no abspath, no getcwd) must give the links
    posixpath.relpath gives, for pages at every depth, siblings and look-alike folders."""
    import itertools
    import posixpath
    import random

    from generator.text import relpath

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

    from generator.link import relative_url

    rng = random.Random(11)
    parts = ["glossary", "glossaryx", "engines", "compare", "az", "2"]
    urls = {"", "glossary/", "glossary/kv-cache/", "engines/compare/", "404.html", "learn/flow/"}
    while len(urls) < 50:
        urls.add("/".join(rng.choice(parts) for _ in range(rng.randrange(1, 4))) + rng.choice(["/", "/page.html"]))
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
    from generator.link import NO_LINKS_BELOW

    out, linked = link_html(f"<p>decode</p>{NO_LINKS_BELOW}<p>TTFT and MoE</p>", LINKER, "learn/flow/")
    assert linked == ["decode"]
    assert "<p>TTFT and MoE</p>" in out and NO_LINKS_BELOW not in out
