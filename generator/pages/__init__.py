"""One module per kind of generated page: entry, guide, index (A-Z and per kind), category,
source, redirect, comparison, fit and measured tables (on entry pages), speed measured by others
(a page, and a section of entry pages), calculator, graph,
and handwritten pages. Each turns the model into Markdown. May import: figures, render,
knowledge, kb, speed."""

from generator.pages import calculator, category, changes, comparison, conformance, graph, index, redirect, source, speed

KINDS = (index, category, source, redirect, graph, calculator, comparison, changes, conformance, speed)
"""Every page kind but the entry pages (one job each, pages.entry.page): each module's
`pages(site)` returns its pages as {docs path: Markdown}. Adding a kind is a module and a
line here."""
