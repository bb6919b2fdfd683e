"""Diagrams of a request's way through a server: the request path, prefill against decode,
speculative decoding, parallelism across devices, disaggregated serving and the latencies
a reader measures."""

from __future__ import annotations

from typing import Callable

from generator.figures.canvas import CHAR, SMALL, WIDE, Canvas, _flow, _n, fits, wrap


def request_path(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    nodes = [("Request", "admission", "box"), ("Tokenizer", "text → IDs", "box"), ("Prefill", "compute", "box--p"),
             (["KV", "cache"] if not narrow else "KV cache", "memory", "box--a"),
             ("Scheduler", "batches", "box"), ("Decode", "bandwidth", "box--p"), ("Output", "stream", "box")]
    boxes = _flow(c, nodes, 8, narrow)
    kv, dec = boxes[3], boxes[5]
    if not narrow:  # the loop: each decoded token goes back into the cache, under the row
        y0 = kv[1] + kv[3]
        xd, xk = dec[0] + dec[2] / 2, kv[0] + kv[2] / 2
        c.path(f"M{_n(xd)},{_n(y0 + 2)} C{_n(xd)},{_n(y0 + 52)} {_n(xk)},{_n(y0 + 52)} {_n(xk)},{_n(y0 + 12)}", "loop")
        c.head(xk, y0 + 3, 0, -1, "head--a")
        c.text((xd + xk) / 2, y0 + 60, "each new token's keys and values go back into the cache", "small")
        c.text(w / 2, y0 + 86, "until the answer ends: one decode step per token", "note")
    else:
        x1 = kv[0] + kv[2]
        yk, yd = kv[1] + kv[3] / 2, dec[1] + dec[3] / 2
        c.path(f"M{_n(x1 + 2)},{_n(yd)} C{_n(x1 + 44)},{_n(yd)} {_n(x1 + 44)},{_n(yk)} {_n(x1 + 12)},{_n(yk)}", "loop")
        c.head(x1 + 3, yk, -1, 0, "head--a")
        c.lines(x1 + 42, (yk + yd) / 2 - 8, ["each", "token"], "small", "start")
    return c


def prefill_decode(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    left, top, row = (72 if not narrow else 68), 30, 16
    prompt, steps = 8, (10 if not narrow else 6)
    unit = (w - left - 8) / (prompt * 0.55 + steps + 0.5)
    pw = prompt * 0.55 * unit
    c.text(left, 18, "time →", "small", "start")
    c.text(left - 8, top + 4 * row + 5, "Prefill", "strong", "end")
    for i in range(prompt):  # all prompt tokens in one pass: stacked, side by side in time
        c.rect(left, top + i * row, pw - 4, row - 3, "tok--p", 3)
    c.text(left + pw / 2 - 2, top + prompt * row + 18, f"{prompt} prompt tokens,", "small")
    c.text(left + pw / 2 - 2, top + prompt * row + 36, "one pass", "small")
    x = left + pw + unit * 0.5
    y = top + (prompt - 1) * row
    c.text(x - 6, top - 6, "first token", "small", "start")
    c.line(x - 3, top - 2, x - 3, y + row, "mark")
    for s in range(steps):
        c.rect(x + s * unit, y, unit - 4, row - 3, "tok--a", 3)
    c.text(x, y - 10, "Decode: one token a pass" if not narrow else "Decode", "strong", "start")
    yb = top + prompt * row + 60
    if not narrow:
        c.lines(left + pw / 2, yb, ["many tokens per weight read:", "limited by compute (FLOPS)"], "small")
        c.lines(x + steps * unit / 2, yb, ["every weight read again for each token:", "limited by memory bandwidth"], "small")
    else:
        c.lines(4, yb, ["Prefill: many tokens per weight read,", "limited by compute (FLOPS).",
                        "Decode: all weights read again for", "every token, limited by memory bandwidth."], "small", "start")
    return c


def speculative(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    words = ["sat", "on", "a", "rug"]
    cell = 70 if not narrow else 62
    left = 180 if not narrow else 4
    gap = 58 if narrow else 62
    y = 10

    def step(y: float, phone: str, wide: list[str], dy: int = 12) -> float:
        """A step's label: one line above its row on a phone (the row moves down), two beside it."""
        if narrow:
            c.text(4, y + 14, phone, "strong", "start")
            return y + 24
        c.lines(4, y + dy, wide, "strong", "start")
        return y

    y = step(y, "1. Draft model guesses 4 tokens", ["1. Draft model", "(small, fast)"], dy=20)
    for i, wd in enumerate(words):
        c.rect(left + i * cell, y, cell - 12, 32, "tok", 3)
        c.text(left + i * cell + (cell - 12) / 2, y + 21, wd)
        if i:
            c.arrow(left + i * cell - 11, y + 16, left + i * cell - 1, y + 16)
    y = step(y + gap, "2. Target model checks all 4 at once", ["2. Target model", "one pass over all 4"])
    c.rect(left, y, cell * 4 - 12, 32, "box--p", 4)
    c.text(left + (cell * 4 - 12) / 2, y + 21, "one forward pass of the large model" if not narrow else "one pass, large model", "small")
    y = step(y + gap, "3. Result: 4 tokens from one pass", ["3. Result", "4 tokens, 1 pass"])
    for i, wd in enumerate(words + ["mat"]):
        cls = "ok" if i < 3 else "free" if i == 3 else "fix"
        c.rect(left + i * cell, y, cell - 12, 32, cls, 3)
        c.text(left + i * cell + (cell - 12) / 2, y + 21, wd)
    c.line(left + 3 * cell + 6, y + 16, left + 4 * cell - 18, y + 16, "strike")
    y += gap
    c.note(y, "Kept: the draft's tokens up to the first one the target disagrees with (here 'rug'), "
              "which the target replaces with its own choice ('mat'). The output is the target model's own.")
    return c


def parallelism(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    pw = (w - 8 - 2 * 12) / 3 if not narrow else w - 8
    ph = 196

    def panel(x: float, y: float, title: str, crossing: str, draw: Callable[[float, float], None]) -> None:
        c.rect(x, y, pw, ph, "panel", 6)
        c.text(x + pw / 2, y + 22, title, "strong")
        draw(x, y)
        c.lines(x + pw / 2, y + 154, wrap(crossing, pw - 16), "small", gap=17)

    def gpus(x: float, y: float, fill: Callable[[int, float, float, float], None]) -> None:
        gw = (pw - 30) / 2
        for g in range(2):
            gx = x + 10 + g * (gw + 10)
            c.rect(gx, y + 36, gw, 94, "box", 4)
            c.text(gx + gw / 2, y + 54, f"GPU {g}", "small")
            fill(g, gx, y + 62, gw)

    def tensor(x: float, y: float) -> None:
        gpus(x, y, lambda g, gx, gy, gw: (c.rect(gx + 8, gy, gw - 16, 56, "box--p", 2),
                                          c.lines(gx + gw / 2, gy + 24, ["every layer,", f"half {'AB'[g]}"], "small")))

    def pipeline(x: float, y: float) -> None:
        gpus(x, y, lambda g, gx, gy, gw: (c.rect(gx + 8, gy, gw - 16, 56, "box--a" if g else "box--p", 2),
                                          c.lines(gx + gw / 2, gy + 24, ["layers", "1–16" if not g else "17–32"], "small")))

    def expert(x: float, y: float) -> None:
        def fill(g: int, gx: float, gy: float, gw: float) -> None:
            for k in range(4):
                ex, ey = gx + 6 + (k % 2) * (gw - 12) / 2, gy + (k // 2) * 30
                c.rect(ex, ey, (gw - 12) / 2 - 3, 26, "box--a" if k == 1 else "box", 2)
                c.text(ex + ((gw - 12) / 2 - 3) / 2, ey + 18, f"E{g * 4 + k + 1}", "small")
        gpus(x, y, fill)

    specs = [("Tensor parallel", "all-reduce of activations after every layer", tensor),
             ("Pipeline parallel", "activations pass once per stage boundary", pipeline),
             ("Expert parallel", "each token sent to its experts (all-to-all)", expert)]
    for i, (title, crossing, draw) in enumerate(specs):
        if narrow:
            panel(4, 4 + i * (ph + 12), title, crossing, draw)
        else:
            panel(4 + i * (pw + 12), 4, title, crossing, draw)
    return c


def disaggregated(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    nodes = [("Router", "picks a pair", "box"), (["Prefill", "GPUs"] if not narrow else "Prefill GPUs", "compute-heavy", "box--p"),
             (["Decode", "GPUs"] if not narrow else "Decode GPUs", "bandwidth-heavy", "box--a"), ("Client", "token stream", "box")]
    labels = ["prompt", "KV cache", "tokens"]
    top = 26 if not narrow else 8
    boxes = _flow(c, nodes, top, narrow, labels)
    y = max(b[1] + b[3] for b in boxes) + 26
    c.note(y, "Prefill and decode run on separate pools sized for each: prompts cannot stall running decodes, "
              "and each pool is tuned for its own limit. The price is moving every request's KV cache "
              "between them over a fast interconnect (NVLink, RDMA).")
    return c


def latency(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    left, right = 4, w - 6
    tokens = 8 if not narrow else 5
    q, p = (0.1, 0.22) if not narrow else (0.15, 0.22)  # shares of the axis: queue, prefill
    span = right - left
    y = 30
    c.text(left, 16, "one request, time →", "small", "start")
    c.rect(left, y, span * q - 2, 30, "free", 3)
    c.text(left + span * q / 2, y + 20, "queue", "small")
    c.rect(left + span * q, y, span * p - 2, 30, "tok--p", 3)
    c.text(left + span * (q + p / 2), y + 20, "prefill", "small")
    x0 = left + span * (q + p)
    step = (right - x0) / tokens
    for i in range(tokens):
        c.rect(x0 + i * step, y, step - 6, 30, "tok--a", 3)
    c.text(x0 + step / 2 - 3, y + 20, "1st", "small")

    def bracket(a: float, b: float, yy: float, label: str) -> None:
        c.line(a, yy, b, yy, "dim")
        c.line(a, yy - 6, a, yy + 6, "dim")
        c.line(b, yy - 6, b, yy + 6, "dim")
        if fits(label, b - a, SMALL) or (a + b) / 2 - len(label) * SMALL * CHAR / 2 >= 0:
            c.text((a + b) / 2, yy + 20, label, "small")
        else:  # wider than its bracket near the left edge: from the bracket's start
            c.text(a, yy + 20, label, "small", "start")

    bracket(left, x0 + step - 6, y + 50, "TTFT: time to first token")
    bracket(x0 + step - 6, x0 + 2 * step - 6, y + 96, "TPOT")
    bracket(left, right, y + 142, "E2E latency: until the last token")
    c.note(y + 190, "TPOT (time per output token) is the gap between tokens after the first; "
                    "users feel TTFT as responsiveness and TPOT as reading speed.")
    return c
