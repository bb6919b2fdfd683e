"""Diagrams of what sits in accelerator memory: the KV cache growing with each token, pages
of it as PagedAttention keeps them, a prefix tree of shared prompts, and how a quantized
block of weights is stored."""

from __future__ import annotations

from generator.figures.canvas import WIDE, Canvas, wrap


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
