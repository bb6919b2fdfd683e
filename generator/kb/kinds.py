"""The five kinds of entry, the folder each lives in under glossary/ and the URL prefix of its pages."""

KINDS = ("term", "engine", "hardware", "model", "guide")
# Folder under glossary/ for each entry kind, and the URL prefix its pages live under.
KIND_DIRS = {"term": "terms", "engine": "engines", "hardware": "hardware", "model": "models", "guide": "guides"}
KIND_URLS = {"term": "glossary", "engine": "engines", "hardware": "hardware", "model": "models", "guide": "guides"}
