"""What a valid value is, defined once: web addresses, dates, e-mail addresses, language tags.

The schemas name these as formats (`"format": "http-url"`, `"format": "date"`, ...) and
both schema validators (jsonschema-rs for speed, jsonschema to explain) call the functions
here, so `atlas check` refuses a bad value with its place and every later stage (the site,
SKOS and JSON-LD, llms.txt, the Markdown export) can take what was accepted without
guarding itself.

A web address is parsed with rfc3986 (python-hyper's RFC 3986/3987 parser): absolute,
http or https, a host, no credentials, nothing that RFC 3986 leaves out of a URI
(whitespace, quotes, angle brackets, braces, backslash, ...) and well-formed percent
escapes; an internationalised host or path (RFC 3987) is accepted and checked in its
encoded form.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Callable

import rfc3986
from rfc3986 import exceptions as _uri_errors
from rfc3986 import validators as _uri_validators

# Characters RFC 3986 never allows in a URI, even percent-encoded elsewhere: the ones rdflib
# and browsers trip on, named so the message says which one it was.
_NOT_IN_URIS = {" ": "a space", "\t": "a tab", "\n": "a line break", '"': "a double quote", "<": "'<'", ">": "'>'",
                "{": "'{'", "}": "'}'", "|": "'|'", "\\": "a backslash", "^": "'^'", "`": "a backtick"}
_BAD_PERCENT_RE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_LABEL_RE = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_URI_CHECK = (_uri_validators.Validator().require_presence_of("scheme", "host").allow_schemes("http", "https")
              .forbid_use_of_password()
              .check_validity_of("scheme", "host", "port", "path", "query", "fragment"))


def url_problem(value: str) -> str | None:
    """None for an absolute http(s) address; otherwise what is wrong, in words."""
    for ch, name in _NOT_IN_URIS.items():
        if ch in value:
            return f"contains {name} at character {value.index(ch) + 1}, which a URL cannot hold (write it %-encoded)"
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        return "contains a control character"
    m = _BAD_PERCENT_RE.search(value)
    if m:
        return f"has a '%' at character {m.start() + 1} that is not followed by two hex digits"
    try:
        ref = rfc3986.iri_reference(value).encode()
    except (ValueError, UnicodeError, _uri_errors.RFC3986Exception) as e:
        return f"cannot be read as a URL ({e})"
    if ref.scheme is None or ref.scheme.lower() not in ("http", "https"):
        return "must start with http:// or https://"
    if ref.userinfo:
        return "must not carry a user name or password"
    try:
        _URI_CHECK.validate(ref)
    except _uri_errors.MissingComponentError:
        return "has no host"
    except _uri_errors.InvalidComponentsError as e:
        return f"has an invalid {', '.join(e.components) if hasattr(e, 'components') else 'part'}"
    except _uri_errors.ValidationError as e:
        return f"is not a valid URL ({e})"
    host = (ref.host or "").lower()
    if not host.startswith("["):
        labels = host.rstrip(".").split(".")
        if not all(_HOST_LABEL_RE.match(label) for label in labels):
            return f"has an invalid host '{host}'"
    return None


def date_problem(value: str) -> str | None:
    """None for a real calendar date written YYYY-MM-DD."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return "must be a date written YYYY-MM-DD"
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        return f"'{value}' is not a calendar date"
    return None


_EMAIL_RE = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")


def email_problem(value: str) -> str | None:
    """None for an address of the form local@domain.tld (no display name, no spaces)."""
    if not _EMAIL_RE.match(value) or ".." in value or len(value) > 254:
        return "must be an e-mail address like name@example.org"
    return url_problem("https://" + value.split("@", 1)[1] + "/") and "has an invalid domain"


_LANG_RE = re.compile(r"^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|\d{3}))?$")


def language_problem(value: str) -> str | None:
    """None for a BCP 47 tag of the common shape: language, optional script and region (en, en-GB, zh-Hant-TW)."""
    if not _LANG_RE.match(value):
        return "must be a language tag like 'en' or 'en-GB'"
    return None


PROBLEMS: dict[str, Callable[[str], str | None]] = {
    "http-url": url_problem, "date": date_problem, "email": email_problem, "language": language_problem,
}
"""Format name in the schemas -> the function that says what is wrong with a value."""


def _ok(check: Callable[[str], str | None]) -> Callable[[object], bool]:
    return lambda value: not isinstance(value, str) or check(value) is None


FORMATS: dict[str, Callable[[object], bool]] = {name: _ok(fn) for name, fn in PROBLEMS.items()}
"""The same checks as yes/no, for the schema validators."""
