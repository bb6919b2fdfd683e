"""Decision guides as data: walking a guide, listing its paths, and its JSON for the page.

The page's walk-through, `atlas recommend` and the tests all walk guides through these
functions, so the three cannot disagree about where an answer leads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from generator.kb.model import Atlas, Entry
from generator.knowledge.calc.specs import VENDOR_PLATFORM


@dataclass(frozen=True)
class Step:
    question: str  # question id
    option: str  # option id chosen


@dataclass(frozen=True)
class Walk:
    steps: tuple[Step, ...]
    question: str | None  # the next question to answer, or None at an answer
    leaf: Mapping[str, Any] | None  # the option that ended the walk


class GuideError(ValueError):
    """An answer that does not fit the guide (unknown question or option, wrong order)."""


def questions(guide: Entry) -> Mapping[str, Any]:
    return guide.get("questions")


def option(guide: Entry, qid: str, oid: str) -> Mapping[str, Any]:
    for opt in questions(guide)[qid]["options"]:
        if opt["id"] == oid or oid in (opt.get("former_ids") or ()):  # a renamed option keeps old links working
            return opt
    raise GuideError(f"question '{qid}' has no option '{oid}'; options: {', '.join(o['id'] for o in questions(guide)[qid]['options'])}")


def walk(guide: Entry, answers: Mapping[str, str] | list[str]) -> Walk:
    """Follow answers from the start. `answers` is {question: option} or the option ids in order."""
    qs = questions(guide)
    by_question = dict(answers) if isinstance(answers, Mapping) else None
    ordered = list(answers) if by_question is None else []
    if by_question:
        unknown = [q for q in by_question if q not in qs]
        if unknown:
            raise GuideError(f"guide '{guide.id}' has no question '{unknown[0]}'; questions: {', '.join(qs)}")
    steps: list[Step] = []
    qid: str | None = guide.get("start")
    while qid is not None:
        if by_question is not None:
            oid = by_question.get(qid)
        else:
            oid = ordered[len(steps)] if len(steps) < len(ordered) else None
        if oid is None:
            return Walk(tuple(steps), qid, None)
        opt = option(guide, qid, oid)
        steps.append(Step(qid, oid))
        if "recommend" in opt:
            if by_question is None and len(ordered) > len(steps):
                raise GuideError(f"answer '{ordered[len(steps)]}' comes after the walk already ended")
            return Walk(tuple(steps), None, opt)
        qid = opt["next"]
    raise GuideError("guide has no start question")  # pragma: no cover - validation prevents it


def all_paths(guide: Entry) -> Iterator[tuple[Step, ...]]:
    """Every path from the start question to an answer (guides are acyclic: validated)."""
    qs = questions(guide)

    # A stack, not recursion: a guide of thousands of chained questions is data, not a crash.
    stack = [(guide.get("start"), ())]
    while stack:
        qid, trail = stack.pop()
        for opt in reversed(qs[qid]["options"]):  # reversed onto the stack: paths come out in order
            here = trail + (Step(qid, opt["id"]),)
            if "recommend" in opt:
                stack.append((None, here))
            else:
                stack.append((opt["next"], here))
        while stack and stack[-1][0] is None:
            yield stack.pop()[1]


def calculator_query(calc: Mapping[str, Any]) -> str:
    """The calculator page's query string for a leaf that ends in the calculator."""
    from urllib.parse import urlencode

    keys = (("model", "model"), ("bits", "bits"), ("context", "context"), ("concurrency", "n"))
    return "?" + urlencode([(q, calc[k]) for k, q in keys if k in calc])


def _advice(items, used: set[str]) -> list[dict]:
    out = [{"text": a["text"], "sources": list(a["sources"])} for a in items]
    for a in out:
        used.update(a["sources"])
    return out


def _disputes(items, used: set[str]) -> list[dict]:
    """Each claim with every side and that side's own sources: a reader sees who says what."""
    out = []
    for d in items:
        positions = [{"says": p["says"], "sources": list(p["sources"])} for p in d["positions"]]
        for p in positions:
            used.update(p["sources"])
        out.append({"claim": d["claim"], "positions": positions, "verdict": d.get("verdict", "")})
    return out


STATUS_SAYS = {"archived": "archived: no longer developed", "deprecated": "deprecated by its developers",
               "maintenance": "in maintenance only: fixes, no new features"}


def engine_status(e: Entry) -> str:
    """What a recommendation must say about an engine that is not active ('' otherwise), with
    the release its facts describe: 'archived: no longer developed (last release 3.3.7)'."""
    status = (e.get("status") or {}).get("value") if e.kind == "engine" else None
    if status not in STATUS_SAYS:
        return ""
    as_of = e.get("as_of") or {}
    return STATUS_SAYS[status] + (f" (last release {as_of['version']})" if as_of.get("version") else "")


def platforms_on(guide: Entry, steps: tuple[Step, ...]) -> list[str]:
    """The hardware the path puts the reader on: the `platforms` of its last option that has them."""
    out: list[str] = []
    for s in steps:
        out = list(option(guide, s.question, s.option).get("platforms") or out)
    return out


def model_matches(rule: Mapping[str, Any], model: Entry) -> bool:
    """Whether an option's `models` rule describes `model`: total parameters in [from, to)
    billions and, where the rule says, a mixture of experts or not."""
    specs = model.get("specs") or {}
    total = (specs.get("params_total_b") or {}).get("value")
    moe = bool((specs.get("experts_total") or {}).get("value"))
    lo, hi = rule["params_b"]
    return total is not None and lo <= total < hi and ("moe" not in rule or rule["moe"] == moe)


def option_for_model(guide: Entry, qid: str, model: Entry) -> str | None:
    """The option of question `qid` that describes the reader's model, if one does."""
    return next((o["id"] for o in questions(guide)[qid]["options"] if o.get("models") and model_matches(o["models"], model)), None)


def guide_engines(atlas: Atlas, guide: Entry) -> list[str]:
    """Every engine the guide recommends somewhere, in the order they first appear."""
    seen: dict[str, None] = {}
    for q in questions(guide).values():
        for o in q["options"]:
            for r in o.get("recommend") or ():
                e = atlas.entries.get(r["entry"])
                if e is not None and e.kind == "engine":
                    seen.setdefault(e.id, None)
    return list(seen)


@dataclass(frozen=True)
class ForModel:
    """An answer once the guide knows the reader's model: the engines it names that load the
    model's released weights there (some with a caveat), those that cannot, and the guide's
    other engines that load it as released on the same hardware."""

    platforms: tuple[str, ...]
    keep: tuple[str, ...]
    caveats: Mapping[str, str]
    dropped: Mapping[str, str]
    also: tuple[str, ...]


def for_model(atlas: Atlas, guide: Entry, steps: tuple[Step, ...], leaf: Mapping[str, Any], model: Entry) -> ForModel:
    from generator.knowledge.loads import loads

    plats = platforms_on(guide, steps)
    named = [r["entry"] for r in leaf["recommend"]]
    keep, caveats, dropped = [], {}, {}
    for eid in named:
        e = atlas.entries[eid]
        if e.kind != "engine":
            keep.append(eid)
            continue
        v = loads(atlas, e, model, plats)
        if v.status == "no":
            dropped[eid] = v.why
            continue
        keep.append(eid)
        if v.status != "yes":
            caveats[eid] = v.status + (f": {v.why}" if v.why else "")
    also = tuple(eid for eid in guide_engines(atlas, guide)
                 if eid not in named and loads(atlas, atlas.entries[eid], model, plats).status == "yes")
    keep.sort(key=lambda eid: eid in caveats)  # as released first, then those with a caveat (a stable sort keeps the guide's order)
    return ForModel(tuple(plats), tuple(keep), caveats, dropped, also)


def guide_data(atlas: Atlas, guide: Entry, page_href, calculator_href: str = "") -> dict:
    """Everything the walk-through needs, with links made relative by `page_href(id)`."""
    used: set[str] = set(guide.sources)
    qs: dict[str, Any] = {}
    for qid, q in questions(guide).items():
        opts = []
        for o in q["options"]:
            item: dict[str, Any] = {"id": o["id"], "label": o["label"]}
            if o.get("former_ids"):
                item["former_ids"] = list(o["former_ids"])
            if "next" in o:
                item["next"] = o["next"]
            if o.get("note"):
                item["note"] = o["note"]
            if o.get("platforms"):
                item["platforms"] = list(o["platforms"])
            if o.get("models"):
                item["models"] = dict(o["models"])
            if o.get("disputes"):
                item["disputes"] = _disputes(o["disputes"], used)
            if o.get("advice"):
                item["advice"] = _advice(o["advice"], used)
            item["sources"] = list(o.get("sources", ()))
            used.update(item["sources"])
            if o.get("calculator"):
                item["calculator"] = calculator_query(o["calculator"])
            if "recommend" in o:
                item["recommend"] = []
                for r in o["recommend"]:
                    e = atlas.entries[r["entry"]]
                    used.update(r["sources"])
                    item["recommend"].append({"id": e.id, "title": e.title, "href": page_href(e.id), "short": e.short,
                                              "when": r.get("when", ""), "why": r["why"], "sources": list(r["sources"]),
                                              "setting": r.get("setting", ""), "status": engine_status(e)})
                    if e.kind == "hardware" and VENDOR_PLATFORM.get(e.get("vendor") or ""):
                        item["recommend"][-1]["platform"] = VENDOR_PLATFORM[e.get("vendor")]
            opts.append(item)
        qs[qid] = {"text": q["text"], "help": q.get("help", ""), "options": opts}
        if q.get("advice"):
            qs[qid]["advice"] = _advice(q["advice"], used)
    sources = {sid: {"title": atlas.sources[sid].title, "url": atlas.sources[sid].url or "",
                     "publisher": atlas.sources[sid].publisher} for sid in sorted(used)}
    from generator.knowledge.launch import OFFERED, SERVED_BY
    from generator.knowledge.loads import page_data

    engines = guide_engines(atlas, guide)
    devices = any(r.get("platform") for q in qs.values() for o in q["options"] for r in o.get("recommend") or ())
    # a guide that names engines or devices can take the reader's model: the engines that load it on each device
    on_devices = [eid for eid in OFFERED if eid in atlas.entries] if devices else []
    knows = page_data(atlas, engines + [e for e in on_devices if e not in engines]) if engines or devices else None
    if knows:
        for eid in knows["engines"]:
            knows["engines"][eid]["href"] = page_href(eid)
        knows["on_devices"] = on_devices
        # the calculator's Run it panel writes commands for these (llama-server through llama.cpp's entry)
        knows["order"] = engines  # the page's JSON has its keys sorted: the guide's order, said once
        knows["runs"] = {eid: eid for eid in OFFERED} | {server: eid for eid, server in SERVED_BY.items() if eid in OFFERED}
    return {"id": guide.id, "title": guide.title, "start": guide.get("start"), "questions": qs, "sources": sources,
            "calculator": calculator_href, "loads": knows}
