"""`atlas fit`: memory, speed, cost and energy of a model on devices, in the terminal or as JSON."""

from __future__ import annotations

import sys
from pathlib import Path

from generator.cli.common import EXIT_BAD_INPUT, EXIT_OK, _load, _plain, _print_json
from generator.render.labels import wait, wait_band


def cmd_fit(args) -> int:
    import dataclasses

    from generator.knowledge.calc import (
        HOST_BANDWIDTH_GBS,
        MEASURED_BITS,
        GIB,
        CalcError,
        cost,
        configurations,
        custom_device,
        device_spec,
        estimate,
        format_platforms,
        measured_for,
        model_spec,
        pick,
        pick_device,
        precision_for,
        prefill_for,
        runs,
        sized_devices,
        speeds,
    )
    from generator.render.labels import VALUE_LABELS, segment_rank

    atlas = _load(args)
    segment = {e.id: e.get("segment") for e in atlas.of_kind("hardware")}
    segment.update({c.id: segment[e.id] for e in atlas.of_kind("hardware") for c in configurations(e)})
    reading = entry = None
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
            entry = pick(atlas, args.model, "model")
            model = model_spec(entry)
        # The format the reader names; else a pasted config's own quantization_config, else the
        # checkpoint the developer released (gpt-oss: MXFP4 experts beside BF16), else FP16.
        released = None
        if args.format is None and args.bits is None:
            released = reading.precision if reading else (((entry.get("specs") or {}).get("checkpoint_format") or {}).get("value"))
        prec = released if reading and released else precision_for(atlas, released or args.format, args.bits)
        bits, label = prec.bits, prec.label
        if args.devices < 1 or args.devices > 64:
            raise CalcError(f"--devices {args.devices}: give how many you have, from 1 to 64")
        own = None
        size = None  # --device with --memory alone: that device in that memory size (a 64 GB M2 Max)
        if args.device and args.memory is not None and args.bandwidth is None and args.tflops is None and args.watts is None and not args.unified:
            size, args.memory = args.memory, None
        if args.memory is not None or args.bandwidth is not None or args.tflops is not None or args.watts is not None or args.unified:
            if args.memory is None or args.bandwidth is None:
                raise CalcError("a device of your own needs both --memory GB and --bandwidth GB/s (--tflops, --watts and --unified are optional)")
            own = custom_device(args.memory, args.bandwidth, args.tflops, args.watts, unified=args.unified)
        if args.where and (args.device or own):
            raise CalcError("--where picks from the atlas's devices; leave it out when you name devices or give your own")
        # Every device with a memory figure, grouped as the calculator groups them (render/labels.SEGMENTS),
        # or only one group with --where.
        listed = sorted((e for e in sized_devices(atlas) if args.where in (None, e.get("segment"))), key=segment_rank)
        devices = [pick_device(atlas, d, size) for d in args.device] if args.device else [] if own else [
            device_spec(e) for e in listed]
        # A format whose software runs only on some platforms (EXL3: CUDA) is sized only there.
        only = format_platforms(atlas).get((args.format or "").casefold()) if args.bits is None else None
        elsewhere = [d for d in devices if not runs(d, only)]
        if elsewhere and args.device:
            raise CalcError(f"{label} runs on {_platforms(only)}, not on {', '.join(_plain(d.title) for d in elsewhere)}: "
                            "pick a format it runs (--format q4_k_m, fp16, ...) or give --bits")
        devices = ([own] if own else []) + [d for d in devices if runs(d, only)]
        n = {d.id: min(args.devices, d.max_devices) for d in devices}  # a Mac or a laptop is one machine
        rows = [(d, estimate(model, d, prec, args.context, args.concurrency, args.kv_bits, args.overhead, devices=n[d.id]))
                for d in devices]
        singles = {d.id: e if args.concurrency == 1 else estimate(model, d, prec, args.context, 1, args.kv_bits,
                                                                  args.overhead, devices=n[d.id]) for d, e in rows}
        prices = _prices(atlas, args.price or [], [d for d, _ in rows])
        costs = {d.id: cost(e, d, prices.get(d.id, args.price_per_hour), args.kwh_price, single=singles[d.id]) for d, e in rows}
        engine = pick(atlas, args.engine, "engine").id if args.engine else None
        prompt = args.prompt or args.context
        if prompt < 1 or prompt > args.context:
            raise CalcError(f"--prompt {prompt}: give the prompt's tokens, from 1 to the context of {args.context:,}")
    except CalcError as exc:
        print(f"atlas fit: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    # This project's measurement of the pair (bench/gpu/results), one sequence at the measured
    # context nearest --context, in 16-bit weights and KV cache: beside the ceiling, not instead.
    measured = {d.id: measured_for(atlas, model.id, d.id, args.context) for d, _ in rows}
    prefilled = {d.id: prefill_for(atlas, model.id, d.id, args.context) for d, _ in rows}  # prompt length nearest --context
    comparable = bits == MEASURED_BITS and args.kv_bits == MEASURED_BITS
    # What a reader can expect beside each ceiling (calc.calibrate): one sequence, from published
    # measurements of the engine asked for, or of the best-measured one on that kind of device.
    expect = {d.id: speeds(atlas, model.id, d.id, label, singles[d.id].decode_tps, e.prefill_tps, prompt, engine)
              for d, e in rows}
    commands = _commands(atlas, engine, entry, rows, label, args) if engine else {}
    ranking = _ranking(rows, singles, costs, expect, args)
    d_by = {d.id: d for d, _ in rows}
    if args.json:
        def with_measured(d, e) -> dict:
            got = measured[d.id]
            extra = dict(got.as_dict(), bits=MEASURED_BITS, kv_bits=MEASURED_BITS, source_title=atlas.sources[got.source].title, comparable=comparable) if got else None
            pre = prefilled[d.id]
            pre = dict(dataclasses.asdict(pre), source_title=atlas.sources[pre.source].title, comparable=comparable) if pre else None
            return dict(e.as_dict(), title=d.title, segment=segment.get(d.id), measured=extra, measured_prefill=pre,
                        cost=costs[d.id].as_dict(), **expect[d.id].as_dict(),
                        launch=None if d.id not in commands else {"error": commands[d.id]} if isinstance(commands[d.id], str)
                        else commands[d.id].as_dict())
        shape = ({"config": args.config, "params_total_b": round(reading.params_total_b, 3),
                  "params_active_b": round(reading.params_active_b, 3), "attention": model.attention,
                  "used": reading.used, "missing": reading.missing} if reading else None)
        _print_json({"model": model.id, "format": label, "bits_per_weight": bits, "context": args.context,
                     "format_parts": dict(prec.parts) or None, "format_note": prec.note, "released": bool(released),
                     "devices_owned": args.devices,
                     "concurrency": args.concurrency, "kv_bits": args.kv_bits, "from_config": shape,
                     "engine": engine, "prompt_tokens": prompt,
                     "price_per_hour": args.price_per_hour, "prices": prices or None, "kwh_price": args.kwh_price,
                     "where": args.where, "runs_on": list(only) if only else None, "left_out": [d.id for d in elsewhere],
                     "cost_ranking": [dict(r.as_dict(), price_read=_checked(d_by[r.key], prices, args)) for r in ranking] or None,
                     "devices": [with_measured(d, e) for d, e in rows]})
        return EXIT_OK
    first = rows[0][1] if rows else None
    print(f"{model.title} in {label}" + (" (as released)" if released else "") +
          f": {args.concurrency} x {args.context:,} tokens, KV cache in {args.kv_bits:g}-bit"
          + (f", on {args.devices} of each device" if args.devices > 1 else ""))
    if reading:
        active = f", {reading.params_active_b:,.2f}B active" if model.active_b != model.params_b else ""
        print(f"  counted from the config: {reading.params_total_b:,.2f}B parameters{active}, {model.layers} layers, "
              f"attention {model.attention}" + (f", {model.sliding_layers} layers windowed at {model.sliding_window:,}" if model.sliding_window else ""))
        print(f"  fields read: {', '.join(reading.used)}")
        for m in reading.missing:
            print(f"  not in the config: {m}")
    if first:
        print(f"  weights {first.weights_gb:.1f} GB + KV cache {first.kv_gb:.1f} GB + overhead {first.overhead_gb:.1f} GB"
              f" = {first.total_gb:.1f} GB; a decoded token reads {first.read_gb:.2f} GB of weights" if first.read_gb else "")
        if first.parts:
            print("  by part: " + "; ".join(f"{name} {b:,.2f}B at {bits_:g} bits = {gb:,.2f} GB" for name, b, bits_, gb in first.parts))
        if prec.note:
            print(f"  {_plain(prec.note)}")
        if first.parts_note:
            print(f"  {_plain(model.title)}: {_plain(first.parts_note)}.")
    many = args.concurrency > 1
    print(f"\n  {'device':34} {'memory':>8} {'fits':>5} {'decode max':>12} {'expected (band)':>19}"
          + (f" {'all ' + str(args.concurrency):>14}" if many else "") + f" {'prefill max':>13} {'1st token':>17}")
    notes: list[str] = []
    unknown: dict[str, list[str]] = {}
    bases: dict[tuple[str, str], list[str]] = {}  # what each expected figure rests on, naming the devices
    group = None
    for d, e in rows:
        if not args.device and segment.get(d.id) and segment[d.id] != group:  # a heading where the group changes
            group = segment[d.id]
            print(f"  {VALUE_LABELS.get(group, group)}:")
        mem = f"{e.memory_gb:g} GB" if e.memory_gb else "-"
        fits = "-" if e.fits is None else (("yes" if e.devices == 1 else f"yes, {e.devices}") if e.fits
                                            else f"{e.devices_needed} x" if e.can_split else "no")
        dec = (f"{e.decode_tps:,.0f} tok/s" if e.decode_tps else f"{e.split_decode_tps:,.0f} on {e.devices_needed}" if e.split_decode_tps
               else ("see below" if e.fits is False else "-"))
        pre = (f"{e.prefill_tps:,.0f} tok/s" + ("" if e.prefill_precision in ("fp16", "bf16") else f" ({e.prefill_precision.upper()})")
               if e.prefill_tps else "-")
        total = ((f"{e.decode_total_tps:,.0f} tok/s" + ("*" if e.decode_bound == "compute" else "")) if e.decode_total_tps
                 else f"{e.split_decode_total_tps:,.0f} on {e.devices_needed}" if e.split_decode_total_tps else "-")
        if e.fits and e.devices > 1:
            notes.append(f"  {_plain(d.title)}: yes, on your {e.devices}: each holds {e.total_gb / e.devices:.1f} GB of the "
                         f"{e.total_gb:.1f} GB, split by tensor parallelism; the speeds are over all {e.devices}, before the traffic between them.")
        x = expect[d.id]
        exp = (f"{_tps(x.decode.tps)} ({_tps(x.decode.low)}-{_tps(x.decode.high)}){BASIS_MARK[x.decode.basis]}"
               if x.decode.tps else "-")
        ttft, fast, slow = x.ttft_s
        first_tok = (wait_band(ttft, fast, slow, "-") if ttft else f">= {wait(x.ttft_ceiling_s)}" if x.ttft_ceiling_s else "-")
        print(f"  {_plain(d.title)[:34]:34} {mem:>8} {fits:>5} {dec:>12} {exp:>19}" + (f" {total:>14}" if many else "")
              + f" {pre:>13} {first_tok:>17}")
        for what, got_x in (("decode", x.decode), ("prefill", x.prefill)):
            if got_x.tps or got_x.basis_text.startswith("no published"):
                bases.setdefault((what, _plain(got_x.basis_text)), []).append(_plain(d.title))
        if e.decode_bound == "compute":
            notes.append(f"  {_plain(d.title)}: * at {args.concurrency:,} sequences its tensor rate, not its memory bandwidth, "
                         "sets the decode ceiling (2 FLOP per active parameter per token).")
        if e.fits is False:
            room = (f"the {d.gpu_default_gb:g} GiB ({d.usable_decimal_gb:.1f} GB) its GPU may use by default" if d.gpu_default_gb
                    else f"its {e.memory_gb:g} GiB ({e.memory_gb * GIB / 1e9:.1f} GB)")
            line = f"  {_plain(d.title)}: needs {e.total_gb:.1f} GB, more than {room}."
            if e.can_split:
                line += (f" Split over {e.devices_needed} of them with an engine that does tensor parallelism (vLLM, SGLang,"
                         " TensorRT-LLM) or a layer split (llama.cpp, ExLlama)")
                if e.split_decode_tps:
                    line += (f": decode at most {e.split_decode_tps:,.0f} tok/s per sequence"
                             + (f", {e.split_decode_total_tps:,.0f} in total" if e.sequences > 1 else "")
                             + " before the traffic between the cards (a direct link such as NVLink or a TPU's ICI carries it far faster than PCIe)")
            elif d.max_devices == 1:
                line += (f" It is one machine, and {e.devices_needed} of them for one model is no usual setup: "
                         "a smaller format, a shorter context or a larger machine")
            else:
                line += (f" It would take {e.devices_needed}, more than one {d.max_devices}-device server: "
                         "a smaller format or a larger device")
            if e.offload_decode_tps:
                held = (d.gpu_default_gb or e.memory_gb) * e.devices * GIB / 1e9
                line += (f"; or keep {held:.1f} GB on {'the card' if e.devices == 1 else f'your {e.devices}'} and offload {e.offload_gb:.1f} GB to system memory "
                         f"(read at {HOST_BANDWIDTH_GBS:g} GB/s, two DDR5-4800 channels; each step reads it once for all sequences): at most "
                         f"{e.offload_decode_tps:,.1f} tok/s per sequence" + (f", {e.offload_decode_total_tps:,.0f} in total" if e.sequences > 1 else ""))
                if e.better:
                    line += (f". Per device, {'splitting' if e.better == 'split' else 'offloading'} gives more tokens, so it is the cheaper")
            notes.append(line + ".")
        if d.platform == "apple" and not d.gpu_default_gb and d.memory_gb:
            unknown.setdefault(UNREAD_SHARE, []).append(_plain(d.title))
        if d.gpu_default_gb:
            notes.append(f"  {_plain(d.title)}: macOS lets the GPU use {d.gpu_default_gb:g} GB of its {d.memory_gb:g} GB by default"
                         " (Metal's recommended working set); fit is judged against that (raise iogpu.wired_limit_mb for more).")
        for why in e.missing:  # one line per reason, naming every device it holds for
            unknown.setdefault(why, []).append(_plain(d.title))
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
    notes += [f"  {', '.join(names)}: {why}." for why, names in unknown.items()]
    if bases:
        notes.append(f"  Expected speeds (one sequence{', with ' + _plain(atlas.entries[engine].title) if engine else ''}; "
                     f"first token after a {prompt:,}-token prompt), what each rests on; m = measured, c = calibrated:")
        notes += [f"  {what}, {', '.join(names)}: {why}." for (what, why), names in bases.items()]
    if elsewhere:
        notes.append(f"  {label} runs on {_platforms(only)}: {len(elsewhere)} devices that do not are left out.")
    if notes:
        print()
        print("\n".join(dict.fromkeys(notes)))
    _print_costs(rows, costs, args, measured if comparable else {})
    _print_ranking(ranking, d_by, prices, args)
    if engine and len(rows) == 1:
        cmd = commands[rows[0][0].id]
        print(f"\n  Run it with {_plain(atlas.entries[engine].title)}:")
        if isinstance(cmd, str):
            print(f"  no command: {_plain(cmd)}")
        else:
            print("\n" + "\n".join("    " + x for x in cmd.text().splitlines()) + "\n")
            for f in cmd.flags:
                print(f"    {f.name}{' ' + f.value if f.value else ''}: {_plain(f.what)}")
            for n in cmd.notes:
                print(f"  {_plain(n)}")
            data = atlas.engine_flags[cmd.engine]
            print(f"  Flags checked against {cmd.engine} {cmd.release} ({data.path})"
                  + (f"; {_plain(' '.join(data.caveat.split()))}" if data.caveat else "."))
    print("\n  Upper bounds from memory bandwidth and dense tensor FLOPS (16-bit; a device whose entry has only an FP8 or FP4\n"
          "  rate is marked so, and that rate needs a model quantized for it); real engines reach a fraction.")
    return EXIT_OK


def _prices(atlas, given: list[str], devices) -> dict[str, float]:
    """--price DEVICE=USD, repeated: each device's own hourly price (a CalcError names what is wrong)."""
    import math

    from generator.knowledge.calc import CalcError, pick_device

    out: dict[str, float] = {}
    for item in given:
        name, sep, usd = item.rpartition("=")
        try:
            value = float(usd)
        except ValueError:
            value = float("nan")
        if not sep or not name.strip() or not math.isfinite(value) or not 0 < value <= 10000:
            raise CalcError(f"--price {item!r}: give DEVICE=USD, an hourly price above 0 and at most 10,000 (--price 'MI300X=2.50')")
        d = pick_device(atlas, name.strip())
        if devices and d.id not in {x.id for x in devices}:
            raise CalcError(f"--price {item!r}: {d.title} is not among the devices sized here; name it with --device too")
        out[d.id] = value
    return out


def _commands(atlas, engine: str, entry, rows, label: str, args) -> dict:
    """The launch command for each device row (knowledge.launch), or why there is none."""
    from generator.knowledge.calc import CalcError
    from generator.knowledge.launch import Answer, launch

    out: dict = {}
    for d, e in rows:
        if not entry:
            out[d.id] = "a model read from a config.json has no repository to start"
            continue
        try:
            out[d.id] = launch(atlas, engine, Answer(atlas=atlas, model=entry, device=d, fmt=label, context=args.context,
                                                     sequences=args.concurrency, kv_bits=args.kv_bits, devices=e.devices, fit=e))
        except CalcError as exc:
            out[d.id] = str(exc)
    return out


BASIS_MARK = {"measured": " m", "calibrated": " c", "ceiling only": ""}


def _tps(x: float) -> str:
    return f"{x:,.1f}" if x < 10 else f"{x:,.0f}"


UNREAD_SHARE = ("the GPU's default share of memory has not been published for this chip, so fit is judged against all "
                "of it (on Macs that have been read, macOS lets the GPU use two thirds to 84%; atlas define unified-memory)")


def _platforms(names) -> str:
    from generator.knowledge.compare import PLATFORMS

    return " and ".join(PLATFORMS.get(p, p) for p in names)


def _usd(x: float | None) -> str:
    return "-" if x is None else f"${x:,.3f}" if x < 1 else f"${x:,.2f}"


def _per_j(x: float | None) -> str:
    return "-" if x is None else f"{x:,.2f}" if x < 10 else f"{x:,.0f}"


def _print_costs(rows, costs, args, measured: dict) -> None:
    """Dollars per million tokens and tokens per joule at the ceilings (calc.cost): floors,
    as the speeds are ceilings. Shown where a price or a TDP exists; where this project
    measured the pair (one sequence), the same at the measured speed beside them."""
    shown = [(d, costs[d.id]) for d, _ in rows if costs[d.id].hourly_usd is not None or costs[d.id].watts]
    if not shown:
        if args.price_per_hour is None and args.kwh_price is None and not args.price:
            print("\n  Cost: give --price-per-hour USD (what a device-hour costs you) or --kwh-price USD (electricity)"
                  " for dollars per million tokens.")
        return
    many = args.concurrency > 1
    print(f"\n  Cost and energy at those ceilings (floors: real engines are slower, so they cost more per token)")
    print(f"  {'device':34} {'$/hour':>9} {'$/M 1 out':>9}" + (f" {'all ' + str(args.concurrency):>9}" if many else "")
          + f" {'$/M in':>9} {'tok/J 1':>10}" + (f" {'all':>9}" if many else "") + f" {'tok/J in':>9}")
    for d, c in shown:
        print(f"  {_plain(d.title)[:34]:34} {_usd(c.hourly_usd):>9} {_usd(c.output_usd_per_m):>9}"
              + (f" {_usd(c.batch_output_usd_per_m):>9}" if many else "") + f" {_usd(c.input_usd_per_m):>9}"
              + f" {_per_j(c.tokens_per_joule):>10}" + (f" {_per_j(c.batch_tokens_per_joule):>9}" if many else "")
              + f" {_per_j(c.input_tokens_per_joule):>9}")
    print("  $/hour: " + ("your --price for each device named, " if args.price else "")
          + ("your --price-per-hour" if args.price_per_hour is not None else "the entry's cloud price where it has one")
          + (f" plus electricity at ${args.kwh_price:g}/kWh for the board's TDP" if args.kwh_price is not None else "")
          + "; per device, times the devices a split needs.\n  $/M 1 out: output tokens of one stream served alone; "
          + (f"all {args.concurrency}: of the {args.concurrency} sequences together; " if many else "")
          + "$/M in: prompt tokens at the prefill ceiling. tok/J: tokens per joule at the board's TDP.")
    for d, c in shown:
        if c.price and c.price != "yours":
            print(f"  {_plain(d.title)}: price {_plain(c.price)}.")
        if c.devices > 1:
            print(f"  {_plain(d.title)}: split over {c.devices}, so {c.devices} devices' price and power.")
        got = measured.get(d.id)
        if got and c.devices == 1:
            at = [f"${c.hourly_usd / (got.tokens_per_s * 3600) * 1e6:,.2f} per million output tokens"] if c.hourly_usd is not None else []
            at += [f"{got.tokens_per_s / c.watts:,.2f} tokens per joule"] if c.watts else []
            if at:
                print(f"  {_plain(d.title)}: at this project's measured {got.tokens_per_s:,.1f} tok/s (one sequence, "
                      f"{got.context:,} tokens, plain PyTorch): {' and '.join(at)}.")


def _ranking(rows, singles, costs, expect, args) -> list:
    """The devices that hold the model and have an hourly price, by dollars per million output
    tokens (calc.cost.rank): one sequence at the expected speed where one is calibrated, else at
    the ceiling; several at once at the ceiling of them all (engines' batch speed is not calibrated)."""
    from generator.knowledge.calc.cost import rank

    items = []
    for d, e in rows:
        c = costs[d.id]
        if c.hourly_usd is None or (e.fits is False and not e.can_split):
            continue
        if args.concurrency == 1:
            one = singles[d.id]
            ceiling = one.decode_tps if one.fits is not False else one.split_decode_tps
            x = expect[d.id].decode
            expected = (x.tps, x.basis) if x.tps and one.fits is not False and x.basis != "ceiling only" else None
        else:
            ceiling, expected = (e.decode_total_tps if e.fits is not False else e.split_decode_total_tps), None
        if ceiling:
            items.append((d.id, c.hourly_usd, ceiling, expected))
    # One basis for all: expected speeds where every device has one, else every ceiling (a
    # calibrated speed sits well under a ceiling, so mixing them would favour the uncalibrated).
    every = bool(items) and all(x[3] for x in items)
    return rank([(k, p, x[0], x[1]) if every else (k, p, t, "ceiling") for k, p, t, x in items])


def _checked(d, prices: dict, args) -> str | None:
    """The day the entry's price was read, where the entry's price is the one used."""
    return None if d.id in prices or args.price_per_hour is not None else d.hourly_checked


def _print_ranking(ranking, devices: dict, prices: dict, args) -> None:
    if len(ranking) < 2:
        return
    import datetime as dt

    today = dt.date.today()
    what = (f"all {args.concurrency} sequences, at the ceiling" if args.concurrency > 1 else
            "one sequence, every device at its ceiling: not all have a calibrated speed" if ranking[0].basis == "ceiling" else
            "one sequence, at the speed to expect")
    print(f"\n  Cheapest per million output tokens ({what}):")
    for i, r in enumerate(ranking, 1):
        d = devices[r.key]
        read = _checked(d, prices, args)
        age = f"price read {read}, {(today - dt.date.fromisoformat(read)).days} days ago" if read else "your price"
        above = devices[ranking[i - 2].key].title if i > 1 else ""
        flip = (f"; passes {_plain(above)} under ${r.flip_usd_per_hour:,.2f}/h" if r.flip_usd_per_hour is not None else "")
        print(f"  {i:>2}. {_plain(d.title)[:32]:32} {_usd(r.usd_per_m):>8}/M  {_usd(r.hourly_usd):>9}/h  "
              f"{r.tokens_per_s:,.0f} tok/s {r.basis}; {age}{flip}")
    print("  'passes X under': the hourly price (for all the devices it needs) at which it would cost less per token than the one above.")
