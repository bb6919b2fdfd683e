"""Diagrams of how an engine schedules work: static against continuous batching, and
chunked prefill, both drawn from one small scheduler (`schedule`) that the page's simulator
(docs/assets/atlas-figures.js) follows step for step."""

from __future__ import annotations

from generator.figures.canvas import WIDE, Canvas


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
    def step_marks(bounds: list[float], top: float) -> None:
        """Where one step (one forward pass) ends and the next begins: a dashed mark at each
        boundary and the step's number under it."""
        for b in bounds:
            c.line(b - 1.5, top - 6, b - 1.5, top + 40, "mark")
        for i, (a0, a1) in enumerate(zip(bounds, bounds[1:])):
            c.text((a0 + a1) / 2 - 1.5, top + 56, str(i + 1), "small")

    bounds = [x]
    for kind, length in (("d", 1), ("d", 1), ("p", 4), ("d", 1), ("d", 1), ("d", 1)):
        if kind == "d":
            c.rect(x, y, unit - 3, 34, "tok--a", 3)
            c.text(x + (unit - 3) / 2, y + 22, "A B", "small")
        else:
            c.rect(x, y, unit * length - 3, 34, "tok--p", 3)
            c.text(x + (unit * length - 3) / 2, y + 22, "prefill new prompt" if not narrow else "new prompt", "small")
        x += unit * length
        bounds.append(x)
    step_marks(bounds, y)
    c.text(left, y + 76, "step 3 is long: A and B get no token in it", "small", "start")
    y += 94
    c.text(left, y + 14, "With chunked prefill", "strong", "start")
    y += 22
    x = left
    bounds = [x]
    for i in range(9):
        chunk = 1 <= i <= 4
        wd = unit + (unit * 0.6 + 3 if chunk else 0)
        if x + wd > w - 2:  # only whole steps: the row ends where the drawing does
            break
        c.rect(x, y, unit - 3 - (2 if chunk else 0), 34, "tok--a", 3)
        c.text(x + (unit - 3) / 2, y + 22, "A B", "small")
        if chunk:
            c.rect(x + unit - 3, y, unit * 0.6, 34, "tok--p", 3)
            c.text(x + unit - 3 + unit * 0.3, y + 22, f"P{i}", "small")
        x += wd
        bounds.append(x)
    step_marks(bounds, y)
    y += 74
    rows = c.note(y, "Each numbered step is one forward pass. With chunking it carries the running requests' next "
                     "tokens plus a slice of the new prompt, up to a token budget: steps stay short and even, so the "
                     "token stream never stalls.")
    c.rect(4, y + len(rows) * 18 - 6, 18, 14, "tok--a", 2)
    c.text(28, y + len(rows) * 18 + 6, "decode tokens", "small", "start")
    c.rect(150, y + len(rows) * 18 - 6, 18, 14, "tok--p", 2)
    c.text(174, y + len(rows) * 18 + 6, "prompt (prefill)", "small", "start")
    return c
