"""The concept graph built from the real knowledge base: known facts, reading directions,
exports that round-trip, and determinism."""

import json

import networkx as nx
import pytest

from conftest import REPO
from generator.knowledge.graph import build_graph, from_json, related, to_graphml, to_json, typed_graph
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
    g = nx.read_graphml(path, force_multigraph=True)
    assert g.number_of_nodes() == graph.number_of_nodes()
    assert g.nodes["kv-cache"]["title"] == "KV cache"
    # Everything comes back: every node with every attribute, every edge with its key and data.
    assert dict(g.nodes(data=True)) == dict(graph.nodes(data=True))
    assert sorted(g.edges(keys=True, data=True), key=str) == sorted(graph.edges(keys=True, data=True), key=str)


def test_graphml_keeps_markup_and_odd_characters_as_text(tmp_path):
    g = nx.MultiDiGraph()
    g.add_node("a&b", title='<script>alert("x")</script> & \'q\'', short="ctrl\x01char", kind="term")
    g.add_node("b", title="B", short="", kind="term")
    g.add_edge("a&b", "b", key="uses", relation="uses", origin="declared")
    path = tmp_path / "g.graphml"
    path.write_text(to_graphml(g))
    back = nx.read_graphml(path, force_multigraph=True)
    assert back.nodes["a&b"]["title"] == '<script>alert("x")</script> & \'q\''
    assert back.nodes["a&b"]["short"] == "ctrlchar"  # not allowed in XML 1.0: dropped, not a broken file
    assert list(back.edges(keys=True, data=True)) == [("a&b", "b", "uses", {"relation": "uses", "origin": "declared"})]


def test_mentions_are_the_edges_networkx_add_edge_makes(atlas, graph):
    """add_mentions writes its edges into the graph's storage directly; the graph is the
    one networkx's own add_edge builds, in every view and in the order edges are read."""
    ref = typed_graph(atlas)
    named = mentions(atlas)
    for source in sorted(named):
        for target in sorted(set(named[source])):
            if target != source and target in ref and not ref.has_edge(source, target):
                ref.add_edge(source, target, key="mentions", relation="mentions", origin="prose")
    assert sum(1 for *_, k in graph.edges(keys=True) if k == "mentions") > 100
    assert list(graph.edges(keys=True, data=True)) == list(ref.edges(keys=True, data=True))
    assert list(graph.in_edges(keys=True, data=True)) == list(ref.in_edges(keys=True, data=True))
    assert dict(graph.degree()) == dict(ref.degree()) and to_json(graph) == to_json(ref)
    for u, v, k in graph.edges(keys=True):  # one data dict per edge, shared by both directions
        assert graph._succ[u][v][k] is graph._pred[v][u][k]


def test_exports_are_byte_identical_across_builds(atlas):
    a = build_graph(atlas, mentions(atlas))
    b = build_graph(load_atlas(REPO), mentions(atlas))
    assert to_json(a) == to_json(b) and to_graphml(a) == to_graphml(b)


def test_importance_is_networkx_pagerank_on_the_undirected_graph(graph):
    """The ranks that order search results and pick the comparison matrix's engines are
    networkx's PageRank of the undirected graph, computed without building that graph."""
    from generator.knowledge.graph import importance

    undirected = nx.Graph()
    undirected.add_nodes_from(graph.nodes)
    undirected.add_edges_from((u, v) for u, v, _ in graph.edges(keys=True))
    expected = nx.pagerank(undirected, alpha=0.85, tol=1e-9, max_iter=1000)
    got = importance(graph)
    assert got.keys() == expected.keys()
    assert max(abs(got[n] - expected[n]) for n in got) < 1e-6
    assert sorted(got, key=got.get)[-5:] == sorted(expected, key=expected.get)[-5:]
    # with a dangling node and a self-loop too
    small = nx.MultiDiGraph([("a", "b", "x"), ("b", "c", "x"), ("c", "c", "x")])
    small.add_node("lonely")
    ref = nx.Graph([("a", "b"), ("b", "c"), ("c", "c")])
    ref.add_node("lonely")
    want = nx.pagerank(ref, alpha=0.85, tol=1e-9, max_iter=1000)
    assert all(abs(importance(small)[k] - want[k]) < 1e-6 for k in want)


def test_degrees_and_orphans_read_from_storage_agree_with_networkx(graph):
    from generator.knowledge.graph import degrees, orphans

    g = graph.copy()
    g.add_node("lonely-test-node", title="Lonely", kind="term", category="x", url="/x/", short="x")
    g.add_edge("vllm", "vllm", key="mentions", relation="mentions", origin="prose")  # a self-loop counts twice
    assert degrees(g) == dict(g.degree()) and degrees(g)["lonely-test-node"] == 0
    assert orphans(g) == sorted(n for n in g.nodes if g.degree(n) == 0) and "lonely-test-node" in orphans(g)


def test_a_path_prefers_relations_that_explain():
    """vLLM to memory bandwidth: the shortest path by hops ran through 'runs on CPU inference'
    (an incidental relation); the cheapest by PATH_COST goes only through relations that explain."""
    import subprocess
    import sys
    from pathlib import Path

    from conftest import REPO

    atlas_bin = str(Path(sys.executable).parent / "atlas")
    out = subprocess.run([atlas_bin, "graph", "path", "vllm", "memory-bandwidth", "--json"], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr
    steps = json.loads(out.stdout)["steps"]
    assert steps[0]["from"] == "vllm" and steps[-1]["to"] == "memory-bandwidth"
    assert all(s["explains"] for s in steps) and not any(s["relation"] == "runs_on" for s in steps)
    text = subprocess.run([atlas_bin, "graph", "path", "vllm", "memory-bandwidth"], capture_output=True, text=True, cwd=REPO).stdout
    assert "relations used:" in text
