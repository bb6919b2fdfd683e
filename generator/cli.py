"""The `atlas` command: the same stages as the site build, for authors and scripts.

Exit codes: 0 ok, 1 findings (nothing wrong with the input, but the answer is "no": an
unknown term, no path), 2 bad input or usage (validation errors, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Sequence

from generator.kb.findings import AtlasError
from generator.kb.model import Atlas, Entry
from generator.pipeline import find_root, load_atlas
from generator.kb.validate import normalise

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


def _finite(text: str) -> float:
    """A number option: NaN and infinity are refused (usage error, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
    return value


def _print_json(value) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True))


def _load(args) -> Atlas:
    return load_atlas(Path(args.root) if args.root else find_root())


def entry_json(e: Entry) -> dict:
    return {"id": e.id, "kind": e.kind, "title": e.title, "aliases": list(e.aliases), "category": e.category,
            "short": e.short, "url": e.url, "sources": list(e.sources)}


def lookup(atlas: Atlas, query: str) -> tuple[Entry | None, list[str]]:
    """An entry by id, title or alias (case and spacing ignored); else the closest names."""
    names: dict[str, str] = {}
    for e in atlas.entries.values():
        for name in (e.id, e.title, *e.aliases):
            names.setdefault(normalise(name), e.id)
    key = normalise(query)
    if key in names:
        return atlas.entries[names[key]], []
    hyphenless = key.replace("-", " ")
    for name, eid in names.items():
        if name.replace("-", " ") == hyphenless:
            return atlas.entries[eid], []
    import difflib
    close = difflib.get_close_matches(key, list(names), n=5, cutoff=0.6)
    seen, out = set(), []
    for c in close:
        eid = names[c]
        if eid not in seen:
            seen.add(eid)
            out.append(atlas.entries[eid].title)
    return None, out


def cmd_check(args) -> int:
    try:
        atlas = _load(args)
    except AtlasError as exc:
        if args.json:
            _print_json({"ok": False, "errors": [f.as_dict() for f in exc.findings]})
        else:
            print(exc.report(), file=sys.stderr)
        return EXIT_BAD_INPUT
    from generator.knowledge.graph import build_graph
    from generator.pipeline import author_findings, mentions

    root = Path(args.root) if args.root else find_root()
    from generator.kb.freshness import stale_findings

    found = author_findings(root, atlas, build_graph(atlas, mentions(atlas))) + stale_findings(atlas, root)
    errors = [f for f in found if f.severity == "error"]
    warnings = [f for f in found if f.severity != "error"]
    if errors:
        if args.json:
            _print_json({"ok": False, "errors": [f.as_dict() for f in errors], "warnings": [f.as_dict() for f in warnings]})
        else:
            print(AtlasError(errors).report(), file=sys.stderr)
        return EXIT_BAD_INPUT
    counts = {k: len(atlas.of_kind(k)) for k in ("term", "engine", "hardware", "model", "guide")}
    if not args.json:
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
    if args.json:
        _print_json({"ok": True, "errors": [], "warnings": [w.as_dict() for w in warnings], "counts": counts,
                     "sources": len(atlas.sources)})
    else:
        parts = ", ".join(f"{n} {k}{'s' if n != 1 and k != 'hardware' else ''}" for k, n in counts.items())
        print(f"ok: {parts}, {len(atlas.sources)} sources")
    return EXIT_OK


def cmd_define(args) -> int:
    atlas = _load(args)
    entry, suggestions = lookup(atlas, args.term)
    if entry is None:
        if args.json:
            _print_json({"found": False, "query": args.term, "did_you_mean": suggestions})
        else:
            hint = f" — did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
            print(f"no entry for '{args.term}'{hint}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.json:
        _print_json({"found": True, **entry_json(entry)})
        return EXIT_OK
    cat = atlas.categories.get(entry.category)
    print(f"{entry.title}  [{entry.kind}{' · ' + cat.title if cat else ''}]")
    if entry.aliases:
        print(f"also: {', '.join(entry.aliases)}")
    print()
    print(entry.short)
    print()
    print(f"page:    {entry.url}")
    print(f"sources: {', '.join(atlas.sources[s].title for s in entry.sources)}")
    return EXIT_OK


def cmd_list(args) -> int:
    atlas = _load(args)
    entries = [e for e in atlas.entries.values() if not args.kind or e.kind == args.kind]
    if args.json:
        _print_json([entry_json(e) for e in entries])
    else:
        for e in entries:
            print(f"{e.id:32} {e.kind:9} {e.title}")
    return EXIT_OK


def cmd_graph_export(args) -> int:
    from generator.knowledge.graph import build_graph, to_gexf, to_graphml, to_json

    g = build_graph(_load(args))
    text = {"json": to_json, "graphml": to_graphml, "gexf": to_gexf}[args.format](g)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_graph_path(args) -> int:
    import networkx as nx

    from generator.knowledge.graph import build_graph

    atlas = _load(args)
    ends = []
    for q in (args.source, args.target):
        e, sugg = lookup(atlas, q)
        if e is None:
            print(f"no entry for '{q}'" + (f" — did you mean {', '.join(repr(s) for s in sugg)}?" if sugg else ""), file=sys.stderr)
            return EXIT_BAD_INPUT
        ends.append(e.id)
    g = build_graph(atlas)
    try:
        path = nx.shortest_path(g.to_undirected(as_view=True), ends[0], ends[1])
    except nx.NetworkXNoPath:
        print(f"no path between {atlas.entries[ends[0]].title} and {atlas.entries[ends[1]].title}", file=sys.stderr)
        return EXIT_FINDINGS
    steps = []
    types = atlas.relation_types
    for a, b in zip(path, path[1:]):
        if g.has_edge(a, b):
            rel = sorted(g[a][b])[0]
            label = types[rel].label if rel in types else rel
        else:
            rel = sorted(g[b][a])[0]
            label = (types[rel].label if types[rel].symmetric else types[rel].inverse) if rel in types else "mentioned by"
        steps.append({"from": a, "to": b, "relation": rel, "reads": label})
    if args.json:
        _print_json({"path": path, "steps": steps})
    else:
        print(atlas.entries[path[0]].title)
        for s in steps:
            print(f"  --{s['reads']}--> {atlas.entries[s['to']].title}")
    return EXIT_OK


def cmd_recommend(args) -> int:
    from generator.knowledge.guides import GuideError, option, walk

    atlas = _load(args)
    guides = {e.id: e for e in atlas.of_kind("guide")}
    guide = guides.get(args.guide)
    if guide is None:
        e, sugg = lookup(atlas, args.guide)
        if e is not None and e.kind == "guide":
            guide = e
        else:
            names = [g for g in sugg if any(x.title == g for x in guides.values())]
            print(f"no guide '{args.guide}'" + (f" — did you mean {', '.join(repr(n) for n in names)}?" if names else "")
                  + f"; guides: {', '.join(guides)}", file=sys.stderr)
            return EXIT_BAD_INPUT
    answers: dict[str, str] = {}
    for a in args.answer or []:
        if "=" not in a:
            print(f"--answer takes QUESTION=OPTION, not '{a}'", file=sys.stderr)
            return EXIT_BAD_INPUT
        q, o = a.split("=", 1)
        answers[q.strip()] = o.strip()
    qs = guide.get("questions")
    try:
        state = walk(guide, answers)
        while state.leaf is None:
            q = qs[state.question]
            if args.json:  # a script asked: the question it must answer next, as data (exit 1: not finished)
                _print_json({"guide": guide.id, "status": "question", "answered": [
                    {"question": st.question, "option": st.option} for st in state.steps],
                    "question": {"id": state.question, "text": q["text"], "help": q.get("help", ""),
                                 "options": [{"id": o["id"], "label": o["label"]} for o in q["options"]]},
                    "answer_with": f"--answer {state.question}=OPTION"})
                return EXIT_FINDINGS
            if not sys.stdin.isatty():
                opts = ", ".join(f"{o['id']} ({o['label']})" for o in q["options"])
                print(f"question '{state.question}' needs an answer: {q['text']}\n  --answer {state.question}=OPTION, OPTION one of: {opts}", file=sys.stderr)
                return EXIT_BAD_INPUT
            print(f"\n{q['text']}")
            if q.get("help"):
                print(f"  {q['help']}")
            for i, o in enumerate(q["options"], 1):
                print(f"  {i}. {o['label']}")
            choice = input("> ").strip()
            picked = next((o for i, o in enumerate(q["options"], 1) if choice in (str(i), o["id"])), None)
            if picked is None:
                print(f"  answer with a number from 1 to {len(q['options'])}")
                continue
            answers[state.question] = picked["id"]
            state = walk(guide, answers)
    except GuideError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    except (EOFError, KeyboardInterrupt):
        return EXIT_BAD_INPUT
    leaf = state.leaf
    path = [{"question": s.question, "text": qs[s.question]["text"], "option": s.option,
             "label": option(guide, s.question, s.option)["label"],
             "sources": list(option(guide, s.question, s.option).get("sources", ()))} for s in state.steps]
    recs = [{"id": r["entry"], "title": atlas.entries[r["entry"]].title, "url": atlas.entries[r["entry"]].url,
             "setting": r.get("setting", ""), "when": r.get("when", ""), "why": r["why"], "sources": list(r["sources"])}
            for r in leaf["recommend"]]
    # What the page shows at this answer too: who disagrees, and what else to weigh (the
    # last question's advice, then the answer's own).
    disputes = [{"claim": d["claim"], "verdict": d.get("verdict", ""),
                 "positions": [{"says": p["says"], "sources": list(p["sources"])} for p in d["positions"]]}
                for d in leaf.get("disputes", ())]
    last_q = qs[state.steps[-1].question] if state.steps else {}
    advice = [{"text": a["text"], "sources": list(a["sources"])} for a in [*last_q.get("advice", ()), *leaf.get("advice", ())]]
    share = f"{guide.url}?answers={','.join(s.option for s in state.steps)}#walk"
    calc = dict(leaf["calculator"]) if leaf.get("calculator") else None
    if args.json:
        _print_json({"guide": guide.id, "path": path, "recommend": recs, "note": leaf.get("note", ""),
                     "disputes": disputes, "advice": advice, "url": share, "calculator": calc})
        return EXIT_OK
    titles = lambda ids: "; ".join(atlas.sources[s].title for s in ids)  # noqa: E731
    print(f"\n{guide.title}: our answer")
    for r in recs:
        print(f"  -> {r['title']}" + (f", {r['setting']}" if r["setting"] else "") + (f"  ({r['when']})" if r["when"] else ""))
        print(f"     {r['why']}")
        print(f"     sources: {titles(r['sources'])}")
    if leaf.get("note"):
        print(f"\n  Sources disagree: {leaf['note']}")
    for d in disputes:
        print(f"\n  Sources disagree: {d['claim']}")
        for p in d["positions"]:
            print(f"    - {p['says']}  ({titles(p['sources'])})")
        if d["verdict"]:
            print(f"    Our reading: {d['verdict']}")
    for a in advice:
        print(f"\n  Also weigh: {' '.join(a['text'].split())}  ({titles(a['sources'])})")
    if calc:
        c = leaf["calculator"]
        args_ = " ".join([c["model"]] + [f"--{k} {c[k]}" for k in ("bits", "context", "concurrency") if k in c])
        print(f"\nFit and speed decide: run  atlas fit {args_}")
    print("\nWhy this answer:")
    for step in path:
        print(f"  {step['text']} {step['label']}")
    print(f"\nOn the site: {share}")
    return EXIT_OK


def cmd_compare(args) -> int:
    """Two to four engines side by side: every support row, or only where they differ."""
    from generator.knowledge.calc import CalcError, pick
    from generator.knowledge.compare import compare

    atlas = _load(args)
    try:
        engines = [pick(atlas, name, "engine") for name in args.engines]
    except CalcError as exc:
        print(f"atlas compare: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not 2 <= len({e.id for e in engines}) <= 4:
        print("atlas compare: name two to four different engines", file=sys.stderr)
        return EXIT_BAD_INPUT
    groups = compare(atlas, engines)
    if args.diff:
        groups = [dict(g, rows=[r for r in g["rows"] if r["differs"]]) for g in groups]
    if args.json:
        _print_json({"engines": [{"id": e.id, "title": e.title, "url": e.url} for e in engines], "groups": groups})
        return EXIT_OK
    width = max([len(r["title"]) for g in groups for r in g["rows"]] + [10])
    cols = [max(len(e.title), 9) for e in engines]
    print(" " * (width + 4) + "  ".join(_plain(e.title).ljust(w) for e, w in zip(engines, cols)))
    for g in groups:
        if not g["rows"]:
            continue
        print(f"\n{g['title']}")
        for r in g["rows"]:
            mark = "*" if r["differs"] else " "
            print(f"{mark} {_plain(r['title']).ljust(width)}  " + "  ".join(
                r["cells"][e.id]["status"].ljust(w) for e, w in zip(engines, cols)).rstrip())
    print("\n* the engines differ here; 'unknown': the entry states nothing (not a 'no'). Sources: atlas compare --json")
    return EXIT_OK


def _plain(text: str) -> str:
    """Text for a terminal: no control characters (escape sequences), whatever the data."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def cmd_fit(args) -> int:
    import dataclasses

    from generator.knowledge.calc import HOST_BANDWIDTH_GBS, MEASURED_BITS, CalcError, bits_for, device_spec, estimate, measured_for, model_spec, pick, prefill_for

    atlas = _load(args)
    reading = None
    try:
        if bool(args.config) == bool(args.model):
            raise CalcError("name a model from the atlas, or give --config config.json, not both")
        if args.config:
            from generator.knowledge.shape import read_text

            path = Path(args.config)
            if not path.is_file():
                raise CalcError(f"{args.config}: no such file")
            reading = read_text(path.read_text(encoding="utf-8", errors="replace"), name=f"{path.name} (your model)")
            model = reading.spec
        else:
            model = model_spec(pick(atlas, args.model, "model"))
        bits, label = bits_for(atlas, args.format, args.bits)
        devices = [pick(atlas, d, "hardware") for d in args.device] if args.device else [
            e for e in atlas.of_kind("hardware") if (e.get("specs") or {}).get("memory_gb") and e.get("class") not in ("cluster", "family")]
        rows = [(d, estimate(model, device_spec(d), bits, args.context, args.concurrency, args.kv_bits, args.overhead))
                for d in devices]
    except CalcError as exc:
        print(f"atlas fit: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    # This project's measurement of the pair (bench/gpu/results), one sequence at the measured
    # context nearest --context, in 16-bit weights and KV cache: beside the ceiling, not instead.
    measured = {d.id: measured_for(atlas, model.id, d.id, args.context) for d, _ in rows}
    prefilled = {d.id: prefill_for(atlas, model.id, d.id, args.context) for d, _ in rows}  # prompt length nearest --context
    comparable = bits == MEASURED_BITS and args.kv_bits == MEASURED_BITS
    if args.json:
        def with_measured(d, e) -> dict:
            got = measured[d.id]
            extra = dict(got.as_dict(), bits=MEASURED_BITS, kv_bits=MEASURED_BITS, source_title=atlas.sources[got.source].title, comparable=comparable) if got else None
            pre = prefilled[d.id]
            pre = dict(dataclasses.asdict(pre), source_title=atlas.sources[pre.source].title, comparable=comparable) if pre else None
            return dict(e.as_dict(), title=d.title, measured=extra, measured_prefill=pre)
        shape = ({"config": args.config, "params_total_b": round(reading.params_total_b, 3),
                  "params_active_b": round(reading.params_active_b, 3), "attention": model.attention,
                  "used": reading.used, "missing": reading.missing} if reading else None)
        _print_json({"model": model.id, "format": label, "bits_per_weight": bits, "context": args.context,
                     "concurrency": args.concurrency, "kv_bits": args.kv_bits, "from_config": shape,
                     "devices": [with_measured(d, e) for d, e in rows]})
        return EXIT_OK
    first = rows[0][1] if rows else None
    print(f"{model.title} in {label}: {args.concurrency} x {args.context:,} tokens, KV cache in {args.kv_bits:g}-bit")
    if reading:
        active = f", {reading.params_active_b:,.2f}B active" if model.active_b != model.params_b else ""
        print(f"  counted from the config: {reading.params_total_b:,.2f}B parameters{active}, {model.layers} layers, "
              f"attention {model.attention}" + (f", {model.sliding_layers} layers windowed at {model.sliding_window:,}" if model.sliding_window else ""))
        print(f"  fields read: {', '.join(reading.used)}")
        for m in reading.missing:
            print(f"  not in the config: {m}")
    if first:
        print(f"  weights {first.weights_gb:.1f} GB + KV cache {first.kv_gb:.1f} GB + overhead {first.overhead_gb:.1f} GB"
              f" = {first.total_gb:.1f} GB")
    many = args.concurrency > 1
    print(f"\n  {'device':34} {'memory':>8} {'fits':>5} {'decode max':>12}" + (f" {'all ' + str(args.concurrency):>14}" if many else "")
          + f" {'prefill max':>13}")
    notes: list[str] = []
    for d, e in rows:
        mem = f"{e.memory_gb:g} GB" if e.memory_gb else "-"
        fits = "-" if e.fits is None else ("yes" if e.fits else f"{e.devices_needed} x")
        dec = f"{e.decode_tps:,.0f} tok/s" if e.decode_tps else ("see below" if e.fits is False else "-")
        pre = (f"{e.prefill_tps:,.0f} tok/s" + ("" if e.prefill_precision in ("fp16", "bf16") else f" ({e.prefill_precision.upper()})")
               if e.prefill_tps else "-")
        total = (f"{e.decode_total_tps:,.0f} tok/s" + ("*" if e.decode_bound == "compute" else "")) if e.decode_total_tps else "-"
        print(f"  {_plain(d.title)[:34]:34} {mem:>8} {fits:>5} {dec:>12}" + (f" {total:>14}" if many else "") + f" {pre:>13}")
        if e.decode_bound == "compute":
            notes.append(f"  {_plain(d.title)}: * at {args.concurrency:,} sequences its tensor rate, not its memory bandwidth, "
                         "sets the decode ceiling (2 FLOP per active parameter per token).")
        if e.fits is False:
            line = (f"  {_plain(d.title)}: needs {e.total_gb:.1f} GB, more than its {e.memory_gb:g} GB. Split over "
                    f"{e.devices_needed} of them (tensor parallelism)")
            if e.split_decode_tps:
                line += (f", decode at most {e.split_decode_tps:,.0f} tok/s before the traffic between the cards "
                         f"(a direct link such as NVLink or a TPU's ICI carries it far faster than PCIe); or keep {e.memory_gb:g} GB on the card and offload "
                         f"{e.offload_gb:.1f} GB to system memory (read at {HOST_BANDWIDTH_GBS:g} GB/s, two DDR5-4800 "
                         f"channels): at most {e.offload_decode_tps:,.1f} tok/s")
            notes.append(line + ".")
        for why in e.missing:
            notes.append(f"  {_plain(d.title)}: {why}.")
        got = measured[d.id]
        if got and comparable:
            ran = (f"{got.layers_built} of {got.layers} layers run, per-layer time scaled to {got.layers}" if got.slice
                   else f"all {got.layers} layers")
            ceiling = f"{got.ceiling_tps:,.1f}" if got.ratio and got.ceiling_tps < 100 else f"{got.ceiling_tps or 0:,.0f}"
            ratio = f", {got.ratio:.2f} of the {ceiling} tok/s ceiling at that context" if got.ratio else ""
            notes.append(f"  {_plain(d.title)}: measured by this project {got.tokens_per_s:,.1f} tok/s for one sequence at "
                         f"{got.context:,} tokens{ratio} ({ran}; BF16, random weights, plain PyTorch, not a serving "
                         f"engine). Source: {_plain(atlas.sources[got.source].title)}, {got.record}.")
        pre = prefilled[d.id]
        if pre and comparable:
            notes.append(f"  {_plain(d.title)}: prefill measured by this project {pre.tokens_per_s:,.0f} tok/s for a "
                         f"{pre.prompt:,}-token prompt (first token in {pre.ttft_s * 1000:,.0f} ms)"
                         + (f", {pre.ratio:.2f} of the {pre.ceiling_tps:,.0f} tok/s prefill ceiling" if pre.ratio else "") + ".")
        if got and not comparable:
            notes.append(f"  {_plain(d.title)}: this project measured {_plain(model.title)} on it in 16-bit weights and "
                         f"KV cache only; run with --format bf16 --kv-bits 16 to see it beside the ceiling.")
    if notes:
        print()
        print("\n".join(dict.fromkeys(notes)))
    print("\n  Upper bounds from memory bandwidth and dense tensor FLOPS (16-bit; a device whose entry has only an FP8 or FP4\n"
          "  rate is marked so, and that rate needs a model quantized for it); real engines reach a fraction.")
    return EXIT_OK


def cmd_stale(args) -> int:
    """What is due for a re-check (kb/freshness.py): exit 1 when anything is, 0 when nothing."""
    from generator.kb.freshness import REVIEW_MONTHS, due

    atlas = _load(args)
    root = Path(args.root) if args.root else find_root()
    items = due(atlas, root)
    if args.json:
        _print_json({"review_months": REVIEW_MONTHS, "due": [d.as_dict() for d in items]})
    elif not items:
        print("nothing is due: every entry was checked within its review period "
              + ", ".join(f"({k} {m} months)" for k, m in REVIEW_MONTHS.items()))
    else:
        print(f"{len(items)} due for a re-check, most overdue first:")
        for d in items:
            print(f"  {d.path}:{d.line}: {d.field}: {d.why}")
    return EXIT_FINDINGS if items else EXIT_OK


def cmd_markdown(args) -> int:
    """The site as a source folder that MkDocs without our plugin, or Zensical, builds as
    it stands (generator/exports/markdown.py)."""
    root = Path(args.root) if args.root else find_root()
    from generator.exports.markdown import export
    from generator.pipeline import build

    try:
        written = export(root, Path(args.output), build(root))
    except (FileExistsError, ValueError) as exc:
        print(f"atlas markdown: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"wrote {written.pages} pages and {written.files} other files to {args.output}: "
          f"`zensical build` or `mkdocs build` there builds the site")
    return EXIT_OK


def cmd_serve(args) -> int:
    import logging

    from generator.serve.server import serve

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    logging.basicConfig(level=logging.INFO, format="%(levelname)-7s -  %(message)s")
    logging.getLogger("watchdog").setLevel(logging.WARNING)
    root = Path(args.root) if args.root else find_root()
    serve(root, host=args.host, port=args.port, site_dir=Path(args.site_dir) if args.site_dir else None)
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="atlas", description="Inference Atlas: check, query and export the knowledge base.")
    p.add_argument("--root", help="repository root (default: the nearest folder upwards that holds glossary/)")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("check", help="validate every entry; print each problem as path:line:col")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("define", help="show an entry by id, title or alias")
    s.add_argument("term")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_define)

    s = sub.add_parser("list", help="list entries")
    s.add_argument("--kind", choices=["term", "engine", "hardware", "model", "guide"])
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_list)

    g = sub.add_parser("graph", help="the concept graph").add_subparsers(dest="graph_command", required=True)
    s = g.add_parser("export", help="write the graph as node-link JSON, GraphML or GEXF")
    s.add_argument("--format", choices=["json", "graphml", "gexf"], default="json")
    s.add_argument("-o", "--output", help="file to write (default: standard output)")
    s.set_defaults(func=cmd_graph_export)
    s = g.add_parser("path", help="the shortest typed path between two entries")
    s.add_argument("source")
    s.add_argument("target")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_graph_path)

    s = sub.add_parser("recommend", help="walk a decision guide: asks its questions, or takes --answer")
    s.add_argument("guide", help="guide id, e.g. choose-an-engine")
    s.add_argument("--answer", action="append", metavar="QUESTION=OPTION", help="answer a question (repeatable)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_recommend)

    s = sub.add_parser("compare", help="two to four engines side by side, with where they differ")
    s.add_argument("engines", nargs="+", help="engine ids, titles or aliases")
    s.add_argument("--diff", action="store_true", help="only the rows where the engines differ")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("fit", help="memory and speed ceilings of a model on devices")
    s.add_argument("model", nargs="?", help="model id, title or alias (or --config)")
    s.add_argument("--config", metavar="CONFIG_JSON", help="a model the atlas does not hold: its Hugging Face config.json")
    s.add_argument("--device", action="append", help="hardware id (repeatable; default: every device with a memory figure)")
    s.add_argument("--format", help="weight format, e.g. fp16, fp8, nvfp4, Q4_K_M (default fp16)")
    s.add_argument("--bits", type=_finite, help="bits per weight, instead of --format")
    s.add_argument("--context", type=int, default=4096, help="tokens per sequence (default 4096)")
    s.add_argument("--concurrency", type=int, default=1, help="sequences served at once (default 1)")
    s.add_argument("--kv-bits", type=_finite, default=16, help="bits per KV-cache value (default 16)")
    s.add_argument("--overhead", type=_finite, default=0.10, help="activations and runtime, as a fraction of weights + cache")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_fit)

    s = sub.add_parser("stale", help="what is due for a re-check (per-kind review periods), most overdue first")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_stale)

    s = sub.add_parser("markdown", help="write the whole site source (pages linked, mkdocs.yml without the plugin) to a folder that Zensical or plain MkDocs builds")
    s.add_argument("output")
    s.set_defaults(func=cmd_markdown)

    s = sub.add_parser("serve", help="serve the site and rebuild only what an edit changes (make serve)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--site-dir", help="where to write the site (default: a temporary folder)")
    s.set_defaults(func=cmd_serve)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except AtlasError as exc:
        print(exc.report(), file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `atlas list | head`
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
