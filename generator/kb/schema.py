"""The schema check of one document: jsonschema-rs decides fast whether it is valid, and
jsonschema explains what it rejects as located findings in an author's words
(`'short' is 231 characters; at most 200 allowed`). Formats (web addresses, dates) are
defined once in values.py."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Iterable, Iterator

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from generator.kb import values
from generator.kb.findings import Finding, did_you_mean
from generator.kb.load import Document

SCHEMA_FOR = {"term": "term", "engine": "engine", "hardware": "hardware", "model": "model", "guide": "guide",
              "sources": "source", "categories": "category", "relations": "relations", "comparisons": "comparison",
              "engine-logs": "engine-log", "benchmarks": "benchmark", "engine-flags": "engine-flags"}


SHORT_LIMIT = 200


@lru_cache(maxsize=None)
def _schemas() -> dict[str, Any]:
    """Every schema file, by name, read once for both validators."""
    folder = resources.files("generator") / "schemas"
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in folder.iterdir() if p.name.endswith(".json")}


@lru_cache(maxsize=None)
def _validators() -> dict[str, Draft202012Validator]:
    schemas = _schemas()
    registry = Registry().with_resources((name, Resource.from_contents(s)) for name, s in schemas.items())
    checker = FormatChecker(formats=())
    for fmt, ok in values.FORMATS.items():
        checker.checks(fmt)(ok)
    return {kind: Draft202012Validator(schemas[f"{name}.schema.json"], registry=registry, format_checker=checker)
            for kind, name in SCHEMA_FOR.items()}


def _where(path: Iterable[Any]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "entry"


def _type_name(value: Any) -> str:
    return {str: "text", int: "a number", float: "a number", bool: "true/false", list: "a list",
            dict: "a mapping", type(None): "empty"}.get(type(value), type(value).__name__)


_TYPE_WORDS = {"string": "text", "array": "a list", "object": "a mapping", "number": "a number",
               "integer": "a whole number", "boolean": "true or false"}


def _explain(doc: Document, err: ValidationError) -> Iterator[Finding]:
    """Turn one JSON Schema error into findings a person can act on."""
    path = tuple(err.absolute_path)
    line, col = doc.loc(*path)
    kind = err.validator
    name = _where(path)
    if kind == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        for key in sorted(set(err.instance) - set(allowed)):
            kl, kc = doc.loc(*path, key, key=True)
            hint = did_you_mean(key, allowed) or f"; allowed keys: {', '.join(allowed)}"
            yield Finding(doc.path, kl, kc, f"unknown key '{key}'{hint}")
    elif kind == "required":
        for key in err.validator_value:
            if key not in err.instance:
                yield Finding(doc.path, line, col, f"missing required field '{key}'" + (f" in {name}" if path else ""))
    elif kind == "type":
        want = err.validator_value
        want = " or ".join(_TYPE_WORDS.get(w, w) for w in (want if isinstance(want, list) else [want]))
        yield Finding(doc.path, line, col, f"'{name}' must be {want}, not {_type_name(err.instance)}")
    elif kind == "maxLength":
        n = len(err.instance)
        if path and path[-1] == "short":
            yield Finding(doc.path, line, col, f"short is {n} characters; at most {SHORT_LIMIT} allowed (one sentence that stands alone in a tooltip)")
        else:
            yield Finding(doc.path, line, col, f"'{name}' is {n} characters; at most {err.validator_value} allowed")
    elif kind == "minLength":
        if err.validator_value <= 1:
            yield Finding(doc.path, line, col, f"'{name}' must not be empty")
        else:
            yield Finding(doc.path, line, col, f"'{name}' is {len(err.instance)} characters; write at least {err.validator_value}")
    elif kind == "pattern":
        value = err.instance
        is_key = path and isinstance(doc.data, dict) and _is_key(doc, path, value)
        if is_key:
            line, col = doc.loc(*path, value, key=True)
        pattern = err.validator_value
        if "a-z0-9" in pattern and "_" not in pattern:
            what = f"'{value}' is not a valid id: use lowercase letters, digits and single hyphens, like 'kv-cache'"
        elif "a-z]+(_" in pattern:
            what = f"'{value}' is not a valid relation name: use lowercase words joined by '_', like 'runs_on'"
        elif "\\d{4}" in pattern:
            what = f"'{name}' is '{value}'; write dates as YYYY-MM-DD"
        elif "https" in pattern:
            what = f"'{name}' must be a full URL starting with {'https://' if 's?' not in pattern else 'http(s)://'}"
        else:
            what = f"'{name}' value '{value}' does not match the expected form {pattern}"
        yield Finding(doc.path, line, col, what)
    elif kind == "format":
        problem = values.PROBLEMS[err.validator_value](err.instance)
        yield Finding(doc.path, line, col, f"'{name}' {problem}" if problem and not problem.startswith("'")
                      else f"'{name}': {problem}")
    elif kind == "enum":
        options = [str(o) for o in err.validator_value]
        hint = did_you_mean(str(err.instance), options)
        yield Finding(doc.path, line, col, f"'{err.instance}' is not allowed for '{name}'{hint}; use one of: {', '.join(options)}")
    elif kind == "uniqueItems":
        yield Finding(doc.path, line, col, f"'{name}' lists the same item twice")
    elif kind == "minItems":
        n = err.validator_value
        yield Finding(doc.path, line, col, f"'{name}' needs at least {n} item{'s' if n != 1 else ''}")
    elif kind == "minProperties":
        yield Finding(doc.path, line, col, f"'{name}' must not be empty")
    elif kind in ("exclusiveMinimum", "minimum"):
        yield Finding(doc.path, line, col, f"'{name}' is {err.instance}; it must be greater than {err.validator_value}")
    elif kind == "oneOf" and "next" in json.dumps(err.validator_value):
        yield Finding(doc.path, line, col, f"option '{name}' needs exactly one of 'next' (another question) or 'recommend' (an answer)")
    else:
        yield Finding(doc.path, line, col, f"'{name}': {err.message}")


def _is_key(doc: Document, path: tuple, value: Any) -> bool:
    node: Any = doc.data
    for p in path:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            return False
    return isinstance(node, dict) and value in node


SCHEMA_BASE = "https://inference-atlas.invalid/schemas/"


"""Where the fast check's registry places the schema files: their $ids are bare file names,
which a registry needs resolved against some absolute URI (never fetched)."""


def compile_schema(name: str, schemas: dict[str, Any]) -> Callable[[Any], bool]:
    """The fast check of schemas[name]: jsonschema-rs's validator (in Rust), following $refs
    into the other files of `schemas` through its registry, as jsonschema's does. It only
    tells valid from invalid; jsonschema explains whatever it rejects."""
    import jsonschema_rs

    registry = jsonschema_rs.Registry([(SCHEMA_BASE + n, s) for n, s in schemas.items()])
    return jsonschema_rs.validator_for(schemas[name], registry=registry, base_uri=SCHEMA_BASE + name,
                                       formats=values.FORMATS, validate_formats=True).is_valid


@lru_cache(maxsize=None)
def _fast_checks() -> dict[str, Callable[[Any], bool]]:
    """Per kind, the fast check of its schema. Measured on 10,000 synthetic documents
    (bench/build.py make_corpus, median of 5 on a busy 2-core machine): 0.06 s against
    0.47 s for the fastjsonschema code it replaced, built in 11 ms against 116 ms, so every
    knowledge base, however small, goes through it. A test compares its verdicts with
    jsonschema's on many broken entries."""
    schemas = _schemas()
    return {kind: compile_schema(f"{name}.schema.json", schemas) for kind, name in SCHEMA_FOR.items()}


def check_schema(doc: Document) -> list[Finding]:
    try:
        if _fast_checks()[doc.kind](doc.data):
            return []
    except Exception:  # noqa: BLE001 - a value the fast check cannot read: jsonschema decides
        pass
    validator = _validators()[doc.kind]
    out: list[Finding] = []
    for err in validator.iter_errors(doc.data):
        out.extend(_explain(doc, err))
    return out
