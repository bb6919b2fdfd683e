"""A decision guide's page: its flowchart, its walk-through and its questions."""

from __future__ import annotations

from generator.kb.model import Atlas, Entry
from generator.render.page import Page, _data_attr
from generator.render.templates import env


def _guide_page(atlas: Atlas, page: Page, e: Entry, body: str) -> str:
    from generator.knowledge.guides import calculator_query, engine_status, guide_data

    site_href = lambda i: "../../" + atlas.entries[i].url.strip("/") + "/"  # noqa: E731
    data = guide_data(atlas, e, site_href, "../../calculator/")
    return env().get_template("guide.md.j2").render(
        e=e, page=page, body=body, questions=e.get("questions"), data_attr=_data_attr(data), calc_query=calculator_query,
        status_of=lambda i: engine_status(atlas.entries[i]))
