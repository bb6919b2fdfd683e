"""Pages stay the same size as the knowledge base grows: the generator's output for two
synthetic corpora, four times apart in size (the benchmark measures the built HTML up to
10,000 entries; this is the quick check that runs with every test run)."""

import re
from pathlib import Path

import pytest

from bench.build import make_corpus
from generator.pipeline import build_site_files


@pytest.fixture(scope="module")
def two_sizes(tmp_path_factory) -> tuple[dict[str, str], dict[str, str]]:
    work = tmp_path_factory.mktemp("scale")
    out = []
    for n in (600, 2400):  # past 64 devices and a dozen models from the first: fit tables and KV charts at full size
        make_corpus(work / f"kb{n}", n)
        out.append(build_site_files(work / f"kb{n}"))
    return out[0], out[1]


def _entry_pages(files: dict[str, str]) -> dict[str, str]:
    return {p: t for p, t in files.items() if p.count("/") == 1 and p.split("/")[0] in ("glossary", "engines", "hardware", "models")
            and not p.endswith("/index.md")}


def test_entry_pages_do_not_grow_with_the_corpus(two_sizes):
    """Issue 48: the largest entry page grew 2.1x from 1,000 to 3,000 entries, because a
    model page's fit table had a row for every device and its KV table one for every model.
    The synthetic models and devices have real shapes and figures, so those tables are here."""
    small, large = (_entry_pages(f) for f in two_sizes)
    assert len(large) > 3.5 * len(small)
    biggest = lambda pages: max(len(t) for t in pages.values())  # noqa: E731
    assert biggest(large) < 1.25 * biggest(small)
    model = next(t for p, t in sorted(large.items()) if p.startswith("models/"))
    fit = model[model.index("{ #fit "):model.index("{ #fig-kv-cache")]
    assert fit.count("<tr><td>") <= 64 and re.search(r"\((\d+) of (\d+)\)", fit), "the fit table keeps its budget and says so"
    assert "calculator.md?model=" in fit and "rows=all" in fit  # every device is one click away


def test_the_comparison_matrix_keeps_a_bounded_number_of_engines(two_sizes):
    small, large = two_sizes
    for files in (small, large):
        engines = sum(1 for p in files if p.startswith("engines/") and p.count("/") == 1 and p != "engines/index.md")
        matrix = files["engines/compare/index.md"]
        header = next(line for line in matrix.splitlines() if line.startswith("<tr><th>Features</th>"))
        assert header.count("<th><a href=") == 24 < engines  # 24 engine columns, of every engine there is
        assert f"of {engines}" in matrix and "engine index" in matrix  # and the page says so
    assert len(large["engines/compare/index.md"]) < 1.25 * len(small["engines/compare/index.md"])


def test_a_large_glossary_is_split_into_alphabetical_parts_of_bounded_size(two_sizes, site):
    from conftest import REPO
    from generator.pipeline import load_atlas

    atlas = load_atlas(REPO)
    small, large = two_sizes
    assert not (site / "glossary" / "az").exists()  # the real catalogue, under 500 entries: one A-Z page
    real = (site / "glossary" / "index.html").read_text(encoding="utf-8")
    assert real.count("<li data-cat=") == len(atlas.entries)  # every entry and guide on it
    parts = sorted((p for p in large if p.startswith("glossary/az/")), key=lambda p: int(p.split("/")[-1][:-3]))
    small_parts = [p for p in small if p.startswith("glossary/az/")]
    assert len(parts) >= 3
    listed = []
    for i, p in enumerate(parts):
        text = large[p]
        items = re.findall(r'<li data-cat="[^"]*" data-names="[^"]*"><a href="([^"]+)"', text)
        assert 0 < len(items) <= 500
        listed += items
        assert ("Previous part" in text) == (i > 0) and ("Next part" in text) == (i < len(parts) - 1)
        assert f'<a href="az/{Path(p).stem}/">{i + 1}</a>' in large["glossary/index.md"]  # the overview links every part
    assert len(listed) == len(set(listed))  # each entry once, in one part
    titles = [t for t in re.findall(r'data-names="([^"|]*)', "".join(large[p] for p in parts))]
    assert titles == sorted(titles, key=str.casefold)  # consecutive alphabetical parts
    assert max(len(large[p]) for p in parts) < 1.5 * max(len(small[p]) for p in small_parts)  # parts of the same bound


def test_the_generator_leaves_no_pages_in_garbage_cycles(tmp_path):
    """The generator runs with the cycle collector off (timing.no_collections): anything
    it ties into a cycle stays in memory until it returns. What it leaves is the concept
    graph (networkx's cached views make it a cycle once the build drops it) and a few
    small objects per entry; no page, body or other long text, which would make memory
    grow with the corpus while the build runs. The SKOS export is the exception in count:
    rdflib's graph, store and serializers are cycles of small objects (about 84 per entry
    for 300 entries), found here whenever that job runs in this process rather than in a
    worker, which the job scheduler decides; they are collected as soon as the export
    returns (exports/linked_data.py), and they hold no page."""
    import gc

    make_corpus(tmp_path / "kb", 300)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        files = build_site_files(tmp_path / "kb")
        assert not gc.isenabled()  # the build put the collector back as it found it
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    entries = sum(1 for p in (tmp_path / "kb" / "glossary").rglob("*.yaml"))
    assert 0 < len(garbage) < 40 * entries + 90 * entries, len(garbage)  # (the graph's share + rdflib's, see above)
    long_texts = [r[:80] for o in garbage for r in gc.get_referents(o) if isinstance(r, str) and len(r) > 2000]
    assert not long_texts and len(files) > entries
