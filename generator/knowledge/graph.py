"""Stage 4 — graph: one networkx MultiDiGraph built from the model, and its analyses.

A node per entry; a typed edge per declared relation (types from graph/relations.yaml),
per supported feature, format, backend and API of an engine, per engine family, per guide
recommendation, and a `mentions` edge per [[link]] in prose. Edge keys are relation names,
so the same relation between the same pair is stored once.
"""

from __future__ import annotations

import heapq
import json
import re
from functools import lru_cache
from itertools import chain
from typing import Iterable, Mapping

import networkx as nx

from generator.kb.model import Atlas
from generator.kb.text import WIKILINK_RE, compact_json


# Structured engine fields and the relation each supported cell stands for.
CELL_RELATIONS = {"features": "implements", "formats": "supports_format", "backends": "runs_on", "api": "implements"}
SUPPORTED = {"yes", "partial", "plugin"}


def build_graph(atlas: Atlas, mentions: dict[str, Iterable[str]] | None = None) -> nx.MultiDiGraph:
    """The concept graph. `mentions` maps an entry id to the ids its prose links to;
    by default these are the explicit [[links]] in each body."""
    links = mentions if mentions is not None else {
        e.id: [m.group(1) for m in WIKILINK_RE.finditer(e.body)] for e in atlas.entries.values()}
    return add_mentions(typed_graph(atlas), links)


def typed_graph(atlas: Atlas) -> nx.MultiDiGraph:
    """The concept graph without its prose mentions: every entry, and the relations the
    entries declare (in relations, engine support tables and guide recommendations)."""
    g = nx.MultiDiGraph()
    for e in atlas.entries.values():  # entries are sorted by id: stable node order
        g.add_node(e.id, kind=e.kind, title=e.title, category=e.category, url=e.url, short=e.short)
    for e in atlas.entries.values():
        for name, target in e.relations:
            g.add_edge(e.id, target, key=name, relation=name, origin="declared")
        if e.kind == "engine":
            family = e.get("family")
            if family and not g.has_edge(e.id, family, "is_a"):
                g.add_edge(e.id, family, key="is_a", relation="is_a", origin="family")
            for group, relation in CELL_RELATIONS.items():
                for target, cell in (e.get(group) or {}).items():
                    if cell["status"] in SUPPORTED and not g.has_edge(e.id, target, relation):
                        g.add_edge(e.id, target, key=relation, relation=relation, origin=group)
        if e.kind == "guide":
            for q in (e.get("questions") or {}).values():
                for opt in q["options"]:
                    for rec in opt.get("recommend", ()):
                        if not g.has_edge(e.id, rec["entry"], "recommends"):
                            g.add_edge(e.id, rec["entry"], key="recommends", relation="recommends", origin="guide")
    return g


def add_mentions(g: nx.MultiDiGraph, links: dict[str, Iterable[str]]) -> nx.MultiDiGraph:
    """`g` with a `mentions` edge from each entry to each entry its prose names, unless a
    typed relation links them already."""
    # Written into the graph's storage (G._succ, G._pred) as add_edge writes a new edge:
    # a hundred thousand add_edge calls at 10,000 entries took a third of a second, on one
    # core. (tests/test_graph.py holds the result to add_edge's, order included.)
    succ, pred = g._succ, g._pred
    for source in sorted(links):
        if source not in succ:
            continue
        out = succ[source]
        for target in sorted(set(links[source])):
            target = target.strip()
            if target != source and target in succ and target not in out:
                keys = {"mentions": {"relation": "mentions", "origin": "prose"}}
                out[target] = pred[target][source] = keys
    getattr(nx, "_clear_cache", lambda g: None)(g)  # what add_edge does after a change
    return g


def _succ(g: nx.MultiDiGraph, node: str) -> Mapping[str, Mapping[str, dict]]:
    """{target: {relation: data}} for the node's outgoing edges: the same as g.succ[node]
    (its edges, in the same order), read from the dict-of-dicts networkx documents as the
    graph's storage for subclasses (G._succ), since iterating its read-only views costs
    several times more, and every entry page reads its neighbours three times."""
    return g._succ[node]


def _pred(g: nx.MultiDiGraph, node: str) -> Mapping[str, Mapping[str, dict]]:
    """{source: {relation: data}} for the node's incoming edges, as g.pred[node]."""
    return g._pred[node]


def related(g: nx.MultiDiGraph, atlas: Atlas, entry_id: str) -> list[tuple[str, list[str]]]:
    """(label, [ids]) groups for an entry page, each relation read in its own direction:
    outgoing edges use the relation's label, incoming ones its inverse label."""
    groups: dict[str, set[str]] = {}
    order: list[str] = []

    def put(label: str, other: str) -> None:
        if label not in groups:
            groups[label] = set()
            order.append(label)
        groups[label].add(other)

    types = atlas.relation_types
    for target, rel in sorted((t, k) for t, keys in _succ(g, entry_id).items() for k in keys):
        if rel in types:
            put(types[rel].label, target)
    for source, rel in sorted((s, k) for s, keys in _pred(g, entry_id).items() for k in keys):
        if rel in types:
            put(types[rel].label if types[rel].symmetric else types[rel].inverse, source)
    title = lambda i: atlas.entries[i].title.casefold()  # noqa: E731
    return [(label, sorted(groups[label], key=title)) for label in order]


def backlinks(g: nx.MultiDiGraph, entry_id: str) -> list[str]:
    """Entries whose prose links here."""
    return sorted(s for s, keys in _pred(g, entry_id).items() if "mentions" in keys)


def to_json(g: nx.MultiDiGraph) -> str:
    """Node-link JSON; every edge carries its `relation`. Byte-identical for equal graphs.
    One node or edge per line, each written by orjson (the json module's encoder costs
    more to set up for one small object than to write it: 0.57 s against 0.25 s for this
    whole file at 10,000 entries)."""
    # What nx.node_link_data(g, edges="edges") holds, sorted: nodes by id, edges by source,
    # target and key, read from the graph's storage (G._node, G._succ) in that order.
    data = {"directed": g.is_directed(), "multigraph": g.is_multigraph(), "graph": dict(g.graph),
            "nodes": [{**attrs, "id": n} for n, attrs in sorted(g._node.items())],
            "edges": [{**attrs, "source": u, "target": v, "key": k}
                      for u, nbrs in sorted(g._succ.items()) for v, keys in sorted(nbrs.items())
                      for k, attrs in sorted(keys.items())]}
    fields = []
    for key, value in sorted(data.items()):
        if isinstance(value, list):
            inner = ",\n".join(["  " + compact_json(item) for item in value])
            fields.append(f' "{key}": [\n{inner}\n ]' if value else f' "{key}": []')
        else:
            fields.append(f' "{key}": {compact_json(value)}')
    return "{\n" + ",\n".join(fields) + "\n}\n"


def from_json(text: str) -> nx.MultiDiGraph:
    return nx.node_link_graph(json.loads(text), edges="edges", multigraph=True, directed=True)


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def to_graphml(g: nx.MultiDiGraph) -> str:
    """GraphML, as networkx writes it (every attribute a typed <key>, edge keys as edge
    ids), but written directly: networkx's lxml writer took 2.3 s at 10,000 entries, this
    takes a fifth of that. networkx reads it back (tested)."""
    from xml.sax.saxutils import escape, quoteattr

    @lru_cache(maxsize=None)  # ids, relation names and categories come back again and again
    def text(v: object) -> str:
        return escape(_NOT_XML.sub("", str(v)))

    @lru_cache(maxsize=None)
    def attr(v: object) -> str:
        return quoteattr(_NOT_XML.sub("", str(v)))

    def kind(v: object) -> str:
        return "boolean" if isinstance(v, bool) else "long" if isinstance(v, int) else "double" if isinstance(v, float) else "string"

    keys: dict[tuple[str, str], tuple[str, str]] = {}  # (for, name) -> (id, type)
    for what, items in (("node", (d for _, d in g.nodes(data=True))), ("edge", (d for *_, d in g.edges(data=True)))):
        for data in items:
            for name, value in data.items():
                if (what, name) not in keys:
                    keys[(what, name)] = (f"d{len(keys)}", kind(value))
    out = ["<?xml version='1.0' encoding='utf-8'?>\n",
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
           'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n']
    out += [f'<key id="{kid}" for="{what}" attr.name={attr(name)} attr.type="{typ}"/>\n' for (what, name), (kid, typ) in keys.items()]
    out.append(f'<graph edgedefault="{"directed" if g.is_directed() else "undirected"}">\n')

    def data(what: str, values: dict) -> str:
        return "".join(f'  <data key="{keys[(what, name)][0]}">{text(v)}</data>\n' for name, v in values.items())

    @lru_cache(maxsize=None)  # an edge's data is a relation and an origin: a handful of pairs in all
    def edge_data(items: tuple) -> str:
        return data("edge", dict(items))

    for n, values in g.nodes(data=True):
        out.append(f"<node id={attr(n)}>\n{data('node', values)}</node>\n")
    for u, nbrs in g._succ.items():  # as g.edges(keys=True, data=True), without its views
        source = attr(u)
        for v, edges in nbrs.items():
            target = attr(v)
            for k, values in edges.items():
                out.append(f"<edge source={source} target={target} id={attr(k)}>\n{edge_data(tuple(values.items()))}</edge>\n")
    out.append("</graph></graphml>\n")
    return "".join(out)


def to_gexf(g: nx.MultiDiGraph) -> str:
    return "\n".join(nx.generate_gexf(g)) + "\n"


LOCAL_GRAPH_LIMIT = 16
"""At most this many neighbours on an entry's local graph, so page size stays bounded."""


def local_graph(g: nx.MultiDiGraph, entry_id: str, order: Mapping[str, tuple[int, str]] | None = None) -> list[tuple[str, str, bool]]:
    """The entry's direct neighbours as (id, relation, outgoing), capped at
    LOCAL_GRAPH_LIMIT. Every relation gets a turn before any gets a second one, so a busy
    entry shows what it is, what it implements and what runs it rather than sixteen of one
    kind; the entry's own declared relations go first, then the rest in the order the
    entry lists them (the order of its matrix cells), incoming ones next, prose mentions
    last."""
    rank = {"declared": 0, "family": 0}
    seen: dict[str, tuple[int, str, bool]] = {}
    for target, keys in _succ(g, entry_id).items():
        for rel, data in keys.items():
            r = 3 if rel == "mentions" else rank.get(data.get("origin"), 1)
            if target not in seen or r < seen[target][0]:
                seen[target] = (r, rel, True)
    for source, keys in _pred(g, entry_id).items():
        for rel in keys:
            r = 3 if rel == "mentions" else 2
            if source not in seen or r < seen[source][0]:
                seen[source] = (r, rel, False)
    groups: dict[tuple[int, str, bool], list[str]] = {}
    for node, (r, rel, out) in seen.items():  # insertion order = the entry's own order
        groups.setdefault((r, rel, out), []).append(node)
    for key, nodes in groups.items():
        if key[0] >= 2:  # incoming and mentions: the best connected first
            # `order`: the same key for every node, worked out once per build by the caller.
            # No more than the limit can be shown: only those are put in order (the same
            # ones, in the same order, as sorting all and keeping the first).
            best = order.__getitem__ if order is not None else lambda n: (-g.degree(n), _folded_title(g, n))
            groups[key] = heapq.nsmallest(LOCAL_GRAPH_LIMIT, nodes, key=best)
    picked: list[tuple[str, str, bool]] = []
    queues = [(key, list(nodes)) for key, nodes in sorted(groups.items(), key=lambda kv: kv[0][0])]
    for tier in sorted({key[0] for key, _ in queues}):
        tier_queues = [(key, q) for key, q in queues if key[0] == tier]
        while len(picked) < LOCAL_GRAPH_LIMIT and any(q for _, q in tier_queues):
            for (r, rel, out), q in tier_queues:
                if q and len(picked) < LOCAL_GRAPH_LIMIT:
                    picked.append((q.pop(0), rel, out))
    return picked


def _folded_title(g: nx.MultiDiGraph, n: str) -> str:
    return g.nodes[n]["title"].casefold()


def degrees(g: nx.MultiDiGraph) -> dict[str, int]:
    """Every node's degree, as g.degree() counts it (each edge, in and out; a self-loop
    twice), summed from the graph's storage: the view's per-node calls cost several
    times as much at 10,000 entries."""
    succ, pred = g._succ, g._pred
    return {n: sum(map(len, succ[n].values())) + sum(map(len, pred[n].values())) for n in succ}


def importance(g: nx.MultiDiGraph) -> dict[str, float]:
    """PageRank over the typed edges and mentions, rounded so output is byte-stable.

    Links point both ways in meaning (vLLM implements PagedAttention; PagedAttention is
    implemented by vLLM), so it ranks the undirected structure: one edge per linked pair.
    The power iteration is networkx's own (`nx.pagerank`: alpha 0.85, uniform teleport,
    dangling nodes spread evenly), run with numpy on the edge list straight from the
    adjacency: building an undirected networkx graph first took four times as long at
    10,000 entries, and a scipy sparse matrix cost a quarter of a second just to import.
    A test holds it to nx.pagerank."""
    import numpy as np

    nodes = sorted(g.nodes)
    n = len(nodes)
    if n == 0:
        return {}
    at = {node: i for i, node in enumerate(nodes)}
    # Every linked pair once, whichever way and however many times it is linked: each
    # edge's two ends as one number (lower * n + higher), sorted and deduplicated by
    # numpy (by hand: np.unique took 60 ms for 166,000 pairs, sorting takes 2).
    succ = g._succ
    heads = np.fromiter(map(at.__getitem__, succ), dtype=np.int64, count=len(succ))
    ends = np.fromiter(map(at.__getitem__, chain.from_iterable(succ.values())), dtype=np.int64)
    starts = np.repeat(heads, np.fromiter(map(len, succ.values()), dtype=np.int64, count=len(succ)))
    pairs = np.sort(np.minimum(starts, ends) * n + np.maximum(starts, ends))
    pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))] if len(pairs) else pairs
    rows, cols = pairs // n, pairs % n
    loops = rows == cols  # a self-loop counts once, as in networkx's adjacency matrix
    src = np.concatenate([rows, cols[~loops]])  # every undirected edge both ways
    dst = np.concatenate([cols, rows[~loops]])
    out_degree = np.bincount(src, minlength=n).astype(float)
    inverse = np.divide(1.0, out_degree, out=np.zeros(n), where=out_degree != 0)
    dangling = np.flatnonzero(out_degree == 0)
    alpha, tol = 0.85, 1e-9
    x = np.full(n, 1.0 / n)
    teleport = np.full(n, 1.0 / n)
    for _ in range(1000):
        last = x
        spread = np.bincount(dst, weights=(x * inverse)[src], minlength=n)  # x times the row-normalised adjacency
        x = alpha * (spread + x[dangling].sum() * teleport) + (1 - alpha) * teleport
        if np.abs(x - last).sum() < n * tol:
            break
    return {node: round(float(v), 6) for node, v in zip(nodes, x)}


SPRING_LAYOUT_LIMIT = 600
"""Above this many nodes the force layout's quadratic cost dominates the build; larger
graphs are laid out in category clusters instead, in linear time."""


def layout(g: nx.MultiDiGraph, rank: dict[str, float] | None = None) -> dict[str, tuple[float, float]]:
    """Deterministic 2-D positions in [0, 1000] for the global graph page."""
    import math

    if g.number_of_nodes() == 0:
        return {}
    n = g.number_of_nodes()
    if n <= SPRING_LAYOUT_LIMIT:
        shape = (tuple(sorted(g.nodes)), tuple(sorted((u, v) for u, v, _ in g.edges(keys=True))))
        if _last_layout and _last_layout[0] == shape:  # an edit that moved no edge (`atlas serve`): 0.3 s saved
            return _last_layout[1]
        simple = nx.Graph()
        simple.add_nodes_from(shape[0])
        simple.add_edges_from(shape[1])
        pos = {k: (float(v[0]), float(v[1])) for k, v in nx.spring_layout(simple, seed=7, iterations=80, k=2.2 / n ** 0.5).items()}
    else:
        # Categories on a ring, each a sunflower of its members, most important at the centre.
        rank = rank or {}
        groups: dict[str, list[str]] = {}
        for node, data in sorted(g.nodes(data=True)):
            groups.setdefault(data["category"], []).append(node)
        pos = {}
        names = sorted(groups)
        for gi, cat in enumerate(names):
            members = sorted(groups[cat], key=lambda m: (-rank.get(m, 0), m))
            angle = 2 * math.pi * gi / len(names)
            cx, cy = math.cos(angle), math.sin(angle)
            spread = 0.9 * math.sqrt(len(members) / n)
            for i, m in enumerate(members):
                r = spread * math.sqrt((i + 0.5) / len(members))
                a = i * 2.39996323  # golden angle
                pos[m] = (cx + r * math.cos(a), cy + r * math.sin(a))
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    sx = 1000 / ((x1 - x0) or 1)
    sy = 1000 / ((y1 - y0) or 1)
    out = {node: (round((p[0] - x0) * sx, 1), round((p[1] - y0) * sy, 1)) for node, p in sorted(pos.items())}
    if n <= SPRING_LAYOUT_LIMIT:
        _last_layout[:] = [shape, out]
    return out


_last_layout: list = []
"""The last force layout and the graph shape it was made for: the same shape gives the
same positions, so a rebuild after an edit that moves no edge reuses them."""


def orphans(g: nx.MultiDiGraph) -> list[str]:
    """Entries with no edge at all."""
    succ, pred = g._succ, g._pred  # the graph's storage: no edge out, no edge in
    return sorted(n for n in succ if not succ[n] and not pred[n])


def mention_only(g: nx.MultiDiGraph) -> list[str]:
    """Entries that other entries only mention in prose: no typed relation reaches them."""
    rels: dict[str, set[str]] = {n: set() for n in g}
    for u, nbrs in g._succ.items():  # the graph's storage, as the views would read it
        for v, keys in nbrs.items():
            rels[u].update(keys)
            rels[v].update(keys)
    return sorted(n for n, r in rels.items() if r == {"mentions"})


PATH_COST = {"explains": 1, "typed": 3, "mentions": 8}
"""What a step costs a path between two entries: a relation that explains (relations.yaml
`explains`) 1, any other typed relation 3, a mention in prose 8. The path with the least
cost wins, so vLLM reaches memory bandwidth through what it implements and what that is
bottlenecked by, not through "runs on CPU inference"."""


def step_cost(rel: str, atlas: Atlas) -> int:
    t = atlas.relation_types.get(rel)
    return PATH_COST["mentions"] if t is None else PATH_COST["explains"] if t.explains else PATH_COST["typed"]


def explaining_path(g: nx.MultiDiGraph, atlas: Atlas, a: str, b: str) -> list[dict]:
    """The cheapest path from `a` to `b` over edges in either direction (PATH_COST), each
    step with its relation and how it reads in that direction. Raises nx.NetworkXNoPath."""
    u = nx.Graph()
    for x, y, rel in g.edges(keys=True):
        c = step_cost(rel, atlas)
        if not u.has_edge(x, y) or c < u[x][y]["cost"] or (c == u[x][y]["cost"] and rel < u[x][y]["rel"]):
            u.add_edge(x, y, cost=c, rel=rel, src=x)
    path = nx.dijkstra_path(u, a, b, weight="cost")
    types = atlas.relation_types
    steps = []
    for x, y in zip(path, path[1:]):
        d = u[x][y]
        rel, forward = d["rel"], d["src"] == x
        t = types.get(rel)
        reads = (t.label if forward or t.symmetric else t.inverse) if t else ("mentions" if forward else "mentioned by")
        steps.append({"from": x, "to": y, "relation": rel, "reads": reads, "explains": bool(t and t.explains)})
    return steps


def view_json(g: nx.MultiDiGraph, rank: dict[str, float] | None = None, atlas=None) -> str:
    """Compact data for the graph page: positions and sizes are computed here, at build time.
    With `atlas`, each node carries its aliases (find and path accept them: "H100") and the
    relations their human labels (the filters and the path read "is bottlenecked by", not
    `bottlenecked_by`)."""
    rank = rank if rank is not None else importance(g)
    pos = layout(g, rank)
    top = max(rank.values(), default=1) or 1
    aliases = {e.id: list(e.aliases) for e in atlas.entries.values()} if atlas is not None else {}
    nodes = [{"id": n, "t": d["title"], "k": d["kind"], "c": d["category"], "u": d["url"], "s": d["short"],
              "x": pos[n][0], "y": pos[n][1], "r": round(3 + 9 * (rank[n] / top) ** 0.5, 2),
              **({"a": aliases[n]} if aliases.get(n) else {})}
             for n, d in sorted(g._node.items())]
    edges = [[u, v, k] for u, nbrs in sorted(g._succ.items()) for v, keys in sorted(nbrs.items()) for k in sorted(keys)]
    labels = {"mentions": ["mentions", "is mentioned by"]}
    explains: list[str] = []
    if atlas is not None:
        labels.update({r.name: [r.label, r.inverse] for r in atlas.relation_types.values()})
        explains = sorted(r.name for r in atlas.relation_types.values() if r.explains)
    return compact_json({"nodes": nodes, "edges": edges, "labels": labels, "explains": explains, "cost": PATH_COST}) + "\n"
