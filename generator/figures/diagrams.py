"""Explanatory diagrams for the core ideas of LLM serving, drawn as inline SVG.

Each diagram is a small Python function that lays out shapes for a given width, drawn
twice: 720 user units wide for a laptop and 360 for a phone. CSS (docs/assets/
atlas-figures.css) shows the one that fits the column, by a container query, so that every
label renders at 14 units x (column width / viewBox width) >= 12.9 px: the wide drawing
only where the column is at least 640 px, the narrow one (360 units, about 360 px on a
390 px phone) below. Where a horizontal flow would not fit a phone, the narrow drawing
turns it into a column instead of shrinking it.

Why hand-laid SVG rather than a diagram library (Graphviz, Mermaid): the site already
renders without a browser-side diagram runtime on these pages, the output must pass the
sanitizer's allow-list (generator/render/sanitize.py: shapes, text, classes; no <style>, no
<marker>, no <foreignObject>), and colours must follow the reader's theme through CSS
classes, which Graphviz's inline attributes do not. The geometry is a few helpers below.

Every figure carries a text alternative twice over: the SVG is role="img" with an
aria-label that says what the picture shows, and a visible <figcaption> says what to take
from it. Pages get them in two ways: entry pages by id (`for_entry`, called from
figures.entry_figures), handwritten pages by a marker `<!-- atlas:figure NAME -->`
(handwritten.expand).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Callable

from generator.render.page import html_block

WIDE, NARROW = 720, 360
FONT, SMALL = 15, 14  # user units; CSS sets the same sizes on the classes below
CHAR = 0.56  # average advance of a sans-serif character, in ems, for wrapping estimates


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _e(s: str) -> str:
    return html.escape(s, quote=True)


class Canvas:
    """The parts of one SVG drawing, added by helpers that know the site's classes."""

    def __init__(self, w: int):
        self.w = w
        self.parts: list[str] = []
        self.bottom = 0.0

    def _grow(self, y: float) -> None:
        self.bottom = max(self.bottom, y)

    def rect(self, x: float, y: float, w: float, h: float, cls: str = "box", rx: float = 5) -> None:
        self.parts.append(f'<rect class="atlas-dg__{cls}" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{_n(rx)}"/>')
        self._grow(y + h)

    def text(self, x: float, y: float, s: str, cls: str = "", anchor: str = "middle") -> None:
        c = f' class="atlas-dg__{cls}"' if cls else ""
        self.parts.append(f'<text{c} x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}">{_e(s)}</text>')
        self._grow(y + 5)

    def lines(self, x: float, y: float, rows: list[str], cls: str = "", anchor: str = "middle", gap: float = 18) -> float:
        """Several lines of text from baseline y; returns the baseline after the last."""
        for r in rows:
            self.text(x, y, r, cls, anchor)
            y += gap
        return y

    def note(self, y: float, text: str) -> list[str]:
        """The drawing's explanation under it: small text wrapped to the width, from the left
        edge at baseline y; returns the wrapped rows (for whatever is drawn after them)."""
        rows = wrap(text, self.w - 8)
        self.lines(4, y, rows, "small", "start")
        return rows

    def box(self, x: float, y: float, w: float, h: float, label: str | list[str], cls: str = "box",
            small: str | None = None) -> None:
        """A rounded box with a centred label (one or more lines) and an optional smaller line."""
        self.rect(x, y, w, h, cls)
        rows = [label] if isinstance(label, str) else label
        total = len(rows) * 18 + (17 if small else 0)
        base = y + (h - total) / 2 + 13
        base = self.lines(x + w / 2, base, rows, "strong" if cls != "ghost" else "")
        if small:
            self.text(x + w / 2, base - 1, small, "small")

    def line(self, x1: float, y1: float, x2: float, y2: float, cls: str = "link") -> None:
        self.parts.append(f'<line class="atlas-dg__{cls}" x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}"/>')

    def head(self, x: float, y: float, dx: float, dy: float, cls: str = "head") -> None:
        """An arrowhead with its tip at (x, y), pointing along (dx, dy)."""
        d = (dx * dx + dy * dy) ** 0.5 or 1
        ux, uy = dx / d, dy / d
        bx, by = x - ux * 9, y - uy * 9
        pts = [(x, y), (bx - uy * 5, by + ux * 5), (bx + uy * 5, by - ux * 5)]
        self.parts.append(f'<polygon class="atlas-dg__{cls}" points="' + " ".join(f"{_n(a)},{_n(b)}" for a, b in pts) + '"/>')

    def arrow(self, x1: float, y1: float, x2: float, y2: float, cls: str = "link") -> None:
        self.line(x1, y1, x2 - (x2 - x1) * 0.001, y2 - (y2 - y1) * 0.001, cls)
        self.head(x2, y2, x2 - x1, y2 - y1)

    def path(self, d: str, cls: str = "link") -> None:
        self.parts.append(f'<path class="atlas-dg__{cls}" d="{d}"/>')

    def svg(self, label: str, cls: str, pad: float = 6) -> str:
        h = int(self.bottom + pad + 0.999)
        return (f'<svg class="{cls}" viewBox="0 0 {self.w} {h}" role="img" aria-label="{_e(label)}" focusable="false">'
                + "".join(self.parts) + "</svg>")


def wrap(text: str, width: float, size: float = SMALL) -> list[str]:
    """Greedy word wrap to `width` user units at font `size` (an estimate: CHAR ems a glyph)."""
    most = max(4, int(width / (size * CHAR)))
    out, cur = [], ""
    for word in text.split():
        if cur and len(cur) + 1 + len(word) > most:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}".strip()
    return out + ([cur] if cur else [])


def fits(text: str, width: float, size: float = FONT) -> bool:
    return len(text) * size * CHAR <= width


# --- a shared simulation: static against continuous batching ----------------------------

def schedule(lengths: list[int], slots: int, continuous: bool) -> list[list[int | None]]:
    """Which request (index into lengths) occupies each slot at each step, None where idle.

    Static: a batch of `slots` requests starts together and holds every slot until its
    longest request ends; then the next batch starts. Continuous: a slot that frees is
    given to the next waiting request at the very next step. The same rules as the
    batching simulator (docs/assets/atlas-figures.js), so the drawing and the toy agree."""
    waiting = list(range(len(lengths)))
    left = [0] * len(lengths)
    slot: list[int | None] = [None] * slots
    steps: list[list[int | None]] = []
    while waiting or any(s is not None for s in slot):
        if continuous or all(s is None for s in slot):
            for i in range(slots):
                if slot[i] is None and waiting:
                    r = waiting.pop(0)
                    slot[i], left[r] = r, lengths[r]
        steps.append(list(slot))
        for r in slot:
            if r is not None and left[r] > 0:
                left[r] -= 1
        if continuous:
            slot = [None if r is not None and left[r] == 0 else r for r in slot]
        elif all(r is None or left[r] == 0 for r in slot):
            slot = [None] * slots  # otherwise a finished request keeps its slot, idle, until the batch drains
    return steps


def _finished(steps: list[list[int | None]], lengths: list[int]) -> list[int | None]:
    """Per step, the requests that did work (a finished one in a static batch does none)."""
    done = [0] * len(lengths)
    out = []
    for row in steps:
        line = []
        for r in row:
            if r is not None and done[r] < lengths[r]:
                done[r] += 1
                line.append(r)
            else:
                line.append(None)
        out.append(line)
    return out


# --- the diagrams ------------------------------------------------------------------------

def _flow(c: Canvas, nodes: list[tuple[str | list[str], str | None, str]], top: float, narrow: bool,
          edge_labels: list[str] | None = None) -> list[tuple[float, float, float, float]]:
    """Boxes joined by arrows: a row where there is room, a column on a phone. Returns each
    box's (x, y, w, h)."""
    n = len(nodes)
    boxes = []
    if not narrow:
        gap = 22 if not edge_labels else 40
        bw = (c.w - 8 - gap * (n - 1)) / n
        bh = 76
        for i, (label, small, cls) in enumerate(nodes):
            x = 4 + i * (bw + gap)
            c.box(x, top, bw, bh, label, cls, small)
            boxes.append((x, top, bw, bh))
            if i:
                px = boxes[i - 1][0] + bw
                c.arrow(px + 2, top + bh / 2, x - 2, top + bh / 2)
                if edge_labels and edge_labels[i - 1]:
                    c.lines(px + gap / 2, top - 8, [edge_labels[i - 1]], "small")
    else:
        bw, bh, gap = 220, 54, 26 if not edge_labels else 34
        x = 20
        for i, (label, small, cls) in enumerate(nodes):
            y = top + i * (bh + gap)
            c.box(x, y, bw, bh, label if isinstance(label, str) else " ".join(label), cls, small)
            boxes.append((x, y, bw, bh))
            if i:
                py = boxes[i - 1][1] + bh
                c.arrow(x + bw / 2, py + 2, x + bw / 2, y - 2)
                if edge_labels and edge_labels[i - 1]:
                    c.text(x + bw / 2 + 10, py + gap / 2 + 5, edge_labels[i - 1], "small", "start")
    return boxes


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


def kv_growth(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    left = 92 if not narrow else 80
    prompt, steps = 4, 4
    cell = min(44, (w - left - 10) / (prompt + steps))
    top = 30
    c.text(left, 16, "one slot per token: its keys (K) and values (V), every layer", "small", "start") if not narrow else \
        c.text(4, 16, "one slot per token: K and V, every layer", "small", "start")
    for r in range(steps + 1):
        y = top + r * 42
        c.text(left - 10, y + 24, "prefill" if r == 0 else f"step {r}", "small", "end")
        for i in range(prompt + r):
            cls = "tok--p" if i < prompt else ("tok--a" if i == prompt + r - 1 and r else "tok")
            c.rect(left + i * cell, y, cell - 4, 16, cls, 2)
            c.rect(left + i * cell, y + 18, cell - 4, 16, cls, 2)
        if r == 0:
            c.text(left + prompt * cell + 6, y + 14, "K", "small", "start")
            c.text(left + prompt * cell + 6, y + 32, "V", "small", "start")
    y = top + (steps + 1) * 42 + 14
    rows = ["bytes per token = 2 (K and V) × layers × KV heads × head dim × bytes per value",
            "grows by one slot per generated token, for every sequence in the batch"]
    if narrow:
        rows = wrap(rows[0], w - 8) + wrap(rows[1], w - 8)
    c.lines(4 if narrow else left, y, rows, "small", "start")
    return c


def paged_attention(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    seqs = {"A": [7, 2, 9], "B": [4, 11]}
    # Left: each sequence's logical blocks and its block table.
    top = 26
    c.text(4, 16, "Block tables (logical → physical)", "strong", "start")
    tx = 4
    for k, (name, phys) in enumerate(seqs.items()):
        x = tx + k * (150 if not narrow else 170)
        c.text(x, top + 20, f"Sequence {name}", "small", "start")
        for j, p in enumerate(phys):
            y = top + 30 + j * 30
            c.rect(x, y, 56, 24, f"seq{k}", 3)
            c.text(x + 28, y + 17, f"{name}{j}", "small")
            c.arrow(x + 60, y + 12, x + 84, y + 12)
            c.text(x + 90, y + 17, f"block {p}", "small", "start")
    # Right (or below): physical KV memory, blocks handed out as needed.
    if not narrow:
        gx, gy, cols, cw = 340, 26, 4, 92
    else:
        gx, gy, cols, cw = 4, top + 30 + 3 * 30 + 34, 4, 88
    c.text(gx, gy - 10 if narrow else 16, "GPU memory: fixed-size KV blocks", "strong", "start")
    owner = {p: (k, name, j) for k, (name, phys) in enumerate(seqs.items()) for j, p in enumerate(phys)}
    for b in range(12):
        x, y = gx + (b % cols) * cw, gy + 4 + (b // cols) * 44
        if b in owner:
            k, name, j = owner[b]
            c.rect(x, y, cw - 6, 38, f"seq{k}", 3)
            c.text(x + (cw - 6) / 2, y + 24, f"{b}: {name}{j}", "small")
        else:
            c.rect(x, y, cw - 6, 38, "free", 3)
            c.text(x + (cw - 6) / 2, y + 24, f"{b}: free", "small")
    y = gy + 4 + 3 * 44 + 18
    c.note(y, "A sequence's cache need not be contiguous: a new block is taken only when the last one fills, "
              "so at most one partly used block per sequence is wasted.")
    return c


LENGTHS = [7, 2, 3, 2, 2, 6, 2, 3]
NAMES = "ABCDEFGHIJKLMNOP"


def batching(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    slots = 4
    left = 82 if not narrow else 56
    static, cont = schedule(LENGTHS, slots, False), schedule(LENGTHS, slots, True)
    n = max(len(static), len(cont))
    cell = (w - left - 6) / n
    y = 10
    for title, steps in (("Static batching" if not narrow else "Static", static),
                         ("Continuous batching" if not narrow else "Continuous", cont)):
        work = _finished(steps, LENGTHS)
        c.text(4, y + 14, f"{title}: all {len(LENGTHS)} done after {len(steps)} steps", "strong", "start")
        y += 24
        for s in range(slots):
            c.text(left - 8, y + s * 24 + 16, f"slot {s + 1}", "small", "end")
            for t in range(n):
                x = left + t * cell
                r = work[t][s] if t < len(work) else None
                held = t < len(steps) and steps[t][s] is not None
                if r is not None:
                    c.rect(x, y + s * 24, cell - 2, 21, f"r{r % 8}", 2)
                    c.text(x + (cell - 2) / 2, y + s * 24 + 16, NAMES[r], "small")
                else:
                    c.rect(x, y + s * 24, cell - 2, 21, "idle" if held else "free", 2)
        y += slots * 24 + 20
    c.text(left, y, "one column = one forward pass (step) →", "small", "start")
    y += 20
    c.note(y, "Static: a finished request's slot (dashed grey) waits for the longest in its batch. "
              "Continuous: the next request takes a slot the step after it frees.")
    return c


def chunked_prefill(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    left = 4
    unit = (w - 8) / (12 if not narrow else 9.2)
    y = 10
    # Without chunking: a long prompt fills three steps' worth of time in one pass.
    c.text(left, y + 14, "Without chunking", "strong", "start")
    y += 22
    x = left
    for kind, length in (("d", 1), ("d", 1), ("p", 4), ("d", 1), ("d", 1), ("d", 1)):
        if kind == "d":
            c.rect(x, y, unit - 3, 34, "tok--a", 3)
            c.text(x + (unit - 3) / 2, y + 22, "A B", "small")
        else:
            c.rect(x, y, unit * length - 3, 34, "tok--p", 3)
            c.text(x + (unit * length - 3) / 2, y + 22, "prefill new prompt" if not narrow else "new prompt", "small")
        x += unit * length
    c.text(left + unit * 4, y + 54, "A and B get no token for this long step", "small", "middle")
    y += 72
    c.text(left, y + 14, "With chunked prefill", "strong", "start")
    y += 22
    x = left
    for i in range(9):
        chunk = 1 <= i <= 4
        c.rect(x, y, unit - 3 - (2 if chunk else 0), 34, "tok--a", 3)
        c.text(x + (unit - 3) / 2, y + 22, "A B", "small")
        wd = unit
        if chunk:
            c.rect(x + unit - 3, y, unit * 0.6, 34, "tok--p", 3)
            c.text(x + unit - 3 + unit * 0.3, y + 22, f"P{i}", "small")
            wd += unit * 0.6
        x += wd
        if x > w - unit + 2:
            break
    y += 54
    rows = c.note(y, "Each step carries the running requests' next tokens plus a slice of the new prompt, up to a token "
                     "budget: steps stay short and even, so the token stream never stalls.")
    c.rect(4, y + len(rows) * 18 - 6, 18, 14, "tok--a", 2)
    c.text(28, y + len(rows) * 18 + 6, "decode tokens", "small", "start")
    c.rect(150, y + len(rows) * 18 - 6, 18, 14, "tok--p", 2)
    c.text(174, y + len(rows) * 18 + 6, "prompt (prefill)", "small", "start")
    return c


def prefix_tree(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    bh = 44
    levels = [[("System prompt", "box--a")],
              [("Tool docs", "box--a"), ("RAG doc" if narrow else "Retrieved doc", "box--a")],
              [("Question 1", "box--a"), ("Question 2", "box"), ("Question 3", "box")]]
    parents = {(1, 0): 0, (1, 1): 0, (2, 0): 0, (2, 1): 0, (2, 2): 1}
    pos: dict[tuple[int, int], tuple[float, float, float]] = {}
    y = 8
    for li, nodes in enumerate(levels):
        n = len(nodes)
        bw = min(200, (w - 8 - (n - 1) * 12) / n)
        span = n * bw + (n - 1) * 12
        x0 = (w - span) / 2
        for i, (label, cls) in enumerate(nodes):
            x = x0 + i * (bw + 12)
            c.box(x, y, bw, bh, label, cls)
            pos[(li, i)] = (x, y, bw)
            if li:
                px, py, pw = pos[(li - 1, parents[(li, i)])]
                c.arrow(px + pw / 2, py + bh + 2, x + bw / 2, y - 2)
        y += bh + 40
    y -= 14
    c.rect(4, y, 18, 14, "box--a", 2)
    c.text(28, y + 12, "KV cache already computed: reused", "small", "start")
    c.rect(4, y + 22, 18, 14, "box", 2)
    c.text(28, y + 34, "new tokens: only these are prefilled", "small", "start")
    c.note(y + 60, "Requests that begin with the same tokens share one copy of that prefix's KV cache, "
                   "stored as a tree: a new request walks down it as far as its tokens match.")
    return c


def speculative(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    words = ["sat", "on", "a", "rug"]
    cell = 70 if not narrow else 62
    left = 180 if not narrow else 4
    gap = 58 if narrow else 62
    y = 10
    if narrow:
        c.text(4, y + 14, "1. Draft model guesses 4 tokens", "strong", "start")
        y += 24
    else:
        c.lines(4, y + 20, ["1. Draft model", "(small, fast)"], "strong", "start")
    for i, wd in enumerate(words):
        c.rect(left + i * cell, y, cell - 12, 32, "tok", 3)
        c.text(left + i * cell + (cell - 12) / 2, y + 21, wd)
        if i:
            c.arrow(left + i * cell - 11, y + 16, left + i * cell - 1, y + 16)
    y += gap
    if narrow:
        c.text(4, y + 14, "2. Target model checks all 4 at once", "strong", "start")
        y += 24
    else:
        c.lines(4, y + 12, ["2. Target model", "one pass over all 4"], "strong", "start")
    c.rect(left, y, cell * 4 - 12, 32, "box--p", 4)
    c.text(left + (cell * 4 - 12) / 2, y + 21, "one forward pass of the large model" if not narrow else "one pass, large model", "small")
    y += gap
    if narrow:
        c.text(4, y + 14, "3. Result: 4 tokens from one pass", "strong", "start")
        y += 24
    else:
        c.lines(4, y + 12, ["3. Result", "4 tokens, 1 pass"], "strong", "start")
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


def quant_block(w: int) -> Canvas:
    c = Canvas(w)
    narrow = w < WIDE
    per_row = 32 if not narrow else 16
    cw = min(20, (w - 8) / per_row)
    y = 24
    c.text(4, 14, "one block: 32 weights stored as 4-bit codes", "small", "start")
    for i in range(32):
        r, k = divmod(i, per_row)
        c.rect(4 + k * cw, y + r * 26, cw - 3, 22, "tok--p", 2)
    y += (32 // per_row) * 26 + 12
    c.rect(4, y, 120, 30, "tok--a", 3)
    c.text(64, y + 20, "scale: 16 bits", "small")
    c.text(134, y + 20, "shared by the block", "small", "start")
    y += 56
    c.lines(4, y, ["weight ≈ scale × code (code from −8 to 7)",
                   "bits per weight = (32 × 4 + 16) ÷ 32 = 4.5"], "small", "start")
    return c


@dataclass(frozen=True)
class Diagram:
    id: str
    title: str
    caption: str
    alt: str
    draw: Callable[[int], Canvas]


DIAGRAMS = {d.id: d for d in [
    Diagram("request-path", "The request path",
            "Seven stages from the HTTP call to the streamed answer; decode loops back through the KV cache once per token.",
            "Flow diagram: Request (limited by admission), Tokenizer (text to token IDs), Prefill (limited by compute), "
            "KV cache (memory), Scheduler (forms batches), Decode (limited by memory bandwidth) and Output (streamed), "
            "joined by arrows, with a loop from Decode back to the KV cache: each new token's keys and values are "
            "stored before the next decode step.", request_path),
    Diagram("prefill-decode", "Prefill against decode",
            "Prefill reads the weights once for the whole prompt; decode reads them again for every token.",
            "Timeline: eight prompt tokens drawn stacked in one block, processed together in one prefill pass, "
            "followed by the first token and then a row of single-token decode steps, one after another. Prefill is "
            "limited by compute because many tokens share each weight read; decode is limited by memory bandwidth "
            "because all weights are read again for every token.", prefill_decode),
    Diagram("kv-growth", "The KV cache grows one slot per token",
            "Each token adds its keys and values for every layer; the cache grows with context length and with the batch.",
            "Rows of slots, one row per step: after prefill four slots hold the prompt tokens' keys and values; each "
            "decode step adds one more slot. Bytes per token are 2 for keys and values, times layers, times KV heads, "
            "times head dimension, times bytes per value.", kv_growth),
    Diagram("paged-attention", "PagedAttention's block table",
            "Each sequence's KV cache lives in fixed-size blocks anywhere in GPU memory, found through a block table.",
            "Two sequences and their block tables: sequence A's logical blocks A0, A1, A2 map to physical blocks 7, 2 "
            "and 9; sequence B's blocks B0 and B1 map to 4 and 11. A grid of twelve physical KV blocks shows those "
            "five in use and the other seven free. A new block is taken only when a sequence's last block fills.",
            paged_attention),
    Diagram("batching", "Static against continuous batching",
            "The same eight requests on four slots: continuous batching refills a slot the step after it frees.",
            "Two timelines of four slots each, one column per forward pass. Eight requests A to H need 7, 2, 3, 2, 2, "
            "6, 2 and 3 decode steps. With static batching, A to D start together and finished slots stay idle until "
            "A, the longest, ends after 7 steps; E to H then start, and all eight are done after 13 steps. With "
            "continuous batching E joins the step after B finishes, F after D, and so on: all eight are done after 8 steps.", batching),
    Diagram("chunked-prefill", "Chunked prefill",
            "A long prompt split into chunks that share steps with running decodes, instead of one long step that stalls them.",
            "Two rows of forward passes. Without chunking, running requests A and B get a token each step until a "
            "new prompt's prefill takes one long step, during which they get nothing. With chunked prefill every "
            "step carries A's and B's next tokens plus a slice of the new prompt, so steps stay short and even.",
            chunked_prefill),
    Diagram("prefix-tree", "Prefix caching's shared prefix tree",
            "Requests that start alike share the KV cache of their common prefix, kept as a tree.",
            "A tree: a system prompt at the root, then two branches, tool documentation and a retrieved document, "
            "then three questions as leaves. The system prompt, tool docs, retrieved doc and question 1 are already "
            "cached and reused; questions 2 and 3 are new tokens, the only ones that need prefill.", prefix_tree),
    Diagram("speculative", "Speculative decoding",
            "A small draft model guesses several tokens; the large model checks them all in one pass.",
            "Three rows. A draft model proposes four tokens one after another: sat, on, a, rug. The target model "
            "runs one forward pass over all four. The result keeps sat, on and a, rejects rug and puts the target's "
            "own token, mat, in its place: four tokens for one pass of the large model.", speculative),
    Diagram("parallelism", "Tensor, pipeline and expert parallelism",
            "Three ways to split a model over two GPUs, and what has to cross the link between them.",
            "Three panels of two GPUs each. Tensor parallel: every layer split in half, A on GPU 0 and B on GPU 1, "
            "with an all-reduce of activations after every layer. Pipeline parallel: layers 1 to 16 on GPU 0 and 17 "
            "to 32 on GPU 1, activations passed once at the boundary. Expert parallel: experts E1 to E4 on GPU 0 and "
            "E5 to E8 on GPU 1, each token sent to its chosen experts in an all-to-all exchange.", parallelism),
    Diagram("disaggregated", "Disaggregated prefill and decode",
            "Prefill and decode on separate GPU pools, with the KV cache moved between them.",
            "Flow: a router sends the prompt to a prefill GPU pool (compute-heavy), which hands the finished KV cache "
            "to a decode GPU pool (bandwidth-heavy), which streams tokens to the client. Moving the KV cache needs a "
            "fast interconnect such as NVLink or RDMA.", disaggregated),
    Diagram("latency", "TTFT, TPOT and end-to-end latency",
            "Where the three latency numbers of one request start and end.",
            "Timeline of one request: queue, prefill, then output tokens one after another. Time to first token "
            "spans from arrival to the first token; time per output token is the gap between later tokens; end-to-end "
            "latency runs to the last token.", latency),
    Diagram("quant-block", "How a 4-bit block is stored",
            "Thirty-two 4-bit codes share one 16-bit scale: 4.5 bits per weight, not 4.",
            "A block of 32 small cells, each a weight stored as a 4-bit code, and one larger cell holding a 16-bit "
            "scale shared by the block. Each weight is approximately scale times code. Bits per weight: 32 times 4 "
            "plus 16, divided by 32, is 4.5.", quant_block),
]}

FOR_ENTRY = {
    "inference": ["request-path"], "inference-engine": ["request-path"],
    "prefill": ["prefill-decode"], "decode": ["prefill-decode"], "autoregressive-generation": ["prefill-decode"],
    "kv-cache": ["kv-growth"],
    "paged-attention": ["paged-attention"], "memory-fragmentation": ["paged-attention"],
    "continuous-batching": ["batching"], "static-batching": ["batching"], "batching": ["batching"],
    "chunked-prefill": ["chunked-prefill"],
    "prefix-caching": ["prefix-tree"], "radix-attention": ["prefix-tree"],
    "speculative-decoding": ["speculative"], "draft-model": ["speculative"],
    "tensor-parallelism": ["parallelism"], "pipeline-parallelism": ["parallelism"],
    "expert-parallelism": ["parallelism"], "multi-gpu-inference": ["parallelism"],
    "disaggregated-serving": ["disaggregated"],
    "ttft": ["latency"], "tpot": ["latency"], "e2e-latency": ["latency"],
    "quantization": ["quant-block"], "bits-per-weight": ["quant-block"],
}
"""Entry id -> the diagrams its page shows (a term missing from the knowledge base is skipped)."""


def figure(name: str) -> str:
    """One diagram as an HTML <figure>: a wide and a narrow drawing (CSS shows one), and a caption."""
    d = DIAGRAMS[name]
    wide = d.draw(WIDE).svg(d.alt, "atlas-dg__wide")
    narrow = d.draw(NARROW).svg(d.alt, "atlas-dg__narrow")
    return (f'<figure class="atlas-dg" id="dg-{d.id}" data-diagram="{d.id}">{wide}{narrow}'
            f"<figcaption><strong>{_e(d.title)}.</strong> {_e(d.caption)}</figcaption></figure>")


def simulator() -> str:
    """The batching simulator (docs/assets/atlas-figures.js): controls, and until the script
    runs, the static drawing of the same example, so the figure says the same without it."""
    d = DIAGRAMS["batching"]
    lengths = ",".join(str(n) for n in LENGTHS)
    return ('<figure class="atlas-dg atlas-sim" id="sim-batching" data-atlas-sim="batching" '
            f'data-lengths="{lengths}" data-slots="4">'
            '<div class="atlas-sim__controls" hidden>'
            '<label for="sim-batching-len">New request: <span class="atlas-sim__len">4</span> tokens</label>'
            '<input type="range" id="sim-batching-len" min="1" max="12" step="1" value="4" data-sim="len">'
            '<button type="button" class="md-button md-button--primary" data-sim="add">Add request</button>'
            '<label for="sim-batching-slots">Slots: <span class="atlas-sim__slots">4</span></label>'
            '<input type="range" id="sim-batching-slots" min="1" max="8" step="1" value="4" data-sim="slots">'
            '<button type="button" class="md-button" data-sim="reset">Reset</button>'
            "</div>"
            '<p class="atlas-sim__summary" aria-live="polite"></p>'
            f'<div class="atlas-sim__out">{d.draw(WIDE).svg(d.alt, "atlas-dg__wide")}{d.draw(NARROW).svg(d.alt, "atlas-dg__narrow")}</div>'
            "<figcaption><strong>Try it: static against continuous batching.</strong> Add requests of any length, "
            "change the number of slots (sequences a step can hold) and compare when each policy finishes them; "
            "each column is one forward pass, each coloured cell one token of one request, a grey dashed cell a "
            "slot held by a finished request.</figcaption></figure>")


def for_entry(eid: str) -> str:
    """The diagrams an entry's page shows, as HTML blocks for its Markdown ('' for most)."""
    return "".join("\n" + html_block(figure(n)) for n in FOR_ENTRY.get(eid, ()))


MARKER_RE = re.compile(r"<!--\s*atlas:figure\s+([a-z0-9-]+)\s*-->")
"""How a handwritten page asks for a figure: `<!-- atlas:figure batching -->` on its own line."""
