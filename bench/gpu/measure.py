#!/usr/bin/env python3
"""Measure a model entry's shape on the device at hand: decode, prefill, copy bandwidth, TFLOPS.

    python bench/gpu/measure.py --model llama-3-1-8b --ffn-size 14336 --vocab-size 128256 \
        --git-commit "$(git rev-parse HEAD)" --out bench/gpu/results

Builds a decoder-only transformer with random BF16 weights in the exact shape of
glossary/models/<model>.yaml (figures the entry lacks come from options, and the record says
which), then times on CUDA if present, else on the CPU:

  (a) decode: one step per batch size and context length, captured in a CUDA graph, with
      attention over a KV cache of that length (scaled_dot_product_attention; the backend
      PyTorch picks is recorded);
  (b) prefill: one prompt of each length through the model to the first token's logits;
  (c) device ceilings: a large device-to-device copy (bytes read + written) and dense BF16 and
      FP8 (torch._scaled_mm, where the device has it) matrix products.

Each measurement: warm-up, then repeats; median, min and max. A model too large for the
device's memory is built as a slice of N layers of the exact shape, and per-token times are
scaled to all layers: t_full = t_head + (t_slice - t_head) * layers / N, where t_head (final
norm and output head, timed alone) does not grow with layers. One YAML record per run goes to
--out as <device>-<model>-<date>.yaml; bench/gpu/record.schema.json describes it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import math
import platform
import re
import subprocess
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import yaml  # noqa: E402

from shapes import REPO, ShapeError, hardware_datasheet, hardware_for_device, load_shape  # noqa: E402

SCHEMA_VERSION = 1
GiB = 1 << 30


def sig(x: float, digits: int = 5) -> float:
    """x rounded to `digits` significant figures, for readable records."""
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


def stat(samples_or_summary, scale: float = 1.0, digits: int = 5) -> dict:
    s = samples_or_summary
    return {"median": sig(s["median"] * scale, digits), "min": sig(s["min"] * scale, digits),
            "max": sig(s["max"] * scale, digits), "repeats": s["repeats"]}


def git_blob(path: Path) -> str:
    """The file's git blob id: compare with `git rev-parse <commit>:bench/gpu/<file>`."""
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="entry id in glossary/models, or a path to a model YAML")
    g = p.add_argument_group("figures the entry lacks (recorded as coming from the option)")
    for name in ("layers", "hidden-size", "attention-heads", "kv-heads", "head-dim", "ffn-size",
                 "vocab-size", "experts", "experts-active", "expert-ffn-size", "shared-experts"):
        g.add_argument(f"--{name}", type=int)
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 8, 64])
    p.add_argument("--contexts", type=int, nargs="+", default=[512, 2048, 8192],
                   help="KV-cache lengths for decode (positions attended by the new token)")
    p.add_argument("--prompts", type=int, nargs="+", default=[512, 2048, 8192], help="prefill lengths")
    p.add_argument("--prefill-batch", type=int, default=1)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--prefill-repeats", type=int, default=10)
    p.add_argument("--gpu-warmup-s", type=float, default=2.0,
                   help="seconds of copies and matrix products before the first measurement, so the clocks "
                        "have left idle (a first run on an idle H100 measured copies at 2,764 GB/s, later ones 2,983)")
    p.add_argument("--copy-mib", type=int, default=1024, help="size of the tensor copied for bandwidth")
    p.add_argument("--matmul-size", type=int, default=8192, help="M = N = K of the TFLOPS products")
    p.add_argument("--slice-layers", default="auto",
                   help="layers to build: 'auto' (all if the weights fit --weight-mem-fraction of free memory) or N")
    p.add_argument("--weight-mem-fraction", type=float, default=0.6)
    p.add_argument("--hardware", default="auto",
                   help="hardware entry whose datasheet figures to compare with: 'auto' (by device name), 'none', or an id")
    p.add_argument("--datasheet-bandwidth-gbs", type=float, help="overrides the hardware entry's bandwidth")
    p.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    p.add_argument("--sdpa-backend", default="auto", choices=["auto", "flash", "cudnn", "efficient", "math"],
                   help="auto: whatever scaled_dot_product_attention picks; else only that kernel (torch.nn.attention.sdpa_kernel)")
    p.add_argument("--no-cuda-graph", action="store_true")
    p.add_argument("--cpu-threads", type=int, default=1,
                   help="torch threads on the CPU path (a smoke test, not a benchmark; small BF16 "
                        "products ran 1000x slower with 2 threads on a loaded 2-core machine)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--git-commit", help="commit of this script (the device copy may lack .git)")
    p.add_argument("--out", default=str(HERE / "results"))
    p.add_argument("--date", help="YYYY-MM-DD for the record and file name (default: today, UTC)")
    return p.parse_args(argv)


def figure_options(args) -> dict:
    return {k: getattr(args, k) for k in ("layers", "hidden_size", "attention_heads", "kv_heads",
                                          "head_dim", "ffn_size", "vocab_size", "experts",
                                          "experts_active", "expert_ffn_size", "shared_experts")}


def environment(torch, device, args) -> dict:
    env = {
        "device_type": device.type,
        "torch_version": str(torch.__version__),
        "cuda_version": torch.version.cuda,
        "python_version": platform.python_version(),
        "platform": platform.platform(),
    }
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        env["device_name"] = torch.cuda.get_device_name(device)
        env["compute_capability"] = f"{props.major}.{props.minor}"
        env["multiprocessors"] = props.multi_processor_count
        env["memory_total_bytes"] = props.total_memory
        env["cudnn_version"] = torch.backends.cudnn.version()
        try:
            env["driver_version"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", str(device.index or 0)],
                capture_output=True, text=True, timeout=30).stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            env["driver_version"] = None
    else:
        env["device_name"] = f"cpu {platform.machine()}"
        env["driver_version"] = None
        env["cpu_threads"] = torch.get_num_threads()
    commit = args.git_commit
    commit_from = "option --git-commit"
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True,
                                    text=True, timeout=30).stdout.strip() or None
            commit_from = "git rev-parse HEAD on the measuring machine"
        except (OSError, subprocess.SubprocessError):
            commit = None
    env["git_commit"] = commit or "unknown"
    env["git_commit_from"] = commit_from if commit else "unavailable"
    env["script_blobs"] = {f.name: git_blob(f) for f in sorted(HERE.glob("*.py"))}
    return env


def device_slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# ---- device ceilings ----------------------------------------------------------------------
def gpu_warmup(torch, device, seconds: float) -> float:
    """Copies and BF16 products until `seconds` have passed; returns the seconds spent."""
    import time
    if device.type != "cuda" or seconds <= 0:
        return 0.0
    a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
    src = torch.randn(256 << 20, device=device, dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            a @ a
            dst.copy_(src)
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def measure_copy(torch, device, args) -> dict:
    from timers import summarize, time_call
    n = args.copy_mib * (1 << 20) // 2
    src = torch.randn(n, device=device, dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    samples, _ = time_call(lambda: dst.copy_(src), device, args.warmup, args.repeats)
    moved = 2 * n * 2
    s = summarize(samples)
    ok = bool(torch.equal(dst, src))
    del src, dst
    return {
        "method": "dst.copy_(src) of one BF16 tensor; bytes read + bytes written over the time",
        "bytes_per_copy": n * 2,
        "bytes_moved": moved,
        "bandwidth_gbs": {"median": sig(moved / s["median"] / 1e9), "min": sig(moved / s["max"] / 1e9),
                          "max": sig(moved / s["min"] / 1e9), "repeats": s["repeats"]},
        "time_s": stat(s),
        "copy_checked": ok,
    }


def measure_matmul(torch, device, args, fp8: bool, fast_accum: bool = False) -> dict:
    from timers import summarize, time_call
    m = args.matmul_size
    flops = 2 * m ** 3
    if fp8:
        reason = None
        if device.type != "cuda":
            reason = "FP8 matrix products need a CUDA device"
        elif torch.cuda.get_device_capability(device) < (8, 9):
            reason = f"compute capability {torch.cuda.get_device_capability(device)} < 8.9"
        elif not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
            reason = "this torch has no torch._scaled_mm / float8_e4m3fn"
        if reason:
            return {"supported": False, "reason": reason}
        a = torch.randn(m, m, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(m, m, device=device).to(torch.float8_e4m3fn).t()  # column-major, as required
        one = torch.ones((), device=device, dtype=torch.float32)

        def fn():
            r = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast_accum)
            return r[0] if isinstance(r, tuple) else r
        desc = ("torch._scaled_mm, float8_e4m3fn inputs (B column-major), unit scales, BF16 output, "
                f"use_fast_accum={fast_accum}")
    else:
        a = torch.randn(m, m, device=device, dtype=torch.bfloat16)
        b = torch.randn(m, m, device=device, dtype=torch.bfloat16)
        c = torch.empty(m, m, device=device, dtype=torch.bfloat16)

        def fn():
            return torch.mm(a, b, out=c)
        desc = "torch.mm of two BF16 matrices, random normal values"
    try:
        samples, out = time_call(fn, device, args.warmup, args.repeats)
    except Exception as exc:  # e.g. a torch built without FP8 kernels for this device
        return {"supported": False, "reason": f"{type(exc).__name__}: {exc}"[:300]}
    s = summarize(samples)
    return {
        "supported": True,
        "method": desc,
        "m": m, "n": m, "k": m,
        "tflops": {"median": sig(flops / s["median"] / 1e12), "min": sig(flops / s["max"] / 1e12),
                   "max": sig(flops / s["min"] / 1e12), "repeats": s["repeats"]},
        "time_s": stat(s),
        "output_finite": bool(torch.isfinite(out.float()).all()),
    }


# ---- planning -----------------------------------------------------------------------------
def plan_layers(torch, shape, device, args) -> tuple[int, str]:
    nonlayer = shape.nonlayer_params() * 2
    per_layer = shape.layer_params() * 2
    full = shape.layers * per_layer + nonlayer
    if args.slice_layers != "auto":
        n = int(args.slice_layers)
        if not 1 <= n <= shape.layers:
            raise SystemExit(f"--slice-layers must be 1..{shape.layers}")
        return n, "option --slice-layers"
    if device.type != "cuda":
        return shape.layers, "auto: CPU, all layers"
    torch.cuda.empty_cache()  # the ceilings' buffers, cached by the allocator, are free
    free, _ = torch.cuda.mem_get_info(device)
    budget = free * args.weight_mem_fraction
    if full <= budget:
        return shape.layers, f"auto: all weights ({full / GiB:.1f} GiB) fit {args.weight_mem_fraction} of free memory"
    n = int((budget - nonlayer) // per_layer)
    if n < 1:
        raise SystemExit(f"not even one layer ({per_layer / GiB:.1f} GiB) plus head fits {budget / GiB:.1f} GiB")
    return n, (f"auto: all weights need {full / GiB:.1f} GiB; {n} layers of {per_layer / GiB:.2f} GiB plus "
               f"embedding and head fit {args.weight_mem_fraction} of {free / GiB:.1f} GiB free")


def free_bytes(torch, device) -> float:
    if device.type != "cuda":
        return float("inf")
    torch.cuda.empty_cache()
    return torch.cuda.mem_get_info(device)[0]


def output_ok(torch, out, vocab: int) -> bool:
    logits, tokens = out
    return bool(torch.isfinite(logits.float()).all()) and bool(((tokens >= 0) & (tokens < vocab)).all())


# ---- main ---------------------------------------------------------------------------------
def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        shape = load_shape(args.model, figure_options(args))
    except ShapeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if shape.missing_from_entry:
        print(f"{shape.model_id}: not in the entry, taken from options: "
              + ", ".join(f"{k}={getattr(shape, k)}" for k in shape.missing_from_entry))
    for note in shape.not_modelled:
        print(f"{shape.model_id}: not modelled: {note}")

    import torch
    import transformer
    from timers import summarize, time_call

    if args.device == "auto":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(args.device)
    if device.type == "cuda":
        device = torch.device("cuda", torch.cuda.current_device())
    if device.type == "cpu":
        torch.set_num_threads(args.cpu_threads)
    torch.manual_seed(args.seed)
    use_graph = device.type == "cuda" and not args.no_cuda_graph
    sdpa_ctx = transformer.sdpa_context(args.sdpa_backend)
    date = args.date or dt.datetime.now(dt.timezone.utc).date().isoformat()
    env = environment(torch, device, args)
    print(f"device: {env['device_name']}, torch {env['torch_version']}, CUDA {env['cuda_version']}, "
          f"driver {env.get('driver_version')}")

    # Datasheet figures to compare with.
    datasheet = None
    hw = hardware_for_device(env["device_name"]) if args.hardware == "auto" else (
        None if args.hardware == "none" else args.hardware)
    if hw:
        datasheet = hardware_datasheet(hw)
        datasheet["matched_by"] = "device name" if args.hardware == "auto" else "option --hardware"
    if args.datasheet_bandwidth_gbs:
        datasheet = dict(datasheet or {})
        datasheet["bandwidth_gbs"] = args.datasheet_bandwidth_gbs
        datasheet["bandwidth_gbs_source"] = "option --datasheet-bandwidth-gbs"

    notes: list[str] = []
    warmed = gpu_warmup(torch, device, args.gpu_warmup_s)
    # (c) device ceilings, at the start and again at the end of the run: the end's, taken after
    # the workload has held the clocks up, are the yardstick for the ratios below.
    def measure_ceilings() -> dict:
        return {
            "copy": measure_copy(torch, device, args),
            "matmul_bf16": measure_matmul(torch, device, args, fp8=False),
            "matmul_fp8": measure_matmul(torch, device, args, fp8=True),
            "matmul_fp8_fast_accum": measure_matmul(torch, device, args, fp8=True, fast_accum=True),
        }

    def show(c: dict, when: str) -> None:
        print(f"{when}: copy {c['copy']['bandwidth_gbs']['median']} GB/s, BF16 "
              f"{c['matmul_bf16']['tflops']['median']} TFLOPS, FP8 "
              f"{c['matmul_fp8'].get('tflops', {}).get('median', 'n/a')} TFLOPS")

    ceilings_start = measure_ceilings()
    show(ceilings_start, "ceilings at start")
    copy_bw = bf16_flops = None  # set from the ceilings measured at the end
    finish = []  # ratios to compute once those are known

    n_layers, slice_reason = plan_layers(torch, shape, device, args)
    is_slice = n_layers < shape.layers
    scale = shape.layers / n_layers
    model = transformer.Model(shape, n_layers, device, seed=args.seed)
    built = {
        "layers_built": n_layers,
        "slice": is_slice,
        "layer_scale": sig(scale, 6),
        "slice_reason": slice_reason,
        "dtype": "bfloat16",
        "weights": "random normal scaled by 1/sqrt(fan_in); norms ones",
        "params_built": model.params(),
        "weight_bytes_built": model.weight_bytes(),
        "cuda_graph": use_graph,
        "ffn": "gated (SwiGLU): gate and up projections fused in one matrix, then down",
        "attention": ("fused QKV projection, rotary embedding, scaled_dot_product_attention over the "
                      "KV cache, output projection"),
    }
    if shape.is_moe:
        built["moe_routing"] = (
            "random: k distinct routed experts per token, uniform, drawn per layer once per "
            "configuration before timing; the router's product is computed and the routing weights "
            "are a softmax of its logits at the drawn experts; tokens sorted by expert, two matrix "
            "products per used expert (experts no token chose are not read)")
    if is_slice:
        built["scaling"] = ("per-step times scaled to all layers: t_full = t_head + (t_slice - t_head) * "
                            f"{shape.layers}/{n_layers}; t_head = final norm + output head timed alone; "
                            "min and max scaled with the same t_head median")
        notes.append(f"measured a slice of {n_layers} of {shape.layers} layers; full-model times are scaled by layers")
    print(f"built {n_layers}/{shape.layers} layers, {model.weight_bytes() / GiB:.2f} GiB of weights ({slice_reason})")

    def full(summary: dict, head: dict | None) -> dict:
        """Scale a slice's timing summary to the whole model."""
        if not is_slice:
            return dict(summary)
        h = head["median"]
        return {k: (h + (summary[k] - h) * scale if k in ("median", "min", "max") else summary[k])
                for k in summary}

    def ceiling(bytes_full: float, step_s: float, batch: int) -> dict:
        out = {"copy_bandwidth_gbs": sig(copy_bw / 1e9),
               "step_time_s": sig(bytes_full / copy_bw),
               "tokens_per_s": sig(batch * copy_bw / bytes_full),
               "fraction_achieved": sig(bytes_full / copy_bw / step_s, 4)}
        if datasheet and datasheet.get("bandwidth_gbs"):
            bw = datasheet["bandwidth_gbs"] * 1e9
            out["datasheet"] = {"bandwidth_gbs": datasheet["bandwidth_gbs"],
                                "step_time_s": sig(bytes_full / bw),
                                "tokens_per_s": sig(batch * bw / bytes_full),
                                "fraction_achieved": sig(bytes_full / bw / step_s, 4)}
        return out

    heads: dict[int, dict] = {}

    def head_time(batch: int) -> dict | None:
        if not is_slice:
            return None
        if batch not in heads:
            samples, _ = time_call(model.make_head_step(batch), device, args.warmup, args.repeats, graph=use_graph)
            heads[batch] = summarize(samples)
        return heads[batch]

    kv_tok_layer = shape.kv_bytes_per_token_per_layer()

    # (a) decode
    decode = []
    for batch in args.batch_sizes:
        for context in args.contexts:
            entry = {"batch": batch, "context": context}
            decode.append(entry)
            if shape.context_length and context > shape.context_length:
                entry.update(status="skipped", reason=f"beyond the entry's context_length {shape.context_length}")
                continue
            kv_bytes = kv_tok_layer * batch * model.kv_positions(context)  # local layers read their window only
            need = kv_bytes + 2 * batch * shape.vocab_size * 4 + GiB
            if need > free_bytes(torch, device):
                entry.update(status="skipped",
                             reason=f"KV cache of {kv_bytes / GiB:.1f} GiB does not fit beside the weights")
                continue
            kv = routes = step = None
            try:
                head = head_time(batch)
                routes = model.draw_routing(batch, seed=args.seed + 7919 * batch + context)
                used = [r["routed_used"] if r else 0 for r in routes]
                kv = model.new_kv_cache(batch, context)
                q, _ = model.decode_attention_inputs(batch, 1)
                with sdpa_ctx():
                    backend = transformer.sdpa_backend(q, kv[0][0], kv[0][1])
                del q
                step = transformer.within(sdpa_ctx, model.make_decode_step(batch, context, kv, routes))
                samples, out = time_call(step, device, args.warmup, args.repeats, graph=use_graph)
                ok = output_ok(torch, out, shape.vocab_size)
                del out
            except torch.cuda.OutOfMemoryError as exc:
                entry.update(status="skipped", reason=f"out of memory: {str(exc)[:200]}")
                continue
            except Exception as exc:  # recorded, never hidden: the record says which failed and why
                traceback.print_exc()
                entry.update(status="failed", reason=f"{type(exc).__name__}: {exc}"[:300])
                continue
            finally:
                kv = routes = step = None
                free_bytes(torch, device)
            s = summarize(samples)
            f = full(s, head)
            # Bytes one step reads: weights (MoE: the experts used), the whole KV cache.
            layer_w = sum(model.layer_bytes_read(L, u) for L, u in zip(model.layers, used))
            head_w = model.head_bytes_read(batch)
            bytes_full = (layer_w + kv_bytes) * scale + head_w
            entry.update({
                "status": "measured",
                "sdpa_backend": backend,
                "attention_layout": "GQA query heads folded into the query length: q (B, kv_heads, group, head_dim), no mask",
                "cuda_graph": use_graph,
                "output_ok": ok,
                "step_time_s": stat(s),
            })
            if is_slice:
                entry["head_time_s"] = stat(head)
            entry["full_model_step_time_s"] = stat(f)
            entry["tokens_per_s"] = {"median": sig(batch / f["median"]), "min": sig(batch / f["max"]),
                                     "max": sig(batch / f["min"]), "repeats": f["repeats"]}
            entry["bytes_per_step"] = {
                "weights": int(layer_w * scale + head_w),
                "kv_cache_read": int(kv_bytes * scale),
                "total": int(bytes_full),
                "counted": ("full model: layer weights read (MoE: routed experts used, mean over the built "
                            "layers) plus attention, norms, router, output head and the batch's embedding "
                            "rows; KV cache of every layer read once; writes of one position not counted"),
            }
            if shape.is_moe:
                entry["experts_used_per_layer"] = {"mean": sig(sum(used) / len(used), 4), "min": min(used),
                                                   "max": max(used), "of": shape.experts}
            finish.append(lambda e=entry, b=bytes_full, t=f["median"], n=batch:
                          e.__setitem__("bandwidth_ceiling", ceiling(b, t, n)))
            print(f"decode B={batch:<3} ctx={context:<6} {f['median'] * 1e3:9.3f} ms/step "
                  f"{batch / f['median']:10.1f} tok/s  [{backend}]")

    # (b) prefill
    prefill = []
    B = args.prefill_batch
    for length in args.prompts:
        entry = {"batch": B, "prompt_length": length}
        prefill.append(entry)
        if shape.context_length and length > shape.context_length:
            entry.update(status="skipped", reason=f"beyond the entry's context_length {shape.context_length}")
            continue
        kv_bytes = kv_tok_layer * B * length * n_layers  # written: every layer stores the prompt's K and V
        tokens = B * length
        ffn_w = (shape.experts_active + shape.shared_experts) * 3 * shape.expert_ffn_size if shape.is_moe else 3 * shape.ffn_size
        qkv_w = (shape.attention_heads + 2 * shape.kv_heads) * shape.head_dim
        act = tokens * 2 * (8 * shape.hidden_size + 3 * qkv_w + 2 * ffn_w) + tokens * shape.attention_heads * shape.head_dim * 2 * 2
        if kv_bytes + act + GiB > free_bytes(torch, device):
            entry.update(status="skipped", reason=f"KV cache and activations (~{(kv_bytes + act) / GiB:.1f} GiB) do not fit")
            continue
        kv = routes = run = None
        try:
            head = head_time(B)
            with sdpa_ctx():
                gqa_mode, backend = model.prefill_gqa_mode(B, length)
            routes = model.draw_routing(tokens, seed=args.seed + 104729 + length)
            used = [r["routed_used"] if r else 0 for r in routes]
            kv = model.new_kv_cache(B, length)
            run = transformer.within(sdpa_ctx, model.make_prefill(B, length, kv, routes, gqa_mode))
            samples, out = time_call(run, device, max(1, args.warmup // 2), args.prefill_repeats, graph=use_graph)
            ok = output_ok(torch, out, shape.vocab_size)
            del out
        except torch.cuda.OutOfMemoryError as exc:
            entry.update(status="skipped", reason=f"out of memory: {str(exc)[:200]}")
            continue
        except Exception as exc:
            traceback.print_exc()
            entry.update(status="failed", reason=f"{type(exc).__name__}: {exc}"[:300])
            continue
        finally:
            kv = routes = run = None
            free_bytes(torch, device)
        s = summarize(samples)
        f = full(s, head)
        flops_slice = model.prefill_flops(B, length)
        head_flops = 2 * B * shape.vocab_size * shape.hidden_size
        flops_full = (flops_slice - head_flops) * scale + head_flops
        entry.update({
            "status": "measured",
            "sdpa_backend": backend,
            "gqa": gqa_mode,
            "cuda_graph": use_graph,
            "output_ok": ok,
            "time_s": stat(s),
        })
        if is_slice:
            entry["head_time_s"] = stat(head)
        entry["time_to_first_token_s"] = stat(f)
        entry["prompt_tokens_per_s"] = {"median": sig(tokens / f["median"]), "min": sig(tokens / f["max"]),
                                        "max": sig(tokens / f["min"]), "repeats": f["repeats"]}
        entry["flops"] = int(flops_full)
        # Memory side of the roofline: every weight read once (MoE: experts any prompt token
        # chose), the prompt's embedding rows, the KV cache written once.
        layer_w = sum(model.layer_bytes_read(L, u) for L, u in zip(model.layers, used))
        bytes_full = int((layer_w + kv_bytes) * scale + model.head_bytes_read(tokens))
        if shape.is_moe:
            entry["experts_used_per_layer"] = {"mean": sig(sum(used) / len(used), 4), "min": min(used),
                                               "max": max(used), "of": shape.experts}
        finish.append(lambda e=entry, fl=flops_full, b=bytes_full, t=f["median"]: prefill_roofline(e, fl, b, t))
        print(f"prefill P={length:<6} {f['median'] * 1e3:9.2f} ms to first token  "
              f"{flops_full / f['median'] / 1e12:.1f} TFLOPS  [{backend}, gqa {gqa_mode}]")

    def prefill_roofline(entry: dict, flops_full: float, bytes_full: int, t: float) -> None:
        entry["compute_ceiling"] = {
            "counted": ("full model: 2 x multiply-adds of every matrix product a token passes through "
                        "(MoE: active experts) plus causal attention (QK^T and PV), and the output head for the last position"),
            "bf16_tflops": sig(bf16_flops / 1e12),
            "time_s": sig(flops_full / bf16_flops),
            "fraction_achieved": sig(flops_full / bf16_flops / t, 4),
            "achieved_tflops": sig(flops_full / t / 1e12),
        }
        floor = bytes_full / copy_bw
        roof = max(floor, flops_full / bf16_flops)
        entry["bandwidth_floor"] = {
            "counted": ("full model: weights read once (MoE: experts used by any prompt token), "
                        "the prompt's embedding rows, the output head, the KV cache written once"),
            "bytes": bytes_full,
            "copy_bandwidth_gbs": sig(copy_bw / 1e9),
            "time_s": sig(floor),
        }
        entry["roofline"] = {"time_s": sig(roof), "bound": "compute" if roof > floor else "memory",
                             "fraction_achieved": sig(roof / t, 4)}

    del model
    free_bytes(torch, device)
    ceilings = measure_ceilings()
    show(ceilings, "ceilings at end")
    # A card measured cold, or hot just after a long prefill, reads low, never high: the
    # yardstick is the higher of the two medians.
    runs = {"start": ceilings_start, "end": ceilings}
    copy_from = max(runs, key=lambda k: runs[k]["copy"]["bandwidth_gbs"]["median"])
    bf16_from = max(runs, key=lambda k: runs[k]["matmul_bf16"]["tflops"]["median"])
    yardsticks = {
        "copy_bandwidth_gbs": runs[copy_from]["copy"]["bandwidth_gbs"]["median"],
        "copy_from": copy_from,
        "bf16_tflops": runs[bf16_from]["matmul_bf16"]["tflops"]["median"],
        "bf16_from": bf16_from,
        "rule": "the higher median of device_ceilings_at_start and device_ceilings (end)",
    }
    copy_bw = yardsticks["copy_bandwidth_gbs"] * 1e9
    bf16_flops = yardsticks["bf16_tflops"] * 1e12
    print(f"yardsticks: copy {yardsticks['copy_bandwidth_gbs']} GB/s ({copy_from}), "
          f"BF16 {yardsticks['bf16_tflops']} TFLOPS ({bf16_from})")
    for fn in finish:
        fn()
    for e in decode:
        if e["status"] == "measured":
            c = e["bandwidth_ceiling"]
            print(f"decode B={e['batch']:<3} ctx={e['context']:<6} {e['tokens_per_s']['median']:10.1f} tok/s "
                  f"= {c['fraction_achieved']:.2f} of the copy ceiling ({c['tokens_per_s']:.1f} tok/s)"
                  + (f", {c['datasheet']['fraction_achieved']:.2f} of the datasheet's" if "datasheet" in c else ""))
        else:
            print(f"decode B={e['batch']:<3} ctx={e['context']:<6} {e['status']}: {e['reason']}")
    for e in prefill:
        if e["status"] == "measured":
            r = e["roofline"]
            print(f"prefill P={e['prompt_length']:<6} {e['time_to_first_token_s']['median'] * 1e3:9.2f} ms "
                  f"= {r['fraction_achieved']:.2f} of the {r['bound']} roofline")
        else:
            print(f"prefill P={e['prompt_length']:<6} {e['status']}: {e['reason']}")

    record = {
        "schema_version": SCHEMA_VERSION,
        "date": date,
        "timestamp_utc": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "model": {"id": shape.model_id, "title": shape.title, "entry": shape.entry_path,
                  "entry_blob": git_blob(Path(REPO / shape.entry_path)) if (REPO / shape.entry_path).exists() else None},
        "shape": shape.as_record(),
        "built": built,
        "environment": env,
        "parameters": {
            "batch_sizes": args.batch_sizes, "contexts": args.contexts, "prompts": args.prompts,
            "prefill_batch": args.prefill_batch, "warmup": args.warmup, "repeats": args.repeats,
            "prefill_repeats": args.prefill_repeats, "copy_mib": args.copy_mib,
            "matmul_size": args.matmul_size, "slice_layers": args.slice_layers,
            "weight_mem_fraction": args.weight_mem_fraction, "hardware": args.hardware,
            "datasheet_bandwidth_gbs": args.datasheet_bandwidth_gbs, "seed": args.seed,
            "cpu_threads": args.cpu_threads if device.type == "cpu" else None,
            "gpu_warmup_s": round(warmed, 3),
            "cuda_graph": use_graph, "sdpa_backend": args.sdpa_backend, "argv": sys.argv[1:] if argv is None else list(argv),
        },
        "datasheet": datasheet,
        "device_ceilings": ceilings,
        "device_ceilings_at_start": ceilings_start,
        "yardsticks": yardsticks,
        "decode": decode,
        "prefill": prefill,
        "notes": notes + [
            "random weights: decode and prefill time depend on shapes, not on values, so a trained "
            "checkpoint of this shape runs the same kernels on the same bytes",
            "decode context = KV positions attended by the new token (cache of context - 1 earlier tokens plus its own)",
            "device_ceilings_at_start were measured before the model was built (after gpu_warmup_s of load), "
            "device_ceilings after the last prefill; every ratio uses the yardsticks, the higher of the two",
        ],
    }
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{device_slug(env['device_name'])}-{shape.model_id}-{date}"
    path = out_dir / f"{stem}.yaml"
    n = 2
    while path.exists():
        path = out_dir / f"{stem}-{n}.yaml"
        n += 1
    path.write_text(
        f"# Written by bench/gpu/measure.py; schema: bench/gpu/record.schema.json\n"
        + yaml.safe_dump(record, sort_keys=False, width=110, allow_unicode=True),
        encoding="utf-8")
    print(f"record: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
