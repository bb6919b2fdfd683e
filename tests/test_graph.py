"""The concept graph built from the real knowledge base: known facts, reading directions,
exports that round-trip, and determinism."""

import json

import networkx as nx
import pytest

from conftest import REPO
from generator.graph import build_graph, from_json, related, to_graphml, to_json
from generator.pipeline import load_atlas, mentions


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


@pytest.fixture(scope="module")
def graph(atlas):
    return build_graph(atlas, mentions(atlas))


def test_known_facts(graph):
    assert graph.has_edge("vllm", "paged-attention", "implements")
    assert graph.has_edge("decode", "memory-bandwidth", "bottlenecked_by")
    assert graph.has_edge("nvidia-dynamo", "vllm", "orchestrates")
    assert graph.has_edge("ollama", "llama-cpp", "built_on")


def test_related_reads_each_relation_in_its_direction(atlas, graph):
    on_vllm = dict(related(graph, atlas, "vllm"))
    assert "paged-attention" in on_vllm["Implements"]
    on_paged = dict(related(graph, atlas, "paged-attention"))
    assert "vllm" in on_paged["Implemented by"]
    assert "sglang" in on_paged["Implemented by"]


def test_every_edge_is_typed_and_allowed_by_the_ontology(atlas, graph):
    for u, v, rel in graph.edges(keys=True):
        assert graph.edges[u, v, rel]["relation"] == rel
        if rel == "mentions":
            continue
        spec = atlas.relation_types[rel]
        assert graph.nodes[u]["kind"] in spec.sources, (u, rel, v)
        assert graph.nodes[v]["kind"] in spec.targets, (u, rel, v)


def test_json_export_round_trips_through_networkx(graph):
    text = to_json(graph)
    back = from_json(text)
    assert set(back.nodes) == set(graph.nodes)
    assert sorted(back.edges(keys=True)) == sorted(graph.edges(keys=True))
    assert all(d["relation"] for _, _, d in back.edges(data=True))
    assert json.loads(text)["edges"][0].keys() >= {"source", "target", "relation"}


def test_graphml_opens_in_networkx(graph, tmp_path):
    path = tmp_path / "g.graphml"
    path.write_text(to_graphml(graph))
    g = nx.read_graphml(path)
    assert g.number_of_nodes() == graph.number_of_nodes()
    assert g.nodes["kv-cache"]["title"] == "KV cache"


def test_exports_are_byte_identical_across_builds(atlas):
    a = build_graph(atlas, mentions(atlas))
    b = build_graph(load_atlas(REPO), mentions(atlas))
    assert to_json(a) == to_json(b) and to_graphml(a) == to_graphml(b)
