"""Links that are right: a term link whose text is an everyday English word (Debian's
wamerican list, installed by `make test`) must mean the term. It is right when the word is
the entry's title or shares a stem with a word of it (decoding for Decode, tokens for
Token), or when graph/allowed.yaml lists it under linked_words with a reason; an alias that
is an everyday word meaning something else is an unlinked alias (FP16's 'half'), found by
search but never linked, so "over half a second" stays text."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from bs4 import BeautifulSoup

import minikb
from conftest import REPO, mkdocs_build

WORDS = Path("/usr/share/dict/words")


def _everyday(text: str, words: set[str]) -> bool:
    """A lowercase or capitalised word of the dictionary ('half', 'Checkpoint'); acronyms
    written in capitals (RAM, MoE, TOPS) are names, not everyday words."""
    return bool(re.fullmatch(r"[A-Za-z]+", text)) and text in (text.lower(), text.capitalize()) and text.lower() in words


def _shares_stem(word: str, title: str) -> bool:
    parts = [p.lower() for p in re.split(r"[\s\-/]+", title) if len(p) >= 4]
    return word == title.lower() or any(p.startswith(word[:5]) or word[:5] in p or p in word for p in parts)


def test_every_everyday_word_that_links_is_the_term_or_allowed_with_a_reason(site):
    assert WORDS.is_file(), "Debian's wamerican word list is required (make test installs it)"
    words = {w.strip().lower() for w in WORDS.read_text(encoding="utf-8", errors="replace").splitlines() if w.strip().isalpha()}
    allowed = yaml.safe_load((REPO / "graph/allowed.yaml").read_text(encoding="utf-8")).get("linked_words") or {}
    assert all(isinstance(r, str) and len(r) > 20 for r in allowed.values()), "each allowed word needs a reason"
    wrong, seen = {}, 0
    for page in site.rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        start, end = html.find("<article"), html.rfind("</article>")
        if start < 0:
            continue  # a moved entry's redirect: no article, no links
        soup = BeautifulSoup(html[start:end + 10], "html.parser")  # the article alone: the navigation was most of the parsing
        for a in soup.select("article a.atlas-term"):
            text = a.get_text(strip=True)
            if not _everyday(text, words):
                continue
            seen += 1
            word = text.lower()
            if not _shares_stem(word, a["data-atlas-title"]) and word not in allowed:
                wrong.setdefault(f"{word} -> {a['data-atlas-id']}", str(page.relative_to(site)))
    assert seen > 500  # the check looked at the real site's many word links
    assert wrong == {}, wrong


def test_half_links_fp16_only_where_it_means_the_format(tmp_path):
    root = minikb.write(tmp_path / "repo")
    fp16 = root / "glossary/terms/fp16.yaml"
    data = yaml.safe_load(fp16.read_text())
    data["aliases"] = ["half precision", "half"]
    data["unlinked_aliases"] = ["half"]
    fp16.write_text(yaml.safe_dump(data, sort_keys=False))
    # without the field, the linker would take the word
    from generator.knowledge.link import Linker, link_html
    from generator.pipeline import load_atlas

    atlas = load_atlas(root)
    linked, _ = link_html("<p>It takes over half a second.</p>", Linker.from_atlas(atlas), "about/")
    assert 'data-atlas-id="fp16"' not in linked
    data.pop("unlinked_aliases")
    fp16.write_text(yaml.safe_dump(data, sort_keys=False))
    linked, _ = link_html("<p>It takes over half a second.</p>", Linker.from_atlas(load_atlas(root)), "about/")
    assert 'data-atlas-id="fp16"' in linked
    data["unlinked_aliases"] = ["half"]
    fp16.write_text(yaml.safe_dump(data, sort_keys=False))
    page = root / "docs" / "about.md"
    page.write_text(page.read_text() + "\nA cold start takes over half a second. Weights in half precision take two bytes; "
                    "FP16 (half) too.\n")
    assert mkdocs_build(root, root / "site").returncode == 0
    soup = BeautifulSoup((root / "site/about/index.html").read_text(), "html.parser")
    para = next(p for p in soup.select("article p") if "cold start" in p.get_text())
    links = [(a.get_text(), a.get("data-atlas-id")) for a in para.select("a.atlas-term")]
    assert ("half precision", "fp16") in links  # the alias with its own meaning
    assert not any(text == "half" for text, _ in links)  # "over half a second" and "(half)" stay words
    real = yaml.safe_load((REPO / "glossary/terms/fp16.yaml").read_text())
    assert "half" in real["aliases"] and "half" in real["unlinked_aliases"]  # still found by search and atlas define
