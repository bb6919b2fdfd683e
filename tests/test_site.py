"""The real site: built with `mkdocs build --strict`, its HTML parsed as a reader gets it."""

import filecmp
import json
import re
from pathlib import Path
from urllib.parse import urljoin, urlparse

import lxml.html
import yaml
from bs4 import BeautifulSoup

from conftest import REPO, copy_repo, mkdocs_build


def page(site: Path, url: str) -> BeautifulSoup:
    return BeautifulSoup((site / url.strip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")


def fast(site: Path, url: str):
    """The page parsed by lxml (libxml2): several times faster than html.parser, for tests
    that read every page of the site."""
    return lxml.html.fromstring((site / url.strip("/") / "index.html").read_bytes())


def entry_yaml(kind_dir: str, entry_id: str) -> dict:
    return yaml.safe_load((REPO / "glossary" / kind_dir / f"{entry_id}.yaml").read_text(encoding="utf-8"))


def test_entry_page_shows_title_definition_links_and_sources(site):
    data = entry_yaml("terms", "kv-cache")
    soup = page(site, "/glossary/kv-cache/")
    article = soup.select_one("article")
    assert article.h1.get_text(strip=True).rstrip("¶") == data["title"]
    assert article.select_one(".atlas-lead").get_text(" ", strip=True) == " ".join(data["short"].split())
    for alias in data["aliases"]:
        assert alias in article.select_one(".atlas-meta").get_text()
    # Every [[link]] in the body became a link to that entry's page, and the page exists.
    hrefs = {urljoin("/glossary/kv-cache/", a["href"]) for a in article.find_all("a", href=True)}
    for target in re.findall(r"\[\[([a-z0-9-]+)", data["body"]):
        matches = [h for h in hrefs if h.rstrip("/").endswith("/" + target)]
        assert matches, f"no link to {target}"
        assert (site / matches[0].strip("/") / "index.html").exists()
    # Every listed source is in the Sources section, and each citation jumps to one of them.
    # and so is every source cited by the figure drawn from other entries' data (the KV-cache
    # chart's table cites each model's configuration: generator/figures/charts.py).
    sources = article.select(".atlas-source")
    ids = {p["id"] for p in sources}
    figure = {a["href"].lstrip("#") for t in article.find_all("table") if "KV cache per token" in t.get_text()
              for a in t.select(".atlas-cite a")}
    assert figure and len(sources) == len(ids) == len({f"src-{s}" for s in data["sources"]} | figure)
    assert ids == {f"src-{s}" for s in data["sources"]} | figure
    cites = article.select(".atlas-cite a")
    assert cites and all(a["href"].lstrip("#") in ids for a in cites)


def test_every_entry_in_glossary_json_has_its_page(site):
    items = json.loads((site / "glossary.json").read_text())
    assert {"kv-cache"} <= {i["id"] for i in items}
    for item in items:
        assert set(item) == {"id", "kind", "title", "aliases", "category", "short", "url"}
        assert (site / item["url"].strip("/") / "index.html").exists(), item["url"]
        h1 = fast(site, item["url"]).find(".//article//h1")
        assert h1.text_content().strip().rstrip("¶") == item["title"]


def test_entry_pages_are_not_in_the_nav(site):
    nav = page(site, "/").select_one("nav.md-nav--primary")
    hrefs = [a["href"] for a in nav.find_all("a", href=True)]
    assert any("glossary/" in h for h in hrefs)  # the glossary index is there ...
    assert not any("kv-cache" in h for h in hrefs)  # ... but no entry page


def test_no_page_loads_anything_from_outside_the_site(site):
    for html in site.rglob("*.html"):
        tree = lxml.html.fromstring(html.read_bytes())
        for tag, attr in (("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src")):
            for el in tree.iter(tag):
                url = el.get(attr)
                if url and not (tag == "link" and (el.get("rel") or "").split() in (["canonical"], ["alternate"])):
                    assert not urlparse(url).netloc, f"{html.relative_to(site)} loads {url}"


def test_two_builds_are_byte_identical(site, tmp_path):
    """Also the proof that rendering pages in several processes changes nothing: the
    session's site was rendered by two workers, this one in a single process."""
    again = tmp_path / "again"
    result = mkdocs_build(REPO, again, workers=1)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "generated pages in" not in result.stderr
    mine = sorted(p.relative_to(site) for p in site.rglob("*") if p.is_file())
    theirs = sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert mine == theirs
    different = [str(p) for p in mine if not filecmp.cmp(site / p, again / p, shallow=False)]
    assert different == []


def test_a_broken_knowledge_base_fails_the_build_and_writes_nothing(tmp_path):
    kb = copy_repo(tmp_path / "repo")
    entry = kb / "glossary/terms/kv-cache.yaml"
    entry.write_text(entry.read_text().replace("category: memory", "category: memroy\nshrot: oops"))
    site = tmp_path / "site"
    result = mkdocs_build(kb, site)
    assert result.returncode != 0
    assert "glossary/terms/kv-cache.yaml" in result.stderr
    assert "unknown category 'memroy' — did you mean 'memory'?" in result.stderr
    assert "unknown key 'shrot' — did you mean 'short'?" in result.stderr
    assert not site.exists()


def test_a_warning_on_a_page_rendered_by_a_worker_still_fails_the_strict_build(tmp_path):
    """Generated pages are rendered in forked workers; what MkDocs logs there must reach the
    reader and count in strict mode, exactly as in a one-process build."""
    from bench.build import make_corpus

    kb = tmp_path / "repo"  # a synthetic knowledge base: enough pages for the workers, built in seconds
    make_corpus(kb, 150)
    entry = kb / "glossary/terms/term-0.yaml"
    data = yaml.safe_load(entry.read_text())
    data["body"] = "See [the missing page](nowhere.md).\n\n" + data["body"]
    entry.write_text(yaml.safe_dump(data, sort_keys=False))
    for workers in (2, 1):
        site = tmp_path / f"site-{workers}"
        result = mkdocs_build(kb, site, workers=workers)
        assert result.returncode != 0
        assert ("generated pages in 2 processes" in result.stderr) == (workers == 2)
        assert result.stderr.count("Doc file 'glossary/term-0.md' contains a link 'nowhere.md', but the target "
                                   "'glossary/nowhere.md' is not found") == 1  # reported, and once
        assert "Aborted with 1 warnings in strict mode" in result.stdout + result.stderr


def test_the_home_page_has_a_title_of_its_own_and_other_pages_name_the_site_once(site):
    """Issue 48: the tab, bookmarks and search results read the home page's own title, not
    "Inference Atlas - Inference Atlas"; an entry page says its name, then the site's."""
    import re

    def title(path):
        return re.search(r"<title>([^<]*)</title>", (site / path).read_text(encoding="utf-8")).group(1).strip()

    home = title("index.html")
    assert home.startswith("Inference Atlas:") and home.count("Inference Atlas") == 1
    assert title("calculator/index.html") == "Memory and speed calculator - Inference Atlas"
