"""The vocabulary every page, drawing and export shares: a Page's links and citations, front
matter, the Sources list, labels for values and kinds, the Jinja environment, JSON-LD and
the allow-list sanitizer. May import: knowledge, kb, speed."""
