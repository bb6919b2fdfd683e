"""The knowledge base outside its own pages, read from the real built site with the tools
each format has: schema.org JSON-LD in every entry page's <head> (json, then rdflib's
JSON-LD processor), the glossary as SKOS (rdflib reads both files), llms.txt and
llms-full.txt (their structure, and every link resolves to a built file), each entry's
Markdown, and the 'Suggest a correction' link to the entry's YAML file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from bs4 import BeautifulSoup

import minikb
from conftest import REPO, mkdocs_build
from generator.exports.linked_data import SITE_URL
from generator.pipeline import load_atlas

SAMPLE = ["glossary/kv-cache", "glossary/paged-attention", "engines/vllm", "hardware/nvidia-h100-sxm", "models/llama-3-1-8b"]
# rdflib would fetch https://schema.org's context from the network: these tests read the
# page data offline with the part of that context they use (schema.org's own @vocab).
SCHEMA_CONTEXT = {"@vocab": "https://schema.org/", "url": {"@type": "@id"}}


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def _page(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path / "index.html").read_text(encoding="utf-8"), "html.parser")


def _jsonld(soup: BeautifulSoup) -> dict:
    scripts = soup.head.find_all("script", type="application/ld+json")
    assert len(scripts) == 1
    return json.loads(scripts[0].string)


def _site_file(site: Path, url: str) -> Path:
    assert url.startswith(SITE_URL), url
    path = urlparse(url).path.lstrip("/")
    return site / (path + "index.html" if path.endswith("/") or not path else path)


def test_site_url_in_the_generator_is_the_one_mkdocs_publishes_at():
    from mkdocs.config import load_config

    configured = load_config(str(REPO / "mkdocs.yml"))["site_url"]  # !ENV [ATLAS_SITE_URL, default]
    assert configured.rstrip("/") + "/" == SITE_URL
    assert "example" not in SITE_URL  # no made-up domain: the address make serve serves at, unless set


@pytest.mark.parametrize("path", SAMPLE)
def test_entry_pages_carry_a_defined_term_in_the_glossary_set(site, atlas, path):
    e = atlas.entries[path.split("/")[1]]
    data = _jsonld(_page(site, path))
    assert data["@context"] == "https://schema.org" and data["@type"] == "DefinedTerm"
    assert data["name"] == e.title and data["description"] == e.short and data["termCode"] == e.id
    assert data["url"] == data["@id"] == SITE_URL + path + "/"
    assert data.get("alternateName", []) == list(e.aliases)
    assert data["inDefinedTermSet"]["@type"] == "DefinedTermSet"
    assert data["inDefinedTermSet"]["url"] == SITE_URL + "glossary/"
    works = data["subjectOf"]
    assert len(works) == len(e.sources) and all(w["@type"] == "CreativeWork" and w["name"] for w in works)
    cited = {atlas.sources[s].url for s in e.sources if atlas.sources[s].url}
    assert cited == {w["url"] for w in works if "url" in w}


def test_every_entry_page_has_its_json_ld_and_other_pages_none(site, atlas):
    for e in atlas.entries.values():
        html = (site / e.url.strip("/") / "index.html").read_text(encoding="utf-8")
        assert html.count('<script type="application/ld+json">') == 1, e.id
    for other in ("index.html", "about/index.html", "glossary/index.html"):
        assert "application/ld+json" not in (site / other).read_text(encoding="utf-8")


def test_a_json_ld_processor_reads_the_page_data(site):
    from rdflib import Graph, Literal, Namespace, URIRef
    from rdflib.namespace import RDF

    schema = Namespace("https://schema.org/")
    for path in SAMPLE:
        data = _jsonld(_page(site, path))
        data["@context"] = SCHEMA_CONTEXT
        g = Graph().parse(data=json.dumps(data), format="json-ld")
        term = URIRef(SITE_URL + path + "/")
        assert (term, RDF.type, schema.DefinedTerm) in g
        assert (term, schema.termCode, Literal(path.split("/")[1])) in g
        assert (term, schema.inDefinedTermSet, URIRef(SITE_URL + "glossary/")) in g
        assert (URIRef(SITE_URL + "glossary/"), RDF.type, schema.DefinedTermSet) in g
        assert g.value(term, schema.name) and g.value(term, schema.description)


def test_hostile_text_stays_inert_in_the_json_ld(tmp_path):
    """A short that tries to close the script element stays a JSON string."""
    attack = "</script><script>alert(1)</script><!-- & '"
    root = minikb.write(tmp_path / "repo")
    path = root / "glossary" / "terms" / "kv-cache.yaml"
    data = yaml.safe_load(path.read_text())
    data["short"] = f"Stored keys and values {attack}"
    data["aliases"] = ["KV-cache", f"kv {attack}"]
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    result = mkdocs_build(root, root / "site")
    assert result.returncode == 0, result.stderr[-3000:]
    html = (root / "site" / "glossary" / "kv-cache" / "index.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(html, "html.parser")
    assert [s for s in soup.find_all("script") if "alert" in (s.string or "") and s.get("type") != "application/ld+json"] == []
    (ld,) = soup.find_all("script", type="application/ld+json")
    assert "<" not in ld.string and "\\u003c/script\\u003e" in ld.string
    parsed = json.loads(ld.string)
    assert parsed["description"] == data["short"] and f"kv {attack}" in parsed["alternateName"]


@pytest.fixture(scope="module")
def skos(site):
    from rdflib import Graph

    ttl = Graph().parse(site / "glossary.skos.ttl", format="turtle")
    jsonld = Graph().parse(site / "glossary.skos.jsonld", format="json-ld")
    return ttl, jsonld


def test_skos_files_parse_and_say_the_same(skos):
    from rdflib.compare import isomorphic

    ttl, jsonld = skos
    assert len(ttl) > 1000 and isomorphic(ttl, jsonld)


def test_every_entry_is_a_concept_with_a_label_and_the_scheme(skos, atlas):
    from rdflib import Literal, URIRef
    from rdflib.namespace import RDF, SKOS

    g = skos[0]
    scheme = URIRef(SITE_URL + "glossary/")
    assert (scheme, RDF.type, SKOS.ConceptScheme) in g
    concepts = set(g.subjects(RDF.type, SKOS.Concept))
    assert concepts == {URIRef(SITE_URL + e.url.lstrip("/")) for e in atlas.entries.values()}
    for c in concepts:
        assert len(list(g.objects(c, SKOS.prefLabel))) == 1, c
        assert (c, SKOS.inScheme, scheme) in g
        assert g.value(c, SKOS.definition) is not None
    kv = URIRef(SITE_URL + "glossary/kv-cache/")
    assert Literal("key-value cache", lang="en") in set(g.objects(kv, SKOS.altLabel))
    assert (kv, SKOS.broader, URIRef(SITE_URL + "glossary/attention/")) in g  # part_of
    assert (URIRef(SITE_URL + "glossary/attention/"), SKOS.narrower, kv) in g
    assert (kv, SKOS.related, URIRef(SITE_URL + "glossary/paged-attention/")) in g  # managed_by
    assert (kv, URIRef(SITE_URL + "graph/#managed_by"), URIRef(SITE_URL + "glossary/paged-attention/")) in g


def test_skos_related_never_joins_concepts_above_or_below_each_other(skos):
    """SKOS integrity condition S27: skos:related is disjoint from skos:broaderTransitive."""
    import networkx as nx
    from rdflib.namespace import SKOS

    g = skos[0]
    broader = nx.DiGraph(list(g.subject_objects(SKOS.broader)))
    for a, b in g.subject_objects(SKOS.related):
        assert not (a in broader and b in nx.descendants(broader, a)), (a, b)
        assert not (b in broader and a in nx.descendants(broader, b)), (a, b)


def test_llms_txt_follows_the_convention_and_every_link_resolves(site, atlas):
    text = (site / "llms.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# Inference Atlas" and lines[2].startswith("> ")
    assert [ln for ln in lines if ln.startswith("# ")] == [lines[0]]  # one H1
    sections = [ln[3:] for ln in lines if ln.startswith("## ")]
    assert sections == ["Glossary", "Engines", "Hardware", "Models", "Decision guides", "Optional"]
    items = [ln for ln in lines if ln.startswith("- ")]
    pattern = re.compile(r"- \[(?:[^\]\\]|\\.)+\]\((\S+)\)(?:: (.+))?$")
    assert all(pattern.fullmatch(ln) for ln in items), [ln for ln in items if not pattern.fullmatch(ln)][:3]
    links = re.findall(r"\]\((https?://[^)\s]+)\)", text)
    assert len(links) >= len(atlas.entries) + 5
    missing = [u for u in links if not _site_file(site, u).is_file()]
    assert missing == []
    for e in atlas.entries.values():
        assert f"({SITE_URL}{e.url.lstrip('/')}index.md.txt): {e.short}" in text


def test_llms_full_and_each_entrys_markdown(site, atlas):
    full = (site / "llms-full.txt").read_text(encoding="utf-8")
    assert full.startswith("# Inference Atlas\n\n> ")
    assert full.count("\n# ") == 0  # entries sit under the one H1
    for e in atlas.entries.values():
        md = (site / e.url.strip("/") / "index.md.txt").read_text(encoding="utf-8")
        assert md.startswith(f"# {e.title}\n\n> {e.short}\n")
        assert "[[" not in md and "[@" not in md  # links and citations expanded
        assert f"\n## {e.title}\n" in full
    kv = (site / "glossary/kv-cache/index.md.txt").read_text(encoding="utf-8")
    assert f"[PagedAttention]({SITE_URL}glossary/paged-attention/)" in kv
    assert "## Sources\n\n1. " in kv and "https://arxiv.org/abs/2309.06180" in kv
    links = re.findall(r"\]\((https?://[^)\s]+)\)", kv)
    assert links and all(_site_file(site, u).is_file() for u in links if u.startswith(SITE_URL))


@pytest.mark.parametrize("path", SAMPLE)
def test_suggest_a_correction_opens_the_entrys_yaml_file(site, atlas, path):
    e = atlas.entries[path.split("/")[1]]
    soup = _page(site, path)
    actions = soup.find("nav", class_="atlas-actions")
    links = {a.get_text(strip=True): a["href"] for a in actions.find_all("a")}
    repo = re.search(r"^repo_url:\s*(\S+)", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    if repo:  # the link opens the entry's own file in the configured repository
        assert links["Suggest a correction"] == f"{repo.group(1)}/edit/main/{e.path}"
    else:  # no repository configured: no link to a page that is not there, and no header link
        assert "Suggest a correction" not in links and soup.find(class_="md-source") is None
    assert (REPO / e.path).is_file() and e.path.endswith(f"/{e.id}.yaml")
    assert links["Copy as Markdown"] == links["View as Markdown"] == "index.md.txt"
    assert (site / path / "index.md.txt").is_file()


def test_with_a_repository_configured_every_entry_links_its_file_for_corrections(tmp_path):
    """One setting, repo_url, turns the correction links on (tests/minikb.py's knowledge base)."""
    import minikb
    from conftest import mkdocs_build

    root = minikb.write(tmp_path / "repo")
    config = root / "mkdocs.yml"
    config.write_text("repo_url: https://github.com/example/atlas\nedit_uri: edit/main/docs/\n" + config.read_text(encoding="utf-8"),
                      encoding="utf-8")
    assert mkdocs_build(root, root / "site").returncode == 0
    soup = BeautifulSoup((root / "site/glossary/decode/index.html").read_text(encoding="utf-8"), "html.parser")
    links = {a.get_text(strip=True): a["href"] for a in soup.find("nav", class_="atlas-actions").find_all("a")}
    assert links["Suggest a correction"] == "https://github.com/example/atlas/edit/main/glossary/terms/decode.yaml"
    assert soup.find(class_="md-source")["href"] == "https://github.com/example/atlas"
