"""The 'Checked against engines' page: every public engine log of glossary/engine-logs.yaml
beside what the calculator computes for the same model, context, cache type and
parallelism (calc.engines), with each engine's allocation rule in words."""

from __future__ import annotations

from generator.kb.text import esc, esc_html
from generator.pages.site import Site
from generator.render.page import Page, front_matter, html_block

SRC = "calculator/checked-against-engines.md"


def rows(atlas):
    """(log, model title, the checks, reproduced?) for every log, in file order."""
    from generator.knowledge.calc import CalcError, model_spec, precision_for
    from generator.knowledge.calc.engines import check_log

    out = []
    for log in atlas.engine_logs:
        m = model_spec(atlas.entries[log.model])
        try:
            p = precision_for(atlas, log.format, None) if log.format else None
        except CalcError:
            p = None
        checks = check_log(log, m, p)
        out.append((log, atlas.entries[log.model].title, checks, bool(checks) and all(c.ok for c in checks) and not log.differs))
    return out


def pages(site: Site) -> dict[str, str]:
    from generator.knowledge.calc.engines import KV_TOLERANCE, WEIGHTS_TOLERANCE

    atlas = site.atlas
    page = Page(atlas, SRC)
    found = rows(atlas)
    done = sum(ok for *_, ok in found)
    head = ("<table class=\"atlas-engine-logs\"><thead><tr><th>Log</th><th>Model and setting</th><th>What</th>"
            "<th style=\"text-align:right\">Engine printed</th><th style=\"text-align:right\">Calculator</th>"
            "<th style=\"text-align:right\">Ratio</th></tr></thead><tbody>")
    body = []
    for log, title, checks, ok in found:
        setting = ", ".join(x for x in (
            log.format and log.format.upper(),
            log.cells and f"{log.cells:,} cells" + (f" (+{log.swa_cells:,} windowed)" if log.swa_cells else ""),
            (log.kv_type_k and f"K {log.kv_type_k}, V {log.kv_type_v}") or (log.kv_type and f"cache {log.kv_type}"),
            log.tp > 1 and f"{log.tp} GPUs", (log.sequences or 1) > 1 and f"{log.sequences} sequences") if x)
        engine = esc_html(log.engine + (f" {log.version}" if log.version else "") + (f" via {log.via}" if log.via else ""))
        first = (f"<a href=\"{esc_html(log.url)}\">{engine}</a>", f"{page.a(log.model)}<br><small>{esc_html(setting)}</small>")
        if not checks:
            body.append(f"<tr><td>{first[0]}</td><td>{first[1]}</td><td colspan=\"4\">no figure the calculator reproduces</td></tr>")
        for i, c in enumerate(checks):
            mark = "✓" if c.ok and not log.differs else "≠"
            cells = first if i == 0 else ("", "")
            body.append(f"<tr><td>{cells[0]}</td><td>{cells[1]}</td><td>{esc_html(c.what)}</td>"
                        f"<td style=\"text-align:right\">{esc_html(c.theirs)}</td><td style=\"text-align:right\">{esc_html(c.ours)}</td>"
                        f"<td style=\"text-align:right\">{c.ratio:.3f} {mark}</td></tr>")
        if log.differs:
            body.append(f"<tr><td></td><td colspan=\"5\"><small>Not reproduced: {esc_html(log.differs)}</small></td></tr>")
    table = html_block(head + "".join(body) + "</tbody></table>")
    engines = sorted({log.engine for log in atlas.engine_logs})
    lines = ["# Checked against engines", "",
             f"The calculator's memory figures beside what engines printed when they loaded a model: {len(found)} public logs "
             f"from {', '.join(engines)}, each with its link. {done} are reproduced: the KV cache within "
             f"{KV_TOLERANCE:.0%} and the weights within {WEIGHTS_TOLERANCE:.0%}, from the model's entry alone. "
             "The test suite recomputes every row on each run.", "",
             "## How each engine allocates { #rules }", "",
             "- **llama.cpp** caches every cell of its context (padded to 256) for the layers that see everything, and "
             "a second, smaller cache for sliding-window layers: more cells than the window, min(context, window × "
             "sequences + micro-batch), padded to 256, so a batch can be written before old cells are dropped. Its "
             "quantized cache types store 32 values with a 16-bit scale (q8_0 is 34 bytes a block, 8.5 bits a value; "
             "q4_0 18 bytes). For latent attention (DeepSeek) it keeps the latent with its RoPE key as K and the "
             "latent again as V, 1,088 values a layer where the minimum is 576.",
             "- **vLLM** measures the memory left after loading and a test run, and divides it into blocks of 16 "
             "tokens. Under tensor parallelism each GPU holds max(1, KV heads ÷ GPUs) heads of every layer: when the "
             "GPUs outnumber the KV heads, heads are repeated, so a 4-KV-head model on 8 GPUs stores twice its "
             "cache. A latent-attention cache is held whole on every GPU. The weights it prints are one GPU's share.",
             "- **SGLang** allocates K and V slots for #tokens per GPU with the same head split; its \"GB\" are GiB.",
             "", "Every figure here is binary (MiB, GiB) as the engines print them. A ≠ marks a row whose engine "
             "allocates by a rule not modelled yet; the row says what differs.", "",
             "## The logs { #logs }", "", table, ""]
    return {SRC: front_matter(title="Checked against engines", atlas_nolink=True, hide=["navigation"],
                              description="The calculator's memory figures beside public llama.cpp, vLLM and SGLang logs.")
            + "\n".join(lines) + "\n"}
