"""The `atlas` command: the same stages as the site build, for authors and scripts. Each
command with a report of its own has a module here (fit.py); common.py holds what they share.
The top layer: it may import every stage below it (pipeline, knowledge, kb, serve).

Exit codes: 0 ok, 1 findings (nothing wrong with the input, but the answer is "no": an
unknown term, no path, an engine behind), 2 bad input or usage (validation errors, bad
arguments), 3 a source could not be asked (`atlas upstream`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

from generator.kb.findings import AtlasError
from generator.kb.model import Atlas, Entry
from generator.pipeline import find_root
from generator.kb.validate import normalise

from generator.cli.common import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK, _finite, _load, _plain, _print_json
from generator.cli.fit import cmd_fit
from generator.cli.upstream import cmd_upstream
from generator.knowledge.compare import PLATFORMS
from generator.render.labels import SEGMENTS


def entry_json(e: Entry) -> dict:
    return {"id": e.id, "kind": e.kind, "title": e.title, "aliases": list(e.aliases), "category": e.category,
            "short": e.short, "url": e.url, "sources": list(e.sources)}


def lookup(atlas: Atlas, query: str) -> tuple[Entry | None, list[str]]:
    """An entry by id, title or alias (case and spacing ignored), or by the words of one when
    they name one entry only; else the closest names."""
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
    from generator.kb.names import by_words

    fits = by_words(atlas.entries.values(), query)  # 'H100 SXM' is NVIDIA H100 SXM
    if len(fits) == 1:
        return fits[0], []
    if fits:
        return None, [e.title for e in fits[:5]]
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

    from generator.knowledge.graph import build_graph, explaining_path

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
        steps = explaining_path(g, atlas, ends[0], ends[1])
    except nx.NetworkXNoPath:
        print(f"no path between {atlas.entries[ends[0]].title} and {atlas.entries[ends[1]].title}", file=sys.stderr)
        return EXIT_FINDINGS
    path = [ends[0]] + [s["to"] for s in steps]
    if args.json:
        _print_json({"path": path, "steps": steps})
    else:
        print(atlas.entries[path[0]].title)
        for s in steps:
            print(f"  --{s['reads']}--> {atlas.entries[s['to']].title}")
        used = sorted({s["reads"].lower() for s in steps})
        print(f"\n  relations used: {', '.join(used)}"
              + ("" if all(s["explains"] for s in steps) else " (relations that explain were preferred; where none joins them, others fill in)"))
    return EXIT_OK


def cmd_recommend(args) -> int:
    from generator.knowledge.guides import GuideError, option, walk
    from generator.knowledge.launch import released_label

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
    model = None
    if args.model:
        model, sugg = lookup(atlas, args.model)
        if model is None or model.kind != "model":
            print(f"no model '{args.model}'" + (f" — did you mean {', '.join(repr(n) for n in sugg[:3])}?" if sugg else "")
                  + "; atlas list model names them", file=sys.stderr)
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
    fm = None
    if model is not None:  # the engines that cannot load its released weights there are left out, and said
        from generator.knowledge.guides import for_model

        fm = for_model(atlas, guide, state.steps, leaf, model)
        by = {r["id"]: r for r in recs}
        recs = [dict(by[i], caveat=fm.caveats.get(i, "")) for i in fm.keep]
    # What the page shows at this answer too: who disagrees, and what else to weigh (the
    # last question's advice, then the answer's own).
    disputes = [{"claim": d["claim"], "verdict": d.get("verdict", ""),
                 "positions": [{"says": p["says"], "sources": list(p["sources"])} for p in d["positions"]]}
                for d in leaf.get("disputes", ())]
    last_q = qs[state.steps[-1].question] if state.steps else {}
    advice = [{"text": a["text"], "sources": list(a["sources"])} for a in [*last_q.get("advice", ()), *leaf.get("advice", ())]]
    share = f"{guide.url}?{'model=' + model.id + '&' if model is not None else ''}answers={','.join(s.option for s in state.steps)}#walk"
    calc = dict(leaf["calculator"]) if leaf.get("calculator") else None
    if args.json:
        _print_json({"guide": guide.id, "path": path, "recommend": recs, "note": leaf.get("note", ""),
                     "disputes": disputes, "advice": advice, "url": share, "calculator": calc,
                     "model": None if fm is None else {"id": model.id, "released": released_label(model), "platforms": list(fm.platforms),
                                                       "cannot": [{"id": i, "why": w} for i, w in fm.dropped.items()], "also": list(fm.also)}})
        return EXIT_OK
    titles = lambda ids: "; ".join(atlas.sources[s].title for s in ids)  # noqa: E731
    print(f"\n{guide.title}: our answer" + (f" for {model.title}" + (f", released as {released_label(model).upper()}" if released_label(model) else "") if fm else ""))
    for r in recs:
        print(f"  -> {r['title']}" + (f", {r['setting']}" if r["setting"] else "") + (f"  ({r['when']})" if r["when"] else ""))
        print(f"     {r['why']}")
        if r.get("caveat"):
            print(f"     with {model.title}: {r['caveat']}")
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
    if fm is not None:
        for i, w in fm.dropped.items():
            print(f"\n  Not for {model.title} here: {atlas.entries[i].title} does not load it" + (f" ({w})" if w else ""))
        if fm.also:
            print(f"\n  Other engines in this guide that load it there: {', '.join(atlas.entries[i].title for i in fm.also)}")
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
    groups = compare(atlas, engines, args.platform)
    if args.diff:
        groups = [dict(g, rows=[r for r in g["rows"] if r["differs"]]) for g in groups]
    if args.json:
        _print_json({"engines": [{"id": e.id, "title": e.title, "url": e.url} for e in engines], "platform": args.platform,
                     "groups": groups})
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
    print("\n* the engines differ here; 'unknown': the entry states nothing (not a 'no'). Sources: atlas compare --json"
          + (f"\n  Rows for {PLATFORMS[args.platform]}: backends and formats of other platforms left out." if args.platform else ""))
    return EXIT_OK


def cmd_stale(args) -> int:
    """What is due for a re-check (kb/freshness.py): exit 1 when anything is, 0 when nothing."""
    from generator.kb.freshness import FACT_MONTHS, REVIEW_MONTHS, due

    atlas = _load(args)
    root = Path(args.root) if args.root else find_root()
    items = due(atlas, root)
    if args.json:
        _print_json({"review_months": REVIEW_MONTHS, "fact_months": FACT_MONTHS, "due": [d.as_dict() for d in items]})
    elif not items:
        print("nothing is due: every entry was checked within its review period "
              + ", ".join(f"({k} {m} months)" for k, m in REVIEW_MONTHS.items())
              + ", and every cloud price was read within " + ", ".join(f"{m} months ({k})" for k, m in FACT_MONTHS.items()))
    else:
        print(f"{len(items)} due for a re-check, most overdue first:")
        for d in items:
            print(f"  {d.path}:{d.line}: {d.field}: {d.why}")
    return EXIT_FINDINGS if items else EXIT_OK


def cmd_markdown(args) -> int:
    """The site as a source folder that MkDocs without our plugin, or Zensical, builds as
    it stands (generator/exports/markdown.py)."""
    root = Path(args.root) if args.root else find_root()
    from generator.exports.markdown import export, ours
    from generator.pipeline import build

    try:
        if not ours(Path(args.output)):
            raise FileExistsError(f"{args.output} is not empty and was not written by `atlas markdown`")
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
    s.add_argument("--model", help="the model you will run: keep only engines that load its released weights on your hardware")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_recommend)

    s = sub.add_parser("compare", help="two to four engines side by side, with where they differ")
    s.add_argument("engines", nargs="+", help="engine ids, titles or aliases")
    s.add_argument("--diff", action="store_true", help="only the rows where the engines differ")
    s.add_argument("--platform", choices=list(PLATFORMS),
                   help="only the rows that matter on this platform (Metal and MLX only on apple, ...)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("fit", help="memory, speed ceilings and expected speed of a model on devices")
    s.add_argument("model", nargs="?", help="model id, title or alias (or --config)")
    s.add_argument("--config", metavar="CONFIG_JSON", help="a model the atlas does not hold: its Hugging Face config.json")
    s.add_argument("--device", action="append", help="hardware id (repeatable; default: every device with a memory figure)")
    s.add_argument("--where", choices=list(SEGMENTS), help="only devices of this group, as the calculator's filter has them")
    s.add_argument("--format", help="weight format, e.g. fp16, fp8, nvfp4, Q4_K_M (default: the model's released checkpoint, else fp16)")
    s.add_argument("--bits", type=_finite, help="bits per weight, instead of --format")
    s.add_argument("--context", type=int, default=4096, help="tokens per sequence (default 4096)")
    s.add_argument("--concurrency", type=int, default=1, help="sequences served at once (default 1)")
    s.add_argument("--engine", help="the engine you will run (llama.cpp, MLX-LM, vLLM ...): expected speeds from its published measurements")
    s.add_argument("--prompt", type=int, metavar="TOKENS", help="tokens in your prompt, for the time to the first token (default: the whole --context)")
    s.add_argument("--devices", type=int, default=1, metavar="N", help="how many of the device you have (default 1): fit and speed over all N")
    s.add_argument("--kv-bits", type=_finite, default=16, help="bits per KV-cache value (default 16)")
    s.add_argument("--overhead", type=_finite, default=0.10, help="activations and runtime, as a fraction of weights + cache")
    s.add_argument("--price-per-hour", type=_finite, metavar="USD", help="what one device-hour costs you (default: the entry's cloud price, if any)")
    s.add_argument("--price", action="append", metavar="DEVICE=USD", help="one device's hourly price, e.g. --price 'MI300X=2.10' (repeatable; overrides its cloud price and --price-per-hour)")
    s.add_argument("--kwh-price", type=_finite, metavar="USD", help="electricity per kWh, charged for the board's TDP")
    s.add_argument("--memory", type=_finite, metavar="GB", help="a device the atlas does not hold: its memory; with --device alone, that device in one of the memory sizes it is sold with (--device 'M2 Max' --memory 64)")
    s.add_argument("--bandwidth", type=_finite, metavar="GBPS", help="... its memory bandwidth in GB/s")
    s.add_argument("--tflops", type=_finite, metavar="T", help="... its dense 16-bit tensor TFLOPS (optional)")
    s.add_argument("--watts", type=_finite, metavar="W", help="... its board power (optional)")
    s.add_argument("--unified", action="store_true", help="... its memory is unified (Apple silicon, Ryzen AI Max, DGX Spark): the GPU's default share applies")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_fit)

    s = sub.add_parser("stale", help="what is due for a re-check (per-kind review periods), most overdue first")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_stale)

    s = sub.add_parser("upstream", help="each engine's as_of against the newest release its registry publishes, most overdue first (exit 1 when one is behind by more than --days, 3 when a source cannot be asked)")
    s.add_argument("engine", nargs="*", help="engine ids (default: every engine with a releases field)")
    s.add_argument("--days", type=int, default=30, help="how many days behind the first newer release counts as behind (default 30)")
    s.add_argument("--answers", metavar="FILE", help="recorded registry answers (JSON) instead of asking the network")
    s.add_argument("--today", metavar="YYYY-MM-DD", help="the date to measure from (default: today)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_upstream)

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
    if getattr(args, "root", None) is not None or not (find_root() / "glossary").is_dir():
        root = Path(args.root) if getattr(args, "root", None) else None
        if root is None or not (root / "glossary").is_dir():
            where = f"{root.resolve()}" if root else f"{Path.cwd().resolve()} and every folder above it"
            print(f"atlas: no knowledge base found: looked for a glossary/ folder in {where}. "
                  "Run atlas inside the repository, or name the repository with --root PATH.", file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        return args.func(args)
    except AtlasError as exc:
        print(exc.report(), file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `atlas list | head`
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
