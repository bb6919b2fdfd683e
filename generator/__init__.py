"""Inference Atlas generator: load -> validate -> model -> graph -> emit.

Each stage is a module of its own and reads only what the stage before it produced, so
everything up to the MkDocs adapter (plugin.py) runs and is tested without MkDocs.
"""

KINDS = ("term", "engine", "hardware", "model", "guide")
# Folder under glossary/ for each entry kind, and the URL prefix its pages live under.
KIND_DIRS = {"term": "terms", "engine": "engines", "hardware": "hardware", "model": "models", "guide": "guides"}
KIND_URLS = {"term": "glossary", "engine": "engines", "hardware": "hardware", "model": "models", "guide": "guides"}
