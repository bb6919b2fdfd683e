"""Changes a reader can follow: every entry's dated changes make a Recent changes page and
an Atom feed (read back here with feedparser, as a feed reader would), and an entry page
says when it last changed beside when its facts were last checked."""

from __future__ import annotations

import feedparser
import yaml
from bs4 import BeautifulSoup

from generator.render.jsonld import SITE_URL
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
        path = entry.link.split(SITE_URL, 1)[1]
        assert (site / path / "index.html").is_file(), entry.link
        title, what = entry.title.split(": ", 1)
        assert any(t == title and w == what for _, t, w, _ in changes), entry.title
    assert len({e.id for e in feed.entries}) == len(feed.entries)


def test_the_recent_changes_page_and_an_entry_say_what_changed(site):
    page = BeautifulSoup((site / "changes/index.html").read_text(encoding="utf-8"), "html.parser")
    text = page.get_text(" ", strip=True)
    assert "MLX-LM" in text and "0.32.2" in text and "6 December 2026" in text
    assert page.select_one('a[href="../changes.xml"], a[href="changes.xml"]') is not None
    ollama = BeautifulSoup((site / "engines/ollama/index.html").read_text(encoding="utf-8"), "html.parser")
    note = ollama.select_one(".atlas-checked").get_text(" ", strip=True)
    assert "Facts last checked" in note and "Last changed 28 November 2026" in note and "llama-server" in note


def test_every_page_names_the_feed_and_no_page_names_a_made_up_domain(site):
    """Issue 45 item 6: a feed reader pointed at any page finds the feed; the feed has Atom's
    required elements; nothing the build writes links a domain that does not exist."""
    import xml.etree.ElementTree as ET

    pages = sorted(site.rglob("index.html"))
    assert len(pages) > 300
    for p in pages:
        html = p.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in html:  # a moved entry's redirect, never shown
            continue
        head = BeautifulSoup(html[: html.index("</head>") + 7], "html.parser").head  # the head alone: the body is most of the page
        link = head.select_one('link[rel~="alternate"][type="application/atom+xml"]')
        assert link is not None, p
        assert (p.parent / link["href"]).resolve() == (site / "changes.xml").resolve(), (p, link["href"])
    written = [p for p in site.rglob("*") if p.suffix in (".html", ".xml", ".json", ".txt", ".ttl", ".jsonld")]
    assert [p for p in written if "inference-atlas.example.org" in p.read_text(encoding="utf-8", errors="replace")] == []
    about = (site / "about/index.html").read_text(encoding="utf-8")
    assert f"{SITE_URL}assets/atlas-embed.js" in about and (site / "assets/atlas-embed.js").is_file()
    atom = "{http://www.w3.org/2005/Atom}"
    root = ET.fromstring((site / "changes.xml").read_bytes())
    for tag in ("id", "title", "updated"):  # RFC 4287 4.1.1: a feed's required elements
        assert root.find(atom + tag) is not None and root.find(atom + tag).text, tag
    assert root.find(f"{atom}link[@rel='self']").get("href") == SITE_URL + "changes.xml"
    for e in root.findall(atom + "entry"):  # 4.1.2: an entry's
        assert all(e.find(atom + t) is not None for t in ("id", "title", "updated", "link"))


def test_the_recent_changes_are_grouped_by_week_and_name_the_release_that_prompted_them(site):
    from generator.knowledge.changes import week_of

    assert week_of("2026-12-06") == "2026-11-30" and week_of("2026-11-30") == "2026-11-30"
    page = BeautifulSoup((site / "changes/index.html").read_text(encoding="utf-8"), "html.parser")
    weeks = [h.get_text(" ", strip=True) for h in page.select("article h2")]
    assert weeks[0].startswith("Week of 30 November 2026") and len(weeks) == len(set(weeks)) >= 2
    text = page.get_text(" ", strip=True)
    assert "Prompted by MLX-LM 0.32.2" in text
    feed = feedparser.parse((site / "changes.xml").read_bytes())
    assert any(t.term == "MLX-LM 0.32.2" for e in feed.entries for t in e.get("tags", ()))
