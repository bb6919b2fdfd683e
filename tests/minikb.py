"""A small, valid knowledge base written from scratch, for tests that must not depend on
how far the real content has got (and for injecting hostile text into every field)."""

from __future__ import annotations

from pathlib import Path

import yaml

from bench.build import project_skeleton


def write(root: Path, payload: str = "") -> Path:
    """A complete project (config, docs, ontology, entries) under `root`. `payload` is
    appended to every text field, to test that hostile text stays inert."""
    p = payload
    # The real handwritten pages link and cite real entries; this knowledge base has its own
    # few, so each page keeps its place in the nav with a stub for text.
    g = project_skeleton(root, lambda page, text: f"# {page.stem}\n\nA small knowledge base for tests.\n")
    dump = lambda path, data: path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))  # noqa: E731
    dump(g / "sources.yaml", {
        "src-a": {"title": f"Source A{p}", "publisher": f"Publisher{p}", "kind": "docs", "url": "https://example.org/a",
                  "summary": f"What A covers.{p}", "reliability": f"Caveat.{p}"},
        "src-b": {"title": "Source B", "publisher": "Publisher", "kind": "paper"},
    })
    dump(g / "terms" / "decode.yaml", {
        "title": f"Decode{p}", "aliases": ["decoding", f"decode phase{p}"], "category": "runtime",
        "short": f"The phase that generates one token per step from the KV cache.{p}"[:200],
        "body": f"Decode reads every weight per token [@src-a]. It fills the [[kv-cache]].{p}\n\n## More{p}\n\nText.{p}",
        "relations": {"bottlenecked_by": ["kv-cache"]},
        "disputes": [{"claim": f"How fast{p}", "positions": [{"says": f"Fast{p}", "sources": ["src-a"]},
                                                             {"says": f"Slow{p}", "sources": ["src-b"]}],
                      "verdict": f"Depends.{p}"}],
        "sources": ["src-a", "src-b"],
    })
    dump(g / "terms" / "kv-cache.yaml", {
        "title": "KV cache", "aliases": ["KV-cache"], "category": "memory",
        "short": "Stored keys and values of processed tokens, reused by every decode step.",
        "body": "The cache grows with context and is usually stored in FP16; decode reads it every step [@src-b].",
        "sources": ["src-b"],
    })
    dump(g / "terms" / "fp16.yaml", {
        "title": "FP16", "aliases": ["half precision"], "category": "weights",
        "short": "The 16-bit floating-point format, two bytes per weight.", "body": "Two bytes [@src-a].",
        "bits_per_weight": {"value": 16, "source": "src-a"}, "sources": ["src-a"],
        "variants": [{"name": "Q4_K_M", "bits_per_weight": 4.85, "source": "src-b"}],
    })
    dump(g / "engines" / "engine-x.yaml", {
        "title": f"Engine X{p}", "family": "kv-cache", "short": f"A serving engine used in tests of the generator.{p}",
        "body": f"Engine X uses the KV cache.{p}", "purpose": f"Testing.{p}", "choose_when": [f"Always{p}"],
        "avoid_when": [f"Never{p}"], "license": {"value": f"MIT{p}", "source": "src-a"},
        "as_of": {"version": f"1.0{p}"[:60], "date": "2026-11-01", "source": "src-a"},
        "features": {"kv-cache": {"status": "yes", "source": "src-a", "note": f"note{p}"}}, "sources": ["src-a"],
    })
    dump(g / "hardware" / "gpu-y.yaml", {
        "title": f"GPU Y{p}", "vendor": f"Vendor{p}", "class": "gpu", "segment": "data-centre", "short": f"A test accelerator with sourced specifications.{p}",
        "body": f"Body.{p}", "specs": {"memory_gb": {"value": 24, "source": "src-a", "note": f"n{p}"},
                                     "bandwidth_gbs": {"value": 1008, "source": "src-b"},
                                     "tdp_w": {"value": 450, "source": "src-b"},
                                     "cloud_hourly_usd": {"value": 0.69, "source": "src-b", "checked": "2026-11-01",
                                                          "note": f"Cloud Q, one-card instance{p}"}},
        "sources": ["src-a", "src-b"],
    })
    dump(g / "models" / "model-z.yaml", {
        "title": f"Model Z{p}", "developer": f"Lab{p}", "short": f"A test model with the figures memory math needs.{p}",
        "body": f"Body.{p}", "sources": ["src-a"], "relations": {"has_feature": ["kv-cache"]},
        "specs": {"params_total_b": {"value": 8, "source": "src-a"}, "layers": {"value": 32, "source": "src-a"},
                  "kv_heads": {"value": 8, "source": "src-a"}, "head_dim": {"value": 128, "source": "src-a"},
                  "attention": {"value": "gqa", "source": "src-a"}},
    })
    dump(g / "guides" / "pick.yaml", {
        "title": f"Pick an engine{p}", "short": f"A two-question test guide that ends in an engine.{p}", "start": "who",
        "body": f"Guide body.{p}", "sources": ["src-a"],
        "questions": {
            "who": {"text": f"Who uses it?{p}", "help": f"Help{p}", "options": [
                {"id": "me", "label": f"Just me{p}", "next": "where"},
                {"id": "many", "label": f"Many users{p}", "recommend": [
                    {"entry": "engine-x", "why": f"Because.{p}", "sources": ["src-a"]}]}]},
            "where": {"text": f"Where?{p}", "options": [
                {"id": "laptop", "label": f"Laptop{p}", "note": f"Disagreement{p}", "recommend": [
                    {"entry": "engine-x", "why": f"Small.{p}", "sources": ["src-b"]},
                    {"entry": "gpu-y", "when": f"if buying{p}", "why": f"Fits.{p}", "sources": ["src-a"]}]},
                {"id": "server", "label": f"Server{p}", "recommend": [
                    {"entry": "engine-x", "why": f"Serves.{p}", "sources": ["src-a"]}]}]},
        },
    })
    return root
