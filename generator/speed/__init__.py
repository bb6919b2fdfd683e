"""Machinery for speed, apart from the content: forked worker pools (workers), MkDocs page
rendering on every core (parallel) and stage timing (timing). Imports no other stage."""
