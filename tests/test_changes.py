"""Changes a reader can follow: every entry's dated changes make a Recent changes page and
an Atom feed (read back here with feedparser, as a feed reader would), and an entry page
says when it last changed beside when its facts were last checked."""

from __future__ import annotations

import feedparser
import yaml
from bs4 import BeautifulSoup

from conftest import REPO


def _changes():
    out = []
    for path in sorted((REPO / "glossary").glob("*/*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("changes"):
            out += [(str(c["date"]), data["title"], c["what"], path) for c in data["changes"]]
    return out


def test_the_feed_parses_and_carries_the_newest_changes_with_links_that_exist(site):
    changes = _changes()
    assert len(changes) > 50
    feed = feedparser.parse((site / "changes.xml").read_bytes())
    assert not feed.bozo, feed.bozo_exception
    assert feed.feed.title == "Inference Atlas: recent changes"
    assert len(feed.entries) == min(100, len(changes))
    dates = [e.updated_parsed for e in feed.entries]
    assert dates == sorted(dates, reverse=True)  # newest first
    newest = max(d for d, _, _, _ in changes)
    assert feed.entries[0].updated.startswith(newest)
    for entry in feed.entries:
        path = entry.link.split("inference-atlas.example.org/", 1)[1]
        assert (site / path / "index.html").is_file(), entry.link
        title, what = entry.title.split(": ", 1)
        assert any(t == title and w == what for _, t, w, _ in changes), entry.title
    assert len({e.id for e in feed.entries}) == len(feed.entries)


def test_the_recent_changes_page_and_an_entry_say_what_changed(site):
    page = BeautifulSoup((site / "changes/index.html").read_text(encoding="utf-8"), "html.parser")
    text = page.get_text(" ", strip=True)
    assert "Ollama" in text and "removed in v0.30.0" in text and "28 November 2026" in text
    assert page.select_one('a[href="../changes.xml"], a[href="changes.xml"]') is not None
    ollama = BeautifulSoup((site / "engines/ollama/index.html").read_text(encoding="utf-8"), "html.parser")
    note = ollama.select_one(".atlas-checked").get_text(" ", strip=True)
    assert "Facts last checked" in note and "Last changed 28 November 2026" in note and "llama-server" in note
