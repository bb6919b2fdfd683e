"""The knowledge base as checked data: YAML read with every node's place (load), checked
against the schemas and each other (validate, values), turned into immutable dataclasses
(model), and the text rules every stage shares (text, findings, undefined, kinds).
May import: generator.speed only."""
