"""schema.org JSON-LD for one entry page (a DefinedTerm in the DefinedTermSet that is the
glossary), and the site's absolute address that every linked-data identifier starts with.

Entry pages put it in their front matter; the theme prints it into <head> with Jinja's
`tojson` (overrides/main.html). The SKOS export (exports/linked_data.py) uses the same
identifiers. SITE_URL is mkdocs.yml's site_url (ATLAS_SITE_URL): tests/test_linked_data.py fails
when the two differ.
"""

from __future__ import annotations

import os
import re
from typing import Any

from generator.kb.model import Atlas, Entry, Source

SITE_URL = (os.environ.get("ATLAS_SITE_URL") or "http://127.0.0.1:8000/").rstrip("/") + "/"
"""mkdocs.yml's site_url: ATLAS_SITE_URL where the site is published, else the address
`make serve` serves it at (tests/test_linked_data.py checks the two agree)."""
SCHEME_PATH = "glossary/"  # the A-Z glossary page: the DefinedTermSet and the SKOS concept scheme
SCHEME_NAME = "Inference Atlas glossary"
SCHEME_DESCRIPTION = ("A cross-linked, sourced reference for LLM inference: engines, hardware, models and the "
                      "terms between them.")
_ISO_DATE = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?")


def absolute(url: str) -> str:
    """A site-relative URL (/glossary/kv-cache/) as an absolute one."""
    return SITE_URL + url.lstrip("/")


def _creative_work(s: Source) -> dict[str, Any]:
    work: dict[str, Any] = {"@type": "CreativeWork", "name": s.title, "publisher": {"@type": "Organization", "name": s.publisher}}
    if s.url:
        work["url"] = s.url
    if s.author:
        work["author"] = s.author
    if s.date and _ISO_DATE.fullmatch(str(s.date)):
        work["datePublished"] = str(s.date)
    return work


def defined_term(atlas: Atlas, e: Entry) -> dict[str, Any]:
    """schema.org JSON-LD for an entry page: the term, the glossary it is defined in, and
    the works it is drawn from (subjectOf: works that discuss it). A plain dict: the theme
    serialises and escapes it."""
    url = absolute(e.url)
    term: dict[str, Any] = {
        "@context": "https://schema.org", "@type": "DefinedTerm", "@id": url, "url": url,
        "name": e.title, "description": e.short, "termCode": e.id,
        "inDefinedTermSet": {"@type": "DefinedTermSet", "@id": SITE_URL + SCHEME_PATH, "url": SITE_URL + SCHEME_PATH,
                             "name": SCHEME_NAME},
    }
    if e.aliases:
        term["alternateName"] = list(e.aliases)
    works = [_creative_work(atlas.sources[s]) for s in e.sources if s in atlas.sources]
    if works:
        term["subjectOf"] = works
    return term
