"""The knowledge base as linked data, for machines that read the web rather than this site.

Two views of the same entries, with the same identifiers (each entry's page URL):
- `defined_term`: schema.org DefinedTerm JSON-LD for one entry page, in the DefinedTermSet
  that is the glossary. Emit puts it in the page's front matter; the theme prints it into
  <head> with Jinja's `tojson`, which writes `<`, `>`, `&` and `'` as \\u003c... escapes, so
  no entry text can close the script element (overrides/main.html). It never goes
  through the page content, whose sanitizer would strip a script element.
- `skos_files`: the whole glossary as a SKOS concept scheme (Turtle and JSON-LD), made
  with rdflib: is_a, part_of and variant_of become skos:broader (with skos:narrower back),
  every other declared relation skos:related, and each keeps its own property too
  (rdfs:subPropertyOf the SKOS one) so nothing the ontology says is lost.

Identifiers must be absolute, and emit knows nothing of MkDocs' configuration: SITE_URL
is mkdocs.yml's site_url, and tests/test_linked_data.py fails when the two differ.
"""

from __future__ import annotations

import gc
import json
from typing import Any

import networkx as nx

from generator.kb.model import Atlas

from generator.render.jsonld import (SCHEME_DESCRIPTION, SCHEME_NAME, SCHEME_PATH, SITE_URL, absolute,  # noqa: F401
                                     defined_term)

RELATIONS_NS = SITE_URL + "graph/#"  # the ontology's own relation types (graph/relations.yaml)
BROADER = ("is_a", "part_of", "variant_of")
"""Relations that make their target the broader concept. SKOS's broader covers kinds
(is_a), parts (part_of) and variants alike; every other relation is skos:related."""

def _broader_pairs(atlas: Atlas) -> list[tuple[str, str, str]]:
    return [(e.id, rel, target) for e in atlas.entries.values() for rel, target in e.relations
            if rel in BROADER and target in atlas.entries and target != e.id]


def skos_graph(atlas: Atlas):
    """The glossary as an rdflib Graph of SKOS concepts (one per entry, of every kind), in
    one scheme, with a collection per kind of entry and per category."""
    from rdflib import Graph, Literal, Namespace, URIRef
    from rdflib.namespace import DCTERMS, RDF, RDFS, SKOS

    from generator.kb.kinds import KIND_URLS

    rel = Namespace(RELATIONS_NS)
    g = Graph(bind_namespaces="none")
    for prefix, ns in (("skos", SKOS), ("dct", DCTERMS), ("rdfs", RDFS), ("rel", rel)):
        g.bind(prefix, ns)
    en = lambda text: Literal(text, lang="en")  # noqa: E731
    scheme = URIRef(SITE_URL + SCHEME_PATH)
    g.add((scheme, RDF.type, SKOS.ConceptScheme))
    g.add((scheme, SKOS.prefLabel, en(SCHEME_NAME)))
    g.add((scheme, DCTERMS.title, en(SCHEME_NAME)))
    g.add((scheme, DCTERMS.description, en(SCHEME_DESCRIPTION)))
    concept = {eid: URIRef(absolute(e.url)) for eid, e in atlas.entries.items()}

    for name, t in atlas.relation_types.items():
        p = rel[name]
        g.add((p, RDF.type, RDF.Property))
        g.add((p, RDFS.label, en(t.label)))
        g.add((p, RDFS.subPropertyOf, SKOS.broader if name in BROADER else SKOS.related))

    broader = nx.DiGraph()
    for a, _, b in _broader_pairs(atlas):
        broader.add_edge(a, b)
    above: dict[str, set[str]] = {}

    def ancestors(n: str) -> set[str]:  # every concept broader than n, transitively
        if n not in above:
            above[n] = nx.descendants(broader, n) if n in broader else set()
        return above[n]

    kinds: dict[str, list[str]] = {}
    categories: dict[str, list[str]] = {}
    for e in atlas.entries.values():
        c = concept[e.id]
        g.add((c, RDF.type, SKOS.Concept))
        g.add((c, SKOS.inScheme, scheme))
        g.add((c, SKOS.prefLabel, en(e.title)))
        for alias in e.aliases:
            g.add((c, SKOS.altLabel, en(alias)))
        g.add((c, SKOS.definition, en(e.short)))
        g.add((c, DCTERMS.identifier, Literal(e.id)))
        for sid in e.sources:
            s = atlas.sources.get(sid)
            if s is not None and s.url:
                g.add((c, DCTERMS.source, URIRef(s.url)))
        if not ancestors(e.id):
            g.add((c, SKOS.topConceptOf, scheme))
            g.add((scheme, SKOS.hasTopConcept, c))
        for name, target in e.relations:
            if target not in atlas.entries or target == e.id:
                continue
            t = concept[target]
            g.add((c, rel[name], t))
            if name in BROADER:
                g.add((c, SKOS.broader, t))
                g.add((t, SKOS.narrower, c))
            # skos:related may not join concepts that are broader or narrower than each
            # other (SKOS integrity condition S27): those keep only their own property.
            elif target not in ancestors(e.id) and e.id not in ancestors(target):
                g.add((c, SKOS.related, t))
                g.add((t, SKOS.related, c))
        kinds.setdefault(e.kind, []).append(e.id)
        categories.setdefault(e.category, []).append(e.id)

    from generator.render.labels import KIND_TITLES  # imported here: emit imports this module

    for kind, ids in kinds.items():
        _collection(g, URIRef(SITE_URL + KIND_URLS[kind] + "/"), KIND_TITLES[kind], [concept[i] for i in ids])
    for cid, ids in categories.items():
        cat = atlas.categories.get(cid)
        if cat is not None:
            _collection(g, URIRef(SITE_URL + f"categories/{cid}/"), cat.title, [concept[i] for i in ids], cat.short)
    return g


def _collection(g, node, title: str, members: list, definition: str | None = None) -> None:
    from rdflib import Literal
    from rdflib.namespace import RDF, SKOS

    g.add((node, RDF.type, SKOS.Collection))
    g.add((node, SKOS.prefLabel, Literal(title, lang="en")))
    if definition:
        g.add((node, SKOS.definition, Literal(definition, lang="en")))
    for m in members:
        g.add((node, SKOS.member, m))


JSONLD_CONTEXT = {
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "dct": "http://purl.org/dc/terms/",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "rel": RELATIONS_NS,
}


def _sorted(value: Any) -> Any:
    """rdflib's JSON-LD follows its store's set order, which changes from run to run:
    every list sorted, so the same glossary gives the same bytes."""
    if isinstance(value, dict):
        return {k: _sorted(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_sorted(v) for v in value), key=_key)
    return value


def _key(value: Any) -> str:
    if isinstance(value, dict):
        plain = value.get("@id") or value.get("@value")
        return plain if isinstance(plain, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def _skos_inputs(atlas: Atlas) -> tuple:
    """Everything skos_graph reads: an edit to a body changes none of it."""
    return (tuple((e.id, e.url, e.kind, e.category, e.title, tuple(e.aliases), e.short, tuple(e.sources),
                   tuple(e.relations)) for e in atlas.entries.values()),
            tuple((s.id, s.url) for s in atlas.sources.values()),
            tuple((t.name, t.label) for t in atlas.relation_types.values()),
            tuple((c.id, c.title, c.short) for c in atlas.categories.values()))


_last_skos: list = []
"""The last files and what they were made from: under `atlas serve`, an edit to a body
does not pay rdflib's serialisation again (about a second for the real glossary)."""


def skos_files(atlas: Atlas) -> dict[str, str]:
    """glossary.skos.ttl and glossary.skos.jsonld at the site root, from one graph."""
    inputs = _skos_inputs(atlas)
    if _last_skos and _last_skos[0] == inputs:
        return dict(_last_skos[1])
    g = skos_graph(atlas)
    ttl = g.serialize(format="turtle")
    doc = json.loads(g.serialize(format="json-ld", context=JSONLD_CONTEXT, auto_compact=True))
    jsonld = json.dumps(_sorted(doc), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    # rdflib's graph, store and serializers hold each other in cycles, and the build runs
    # with the cycle collector off (speed.timing.no_collections), so its terms and literals
    # (about 18,000 objects for 300 entries) would stay until the build ends. Collected
    # here: 0.05 s for the real knowledge base, 0.15 s at 2,000 entries, beside 0.65 s and
    # 2.6 s for the SKOS files themselves, and only when they are made again.
    del g, doc
    gc.collect()
    out = {"glossary.skos.ttl": ttl, "glossary.skos.jsonld": jsonld}
    _last_skos[:] = [inputs, out]
    return dict(out)


def jobs(atlas: Atlas) -> list:
    """Emit's jobs for this module (emit.Emitter.files runs them on any core)."""
    return [lambda: skos_files(atlas)]
