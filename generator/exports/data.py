"""site/glossary.json: one object per entry, the contract scripts and other sites read."""

from __future__ import annotations

import json

from generator.kb.model import Atlas


def glossary_json(atlas: Atlas) -> str:
    """site/glossary.json: the contract scripts and other sites read."""
    items = [{"id": e.id, "kind": e.kind, "title": e.title, "aliases": list(e.aliases), "category": e.category,
              "short": e.short, "url": e.url} for e in atlas.entries.values()]
    return json.dumps(items, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
