#!/usr/bin/env python3
"""Is the benchmark model a transformer? Checks that cost no GPU time to speak of.

    python bench/gpu/selfcheck.py [--device cpu|cuda]

On small shapes in float32 (dense GQA, MHA, MQA, and MoE):
  - decoding one token over a KV cache filled by a prefill gives the logits of a prefill of
    the whole sequence (so the GQA folding, the rotary positions and the cache writes of the
    timed decode step are right);
  - the sorted-by-expert MoE layer equals a plain loop over tokens and their experts.
Exits non-zero on the first mismatch. The test suite runs it on the CPU; a GPU run can run it
first on the device.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import transformer  # noqa: E402
from shapes import Shape  # noqa: E402


def tiny(attention: str, heads: int, kv_heads: int, moe: bool = False) -> Shape:
    common = dict(model_id=f"selfcheck-{attention}{'-moe' if moe else ''}", title="selfcheck", entry_path="-",
                  attention=attention, layers=2, hidden_size=48, attention_heads=heads, kv_heads=kv_heads,
                  head_dim=16, vocab_size=97)
    if moe:
        return Shape(architecture="moe", experts=6, experts_active=2, expert_ffn_size=24, **common)
    return Shape(architecture="dense", ffn_size=80, **common)


def rel_err(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.double() - b.double()).norm() / b.double().norm())


def check_decode_matches_prefill(shape: Shape, device, batch: int = 2, length: int = 9) -> float:
    m = transformer.Model(shape, shape.layers, device, dtype=torch.float32, seed=1)
    tokens = torch.randint(0, shape.vocab_size, (batch, length), device=device)
    routes_full = m.draw_routing(batch * length, seed=3)
    gqa_mode, _ = m.prefill_gqa_mode(batch, length)
    ref = m.make_prefill(batch, length, m.new_kv_cache(batch, length), routes_full, gqa_mode, tokens=tokens)()[0]
    # Same sequence: prefill all but the last token into a cache of `length`, then decode it.
    kv = m.new_kv_cache(batch, length)
    routes_head = routes_last = None
    if shape.is_moe:  # the same experts per token as the full prefill
        routes_head = m.draw_routing(batch * (length - 1), seed=0)
        routes_last = m.draw_routing(batch, seed=0)
        for l in range(m.n_layers):
            ex = routes_full[l]["experts"].view(batch, length, -1)
            routes_head[l] = route_for(m, ex[:, :-1].reshape(-1, ex.shape[-1]))
            routes_last[l] = route_for(m, ex[:, -1])
    else:
        routes_head = routes_last = [None] * m.n_layers
    m.make_prefill(batch, length - 1, kv, routes_head, gqa_mode, tokens=tokens[:, :-1])()
    got = m.make_decode_step(batch, length, kv, routes_last, tokens=tokens[:, -1])()[0]
    return rel_err(got, ref)


def route_for(m: transformer.Model, experts: torch.Tensor) -> dict:
    """A route of draw_routing's form for given experts per token."""
    n, k = experts.shape
    pairs = sorted((int(experts[t, j]), t, t * k + j) for t in range(n) for j in range(k))
    segments, start = [], 0
    for i in range(1, len(pairs) + 1):
        if i == len(pairs) or pairs[i][0] != pairs[start][0]:
            segments.append((pairs[start][0], start, i))
            start = i
    dev, s = m.device, m.shape
    return {"experts": experts.to(dev), "token_sorted": torch.tensor([p[1] for p in pairs], device=dev),
            "weight_sorted": torch.tensor([p[2] for p in pairs], device=dev),
            "ones": torch.ones(1, device=dev, dtype=m.dtype), "segments": segments,
            "routed_used": len(segments),
            "buf13": torch.empty(len(pairs), 2 * s.expert_ffn_size, device=dev, dtype=m.dtype),
            "buf2": torch.empty(len(pairs), s.hidden_size, device=dev, dtype=m.dtype)}


def check_moe_layer(device, tokens: int = 11) -> float:
    shape = tiny("gqa", 4, 2, moe=True)
    m = transformer.Model(shape, 1, device, dtype=torch.float32, seed=2)
    route = m.draw_routing(tokens, seed=5)[0]
    L = m.layers[0]
    h = torch.randn(tokens, shape.hidden_size, device=device)
    got = m._moe(L, h, route)
    Fe = shape.expert_ffn_size
    ref = torch.zeros_like(h)
    logits = h @ L.router.t()
    for t in range(tokens):
        ex = route["experts"][t]
        w = torch.softmax(logits[t, ex], dim=-1)
        for j, e in enumerate(ex.tolist()):
            gu = h[t] @ L.w13[e].t()
            ref[t] += w[j] * ((F.silu(gu[:Fe]) * gu[Fe:]) @ L.w2[e].t())
    return rel_err(got, ref)


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    args = p.parse_args(argv)
    device = torch.device(args.device)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    checks = [
        ("decode == prefill, dense GQA (8 heads, 2 KV heads)", lambda: check_decode_matches_prefill(tiny("gqa", 8, 2), device)),
        ("decode == prefill, dense MHA", lambda: check_decode_matches_prefill(tiny("mha", 4, 4), device)),
        ("decode == prefill, dense MQA", lambda: check_decode_matches_prefill(tiny("mqa", 4, 1), device)),
        ("decode == prefill, MoE GQA", lambda: check_decode_matches_prefill(tiny("gqa", 4, 2, moe=True), device)),
        ("MoE layer == loop over tokens and experts", lambda: check_moe_layer(device)),
    ]
    failed = 0
    for name, fn in checks:
        err = fn()
        ok = err < 1e-4
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: relative error {err:.2e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
