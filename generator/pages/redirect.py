"""Redirect pages: an entry's old URLs (former_ids) lead to where it lives now."""

from __future__ import annotations

from generator.kb.kinds import KIND_URLS
from generator.kb.model import Atlas
from generator.pages.site import Site
from generator.render.templates import env


def _redirects(atlas: Atlas) -> dict[str, str]:
    out = {}
    for e in atlas.entries.values():
        for old in e.former_ids:
            folder, _, old_id = old.rpartition("/")  # "engines/autoround": an entry that changed kind
            target = f"../../{KIND_URLS[e.kind]}/{e.id}/"
            out[f"{folder or KIND_URLS[e.kind]}/{old_id}/index.html"] = env().get_template("redirect.html.j2").render(target=target, title=e.title)
    return out


def pages(site: Site) -> dict[str, str]:
    return _redirects(site.atlas)
