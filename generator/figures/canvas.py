"""The drawing primitives the explanatory diagrams share (generator/figures/diagrams.py lists
the diagrams): an SVG canvas in user units whose classes follow the reader's theme, text
wrapping by an average character advance, and a flow of boxes joined by arrows that turns
into a column on a phone."""

from __future__ import annotations

import html

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
