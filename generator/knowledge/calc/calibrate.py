"""Speed a reader can expect, not only the ceiling (issue 46): each published measurement
(glossary/benchmarks) beside the ceiling computed here for the same model, format, device
and context, and from their ratios an expected speed with a band.

The method, as the pages state it:

    ratio        = measured tokens/s / ceiling (decode: bandwidth-bound; prefill: tensor-rate-bound)
    family       = one engine and backend on one kind of device (llama.cpp Metal on M-series Max chips)
    expected     = the family's median ratio x the ceiling for the reader's model, format and context
    band         = the family's lowest to highest ratio x that ceiling; with fewer than three
                   measurements, widened by a third each way (WIDEN)
    never above  = the ceiling: a ratio is capped at 1

The basis of each figure: `measured` (rows of this device, model and format: their own
ratios), `calibrated` (a family's N rows), or `ceiling only` (no row of the engine asked
for). Without an engine named, a device gets the family with the most rows on its kind of
device. This project's own GPU records (calc.measured) are plain PyTorch, not an engine, and
never calibrate anything. Part of the knowledge stage: may import kb and calc."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from generator.kb.model import Atlas, Benchmark, Entry
from generator.knowledge.calc.fit import _times, decode_ceiling, prefill_rate
from generator.knowledge.calc.formats import precision_for
from generator.knowledge.calc.limits import CalcError
from generator.knowledge.calc.specs import device_spec, model_spec

MIN_ROWS = 3
"""A family with fewer measurements than this has its band widened (WIDEN) and says so."""

WIDEN = 1 / 3
"""How far a thin family's band is widened each way: low x (1 - WIDEN), high x (1 + WIDEN)."""

BACKENDS = {"cuda": "CUDA", "rocm": "ROCm", "vulkan": "Vulkan", "sycl": "SYCL", "metal": "Metal", "mlx": "MLX",
            "cpu": "CPU", "opencl": "OpenCL", "tpu": "TPU", "neuron": "Neuron",
            "hpu": "HPU"}

PLATFORM_BACKENDS = {"cuda": ("cuda", "vulkan"), "rocm": ("rocm", "vulkan"), "apple": ("metal", "mlx"),
                     "intel": ("sycl", "vulkan", "hpu"), "cpu": ("cpu",), "tpu": ("tpu",),
                     "neuron": ("neuron",)}
"""The backends an engine may run on a device of each platform (specs.VENDOR_PLATFORM)."""


def device_family(e: Entry) -> str:
    """The kind of device a ratio carries over to. Apple chips by tier (a Max and an Ultra
    use their bandwidth differently); others by vendor and memory: at batch 1 an engine's
    fixed costs per token weigh more against HBM's 2-8 TB/s than against a GDDR card's
    0.3-1.8 TB/s, so an H100 and an L40S differ more than a 4090 and an L40S."""
    vendor = e.get("vendor") or "Other"
    if vendor == "Apple":
        for tier in ("Ultra", "Max", "Pro"):
            if f" {tier}" in e.title:
                return f"Apple M-series {tier}"
        return "Apple M-series"
    memory = str(((e.get("specs") or {}).get("memory_type") or {}).get("value") or "").upper()
    if not memory and e.get("segment") in ("consumer", "workstation") and e.get("class") == "gpu":
        memory = "GDDR"  # every consumer and workstation card of the catalogue; an entry may lack the field
    what = {"tpu": "TPUs", "npu": "accelerators", "xpu": "accelerators"}.get(e.get("class") or "", "GPUs")
    kind = (f"{what} with HBM" if memory.startswith("HBM") else f"{what} with GDDR memory" if memory.startswith("GDDR")
            else "systems with LPDDR memory" if "LPDDR" in memory else "other devices")
    return f"{vendor} {kind}"


@dataclass(frozen=True)
class Point:
    """A published row beside the ceiling computed here for it."""

    row: Benchmark
    kind: str  # decode or prefill
    ceiling: float | None  # tokens/s over all the row's sequences
    ratio: float | None
    family: tuple[str, str, str]  # engine, backend, device family
    format_label: str
    why_not: str | None = None  # why there is no ceiling, in words


def _row_point(atlas: Atlas, r: Benchmark) -> Point:
    dev = atlas.entries[r.device]
    fam = (r.engine, r.backend, device_family(dev))
    try:
        p = precision_for(atlas, r.format, None)
    except CalcError as exc:
        return Point(r, r.kind, None, None, fam, r.format, str(exc))
    m, d = model_spec(atlas.entries[r.model]), _times(device_spec(dev), r.devices)
    if r.kind == "decode":
        ceiling = decode_ceiling(m, d, p, max(1, r.depth + r.tokens // 2), 16, r.batch)
        why = None if ceiling else "no memory bandwidth figure"
    else:
        ceiling, _ = prefill_rate(m, d)
        why = None if ceiling else "no tensor throughput (TFLOPS) figure"
    return Point(r, r.kind, ceiling, r.tps / ceiling if ceiling else None, fam, p.label, why)


_POINTS: dict[int, tuple[Atlas, list[Point], dict]] = {}


def _cached(atlas: Atlas) -> tuple[Atlas, list[Point], dict]:
    """Every published row beside its ceiling, and the predictions made from them so far:
    worked out once per atlas (a build asks for thousands, one per fit-table cell)."""
    hit = _POINTS.get(id(atlas))
    if hit is None or hit[0] is not atlas:
        _POINTS.clear()
        hit = _POINTS[id(atlas)] = (atlas, [_row_point(atlas, r) for r in atlas.benchmarks], {})
    return hit


def points(atlas: Atlas) -> list[Point]:
    """Every published row beside its ceiling, in file order."""
    return _cached(atlas)[1]


def format_key(label: str) -> str:
    """A format's label as rows and readers are matched on it: case and llama.cpp's 'GGUF ' aside."""
    key = label.casefold()
    return key[5:] if key.startswith("gguf ") else key


def _usable(p: Point) -> bool:
    """A row that calibrates: a ratio no higher than 1, one sequence, on one device (a split
    adds a traffic cost the ceiling leaves out), and not set aside by its file (`excluded`,
    with the reason). A row above its ceiling is shown, flagged: the file it ran is smaller
    than the format as the calculator sizes it (a GGUF that keeps attention at 8 bits), or the
    engine used a faster unit than the one the ceiling counts (INT8 tensor cores for a quantized
    prompt)."""
    return (p.ratio is not None and p.ratio <= 1.0 and p.row.batch == 1 and p.row.devices == 1
            and not p.row.excluded)


def _usable_at_scale(p: Point) -> bool:
    """A row that calibrates only its own kind of device, and only where that kind has nothing of
    one request on one device: split over several chips or serving several requests at once, as
    every published run on TPUs, Trainium and Gaudi is (a model that fits one chip is still served
    over four or sixteen). Their ratios are lower than one chip's would be, so the band errs slow;
    still, a device's own kind at scale says more than the vendor's other kinds one at a time."""
    return p.ratio is not None and p.ratio <= 1.0 and not p.row.excluded


def _at_scale(pr: Prediction) -> Prediction:
    wide = pr.band.widened()
    text = pr.text.replace("measured: ", "calibrated from ", 1)
    return Prediction(wide, "calibrated", f"{text}; each ran split over several chips or with several requests at once, "
                                          "none as one request on one chip, so the band is widened", pr.engine, pr.backend)


def _scale_families(atlas: Atlas, kind: str) -> set[str]:
    """The kinds of device with no usable row of `kind` (one request on one chip): the only ones
    whose runs at scale calibrate."""
    strict = {p.family[2] for p in points(atlas) if p.kind == kind and _usable(p)}
    return {p.family[2] for p in points(atlas) if p.kind == kind and _usable_at_scale(p)} - strict


@dataclass(frozen=True)
class Band:
    """A ratio to the ceiling with its band, from `n` rows of `sources` sources."""

    ratio: float
    low: float
    high: float
    n: int
    sources: int

    @property
    def thin(self) -> bool:
        """Too little to trust a narrow band: fewer than MIN_ROWS rows, or rows that all come
        from one source (one table's runs share its machine, build and method, so their
        agreement says little about the next machine)."""
        return self.n < MIN_ROWS or self.sources < 2

    def why_wide(self, sep: str) -> str:
        """What makes a thin band thin, after `sep` (', ' or ': '); nothing for a band that is not."""
        if not self.thin:
            return ""
        return sep + ("too few for a narrow band" if self.n < MIN_ROWS else "all from one source, so the band is widened")

    def widened(self) -> "Band":
        """The band a third wider each way (WIDEN), for a weaker basis: another kind of
        device, or runs at scale; the ratio stays, the top stays at most 1."""
        return Band(self.ratio, self.low * (1 - WIDEN), min(1.0, self.high * (1 + WIDEN)), self.n, self.sources)


def band(pts: list[Point]) -> Band:
    """The median of the rows' ratios and their range, widened when the band is thin (few
    rows, or one source); each capped at 1."""
    ratios = [p.ratio for p in pts]
    lo, hi = min(ratios), max(ratios)
    b = Band(ratio=min(1.0, statistics.median(ratios)), low=min(1.0, lo), high=min(1.0, hi), n=len(ratios),
             sources=len({p.row.source for p in pts}))
    return b.widened() if b.thin else b


@dataclass(frozen=True)
class Prediction:
    """A band of ratios to the ceiling and what it rests on."""

    band: Band
    basis: str  # measured or calibrated
    text: str  # in words: 'calibrated from 12 measurements of Q4_K_M with llama.cpp (CUDA) on NVIDIA GPUs with GDDR memory'
    engine: str
    backend: str
    elsewhere: bool = False  # from the vendor's other kinds of device (predict's third rule)


def _most(pts: list[Point]) -> tuple[str, str]:
    """The engine and backend with the most rows among `pts` (ties: by name)."""
    counts: dict[tuple[str, str], int] = {}
    for p in pts:
        counts[p.family[:2]] = counts.get(p.family[:2], 0) + 1
    return min(counts, key=lambda k: (-counts[k], k))


def _s(n: int) -> str:
    return "s" if n != 1 else ""


def predict(atlas: Atlas, pts: list[Point], model: str, dev: Entry, label: str) -> Prediction | None:
    """The ratio band for `model` in the format labelled `label` on `dev`, from `pts` (rows of
    one kind, one engine if the reader named one), by the first rule that has rows:

    1. measured: rows of this device, model and format, of the engine with the most (all its backends);
    2. this kind of device (device_family), the engine and backend with most rows there, and
       of its rows those in this format if there are MIN_ROWS of them, else all;
    3. the same engine and backend on the vendor's other kinds of device, band widened.
    None where the vendor's devices have no rows: an engine measured on one vendor's
    hardware says nothing of another's (llama.cpp on CUDA, of a TPU)."""
    platform = device_spec(dev).platform
    pts = [p for p in pts if p.row.backend in PLATFORM_BACKENDS.get(platform or "", (p.row.backend,))]
    fk = format_key(label)
    own = [p for p in pts if p.row.device == dev.id and p.row.model == model and format_key(p.format_label) == fk]
    if own:  # the engine of the most rows, on every backend it ran: a reader names an engine, not a backend
        eb = _most(own)
        mine = [p for p in own if p.row.engine == eb[0]]
        b = band(mine)
        backends = " and ".join(BACKENDS.get(x, x) for x in sorted({p.row.backend for p in mine}))
        return Prediction(b, "measured", f"measured: {b.n} published run{_s(b.n)} of this model and format on "
                                         f"this device with {_title(atlas, eb[0])} ({backends}){b.why_wide(', ')}", *eb)
    fam = device_family(dev)
    same = [p for p in pts if p.family[2] == fam]
    if same:
        eb = _most(same)
        rows = [p for p in same if p.family[:2] == eb]
        fmt_rows = [p for p in rows if format_key(p.format_label) == fk]
        if len(fmt_rows) >= MIN_ROWS:
            b = band(fmt_rows)
            return Prediction(b, "calibrated", f"calibrated from {b.n} measurements of {label} with "
                                               f"{_label(atlas, *eb, fam)}{b.why_wide(': ')}", *eb)
        b = band(rows)
        return Prediction(b, "calibrated", f"calibrated from {b.n} measurement{_s(b.n)} of {_label(atlas, *eb, fam)}"
                                           f"{b.why_wide(': ')}", *eb)
    vendor = dev.get("vendor") or ""
    kin = [p for p in pts if (atlas.entries[p.row.device].get("vendor") or "") == vendor]
    if not kin:
        return None
    eb = _most(kin)
    b = band([p for p in kin if p.family[:2] == eb])
    b = b.widened()  # another kind of device: wider still
    where = f"other {vendor} devices"
    return Prediction(b, "calibrated", f"calibrated from {b.n} measurement{_s(b.n)} of {_label(atlas, eb[0], eb[1], where)}: "
                                       f"nothing measured on {fam}, so the band is wide", *eb, elsewhere=True)


@dataclass(frozen=True)
class Family:
    """One engine and backend on one kind of device, for decode or prefill: its rows' ratios,
    and how well the rules of `predict` do on its rows when each is held back in turn."""

    kind: str
    engine: str
    backend: str
    devices: str  # device family
    label: str  # 'llama.cpp (Metal) on Apple M-series Max'
    band: Band
    loo_error: float | None  # median |predicted - measured| / measured, each row predicted from all the others
    loo_inside: int  # rows inside the band predicted without them
    loo_n: int  # rows that could be predicted without them


def _title(atlas: Atlas, engine: str | None, missing: str | None = None) -> str:
    """An engine's title as a reader knows it (its id where the atlas has no entry)."""
    return atlas.entries[engine].title if engine in atlas.entries else missing or engine or ""


def _label(atlas: Atlas, engine: str, backend: str, devices: str) -> str:
    return f"{_title(atlas, engine)} ({BACKENDS.get(backend, backend)}) on {devices}"


def families(atlas: Atlas, kind: str, at_scale: bool = False) -> list[Family]:
    """Every family with usable rows of one kind, most rows first, each with its
    leave-one-out check: every row predicted, by its own engine, from all the other rows.
    `at_scale`: instead, the families that calibrate only from runs at scale (a kind of device
    with no row of one request on one chip: TPUs, Trainium, Gaudi), each held-back row predicted from the
    others of its kind of device with the band widened, as `expected` does."""
    if at_scale:
        fams = _scale_families(atlas, kind)
        usable = [p for p in points(atlas) if p.kind == kind and _usable_at_scale(p) and not _usable(p) and p.family[2] in fams]
    else:
        usable = [p for p in points(atlas) if p.kind == kind and _usable(p)]
    groups: dict[tuple, list[Point]] = {}
    for p in usable:
        groups.setdefault(p.family, []).append(p)
    out = []
    for (engine, backend, devs), rows in groups.items():
        errors, inside = [], 0
        for held in rows:
            rest = [p for p in usable if p is not held and p.row.engine == engine and (not at_scale or p.family[2] == devs)]
            pr = predict(atlas, rest, held.row.model, atlas.entries[held.row.device], held.format_label)
            if pr is None:
                continue
            pr = _at_scale(pr) if at_scale else pr
            errors.append(abs(pr.band.ratio - held.ratio) / held.ratio)
            inside += pr.band.low <= held.ratio <= pr.band.high
        b = band(rows)
        b = b.widened() if at_scale else b
        out.append(Family(kind, engine, backend, devs, _label(atlas, engine, backend, devs), b,
                          statistics.median(errors) if errors else None, inside, len(errors)))
    return sorted(out, key=lambda f: (-f.band.n, f.label))


@dataclass(frozen=True)
class Expected:
    """What a reader can expect beside a ceiling: tokens/s with a band, and its basis."""

    tps: float | None
    low: float | None
    high: float | None
    basis: str  # measured, calibrated or ceiling only
    n: int  # rows it rests on
    basis_text: str  # the basis in words
    engine: str | None = None
    backend: str | None = None

    def as_dict(self, prefix: str) -> dict:
        r = lambda v: round(v, 3) if v is not None else None  # noqa: E731
        return {f"{prefix}_expected_tps": r(self.tps), f"{prefix}_expected_low": r(self.low),
                f"{prefix}_expected_high": r(self.high), f"{prefix}_expected_basis": self.basis,
                f"{prefix}_expected_n": self.n, f"{prefix}_expected_from": self.basis_text,
                f"{prefix}_expected_engine": self.engine}


def expected(atlas: Atlas, model: str, device: str, fmt: str | None, ceiling: float | None, kind: str = "decode",
             engine: str | None = None, backend: str | None = None) -> Expected:
    """The expected speed of one sequence of `model` in `fmt` (a format name or a precision's
    label) on `device` (an entry id, or a memory size of one: apple-m2-max@64), scaled from
    the caller's `ceiling` (at the reader's context): predict's band x the ceiling."""
    if not ceiling:
        return Expected(None, None, None, "ceiling only", 0, "no ceiling to scale: the device entry lacks the figure", engine)
    dev = atlas.entries.get(device.split("@")[0])
    if dev is None:
        return Expected(None, None, None, "ceiling only", 0, "a device of your own: no measurement to calibrate on", engine)
    memo = _cached(atlas)[2]
    if ("label", fmt) not in memo:  # precision_for reads every format term: once per name, not once per fit cell
        try:
            memo[("label", fmt)] = precision_for(atlas, fmt, None).label
        except CalcError:
            memo[("label", fmt)] = fmt or "FP16"
    label = memo[("label", fmt)]
    key = (kind, engine, backend, model, dev.id, label)
    if key not in memo:
        pts = memo.get((kind, engine, backend))
        if pts is None:
            pts = memo[(kind, engine, backend)] = [p for p in points(atlas) if p.kind == kind and _usable(p)
                                                   and (engine is None or p.row.engine == engine)
                                                   and (backend is None or p.row.backend == backend)]
        pr = predict(atlas, pts, model, dev, label)
        if pr is None or pr.elsewhere:  # nothing of one request on one chip of this kind of device: its runs at scale, said so
            wide = memo.get((kind, engine, backend, "at scale"))
            if wide is None:
                wide = memo[(kind, engine, backend, "at scale")] = [
                    p for p in points(atlas) if p.kind == kind and _usable_at_scale(p)
                    and (engine is None or p.row.engine == engine) and (backend is None or p.row.backend == backend)]
            fam = device_family(dev)  # runs at scale stay on their own kind of device, never a vendor's other kinds
            own = predict(atlas, [p for p in wide if p.family[2] == fam], model, dev, label)
            pr = _at_scale(own) if own is not None else pr  # its own kind at scale beats the vendor's other kinds
        memo[key] = pr
    pr = memo[key]
    if pr is None:
        title = _title(atlas, engine, "any engine")
        vendor = dev.get("vendor") or "this vendor"
        return Expected(None, None, None, "ceiling only", 0, f"no published measurement of {title} on {vendor} hardware to calibrate on", engine)
    b = pr.band
    return Expected(b.ratio * ceiling, b.low * ceiling, b.high * ceiling, pr.basis, b.n, pr.text, pr.engine, pr.backend)


@dataclass(frozen=True)
class Speeds:
    """Decode and prefill as a reader can expect them on one device, and the time to the
    first token of a prompt: expected with its band, beside the ceiling."""

    decode: Expected
    prefill: Expected
    prompt: int  # tokens of the reader's prompt
    prefill_ceiling: float | None

    @property
    def ttft_ceiling_s(self) -> float | None:
        return self.prompt / self.prefill_ceiling if self.prefill_ceiling else None

    @property
    def ttft_s(self) -> tuple[float | None, float | None, float | None]:
        """Expected seconds to the first token, and its band (the slow end first)."""
        p = self.prefill
        if not p.tps:
            return None, None, None
        return self.prompt / p.tps, self.prompt / p.high, self.prompt / p.low

    def as_dict(self) -> dict:
        r = lambda v: round(v, 4) if v is not None else None  # noqa: E731
        ttft, fast, slow = self.ttft_s
        return (self.decode.as_dict("decode") | self.prefill.as_dict("prefill")
                | {"prompt_tokens": self.prompt, "ttft_ceiling_s": r(self.ttft_ceiling_s), "ttft_expected_s": r(ttft),
                   "ttft_expected_low_s": r(fast), "ttft_expected_high_s": r(slow)})


def speeds(atlas: Atlas, model: str, device: str, fmt: str | None, decode_ceiling_tps: float | None,
           prefill_ceiling_tps: float | None, prompt: int, engine: str | None = None) -> Speeds:
    """Expected decode (one sequence) and prefill for a model on a device, from the ceilings
    the caller worked out for the reader's format and context."""
    return Speeds(decode=expected(atlas, model, device, fmt, decode_ceiling_tps, "decode", engine),
                  prefill=expected(atlas, model, device, fmt, prefill_ceiling_tps, "prefill", engine),
                  prompt=prompt, prefill_ceiling=prefill_ceiling_tps)
