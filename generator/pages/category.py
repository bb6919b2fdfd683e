"""A page per category with its entries, and the categories index."""

from __future__ import annotations

from generator.kb.model import Atlas, Entry
from generator.pages.site import Site
from generator.render.page import Page, front_matter
from generator.render.templates import env


def _category_pages(atlas: Atlas) -> dict[str, str]:
    out = {}
    members: dict[str, list[Entry]] = {c: [] for c in atlas.categories}
    for e in sorted(atlas.entries.values(), key=lambda e: e.title.casefold()):
        members.setdefault(e.category, []).append(e)
    for cid, cat in atlas.categories.items():
        src = f"categories/{cid}.md"
        page = Page(atlas, src)
        text = env().get_template("category.md.j2").render(page=page, cat=cat, entries=members[cid])
        out[src] = front_matter(title=cat.title, atlas_nolink=True, description=cat.short) + text
    page = Page(atlas, "categories/index.md")
    out["categories/index.md"] = front_matter(title="Categories", atlas_nolink=True, description="Every category of the knowledge base.") + \
        env().get_template("categories.md.j2").render(page=page, cats=list(atlas.categories.values()), members=members)
    return out


def pages(site: Site) -> dict[str, str]:
    return _category_pages(site.atlas)
