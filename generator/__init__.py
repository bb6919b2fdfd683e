"""Inference Atlas generator: load -> validate -> model -> graph -> emit.

Each stage is a module of its own and reads only what the stage before it produced, so
everything up to the MkDocs adapter (plugin.py) runs and is tested without MkDocs.
"""
