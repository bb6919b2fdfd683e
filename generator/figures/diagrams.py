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
classes, which Graphviz's inline attributes do not. The geometry is a few helpers in canvas.py; the drawings are
in one module per family: batching.py (how work is scheduled), kv.py (what sits in memory)
and flows.py (a request's way through a server). This module lists them.

Every figure carries a text alternative twice over: the SVG is role="img" with an
aria-label that says what the picture shows, and a visible <figcaption> says what to take
from it. Pages get them in two ways: entry pages by id (`for_entry`, called from
figures.entry_figures), handwritten pages by a marker `<!-- atlas:figure NAME -->`
(handwritten.expand).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from generator.figures.batching import LENGTHS, _finished, batching, chunked_prefill, schedule
from generator.figures.canvas import CHAR, FONT, NARROW, SMALL, WIDE, Canvas, _e
from generator.figures.flows import disaggregated, latency, parallelism, prefill_decode, request_path, speculative
from generator.figures.kv import kv_growth, paged_attention, prefix_tree, quant_block
from generator.render.page import html_block

__all__ = ["CHAR", "DIAGRAMS", "FONT", "FOR_ENTRY", "LENGTHS", "MARKER_RE", "NARROW", "SMALL", "WIDE", "Canvas", "Diagram",
           "_finished", "figure", "for_entry", "schedule", "simulator"]  # the shared names tests and charts read from here


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
            "Two rows of forward passes, each step numbered and its boundaries marked. Without chunking, running "
            "requests A and B get a token each step until a new prompt's prefill takes one long step (step 3 of 6), "
            "during which they get nothing. With chunked prefill every "
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
