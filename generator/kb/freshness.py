"""How fresh the knowledge base is: what is due for a re-check, and statements that
contradict the entry's own status.

Facts age at different speeds, so each kind has its own review period (REVIEW_MONTHS):
an engine changes with every release, a device's datasheet hardly ever; a cloud price has a
shorter one still (FACT_MONTHS). An entry is due
when its `checked` date is older than its period, or when it has none; a support cell is
due when it was checked before the release its engine's facts now describe (`as_of`).
`atlas check` reports these as warnings (a reminder, not a broken build) and `atlas stale`
lists them, most overdue first. A `short` that does not say its engine is archived,
deprecated or in maintenance is an error: a reader of a tooltip would be told the opposite
of the entry.
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from generator.kb.findings import Finding

REVIEW_MONTHS = {"engine": 3, "hardware": 12, "model": 12, "term": 24, "guide": 12}
"""Months after which an entry's facts are due for a re-check, by kind."""

FACT_MONTHS = {"cloud_hourly_usd": 3}
"""Facts that age faster than the entry around them, by spec field: a cloud's hourly price
changes within a quarter while the device's datasheet does not. Such a fact is due when its
own `checked` date (the day the price was read) is older than this, or when it has none."""

STATUS_WORDS = {"archived": ("archived", "archive"), "deprecated": ("deprecated", "no longer"),
                "maintenance": ("maintenance", "no longer developed", "frozen")}
"""What a short must say for an engine whose status is not active."""


@dataclass(frozen=True)
class Due:
    path: str
    line: int
    field: str
    entry: str
    kind: str
    checked: str | None  # YYYY-MM-DD, or None where the entry has no date
    due_since: str  # the day it fell due (its checked date plus the review period)
    overdue_days: int  # days past that; entries without a date count from the day they were first possible
    why: str

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _months_before(day: dt.date, months: int) -> dt.date:
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _months_after(day: dt.date, months: int) -> dt.date:
    return _months_before(day, -months)


def _line(root: Any, path: str, prefix: str) -> int:
    try:
        text = (Path(root) / path).read_text(encoding="utf-8")
    except OSError:
        return 1
    return next((i for i, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith(prefix)), 1)


def _date(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        return None


def due(atlas: Any, root: Any, today: dt.date | None = None) -> list[Due]:
    """Everything due for a re-check on `today`, most overdue first."""
    today = today or dt.date.today()
    out: list[Due] = []
    for e in atlas.entries.values():
        months = REVIEW_MONTHS.get(e.kind)
        if months is None:
            continue
        checked = _date(e.get("checked")) if e.get("checked") else None
        if checked is None:
            out.append(Due(e.path, 1, "checked", e.id, e.kind, None, today.isoformat(), 10**6,
                           "no 'checked' date; add checked: YYYY-MM-DD once its facts are checked against their sources"))
        elif checked < _months_before(today, months):
            since = _months_after(checked, months)
            out.append(Due(e.path, _line(root, e.path, "checked:"), "checked", e.id, e.kind, checked.isoformat(),
                           since.isoformat(), (today - since).days,
                           f"last checked on {checked.isoformat()}, more than {months} months ago (the review period "
                           f"of {e.kind} entries); check its facts against the sources and update 'checked'"))
        for field, fact_months in FACT_MONTHS.items():
            fact = (e.get("specs") or {}).get(field)
            if not isinstance(fact, Mapping):
                continue
            read = _date(fact.get("checked")) if fact.get("checked") else None
            if read is None or read < _months_before(today, fact_months):
                since = _months_after(read, fact_months) if read else today
                out.append(Due(e.path, _line(root, e.path, f"{field}:"), f"specs.{field}", e.id, e.kind,
                               read.isoformat() if read else None, since.isoformat(), (today - since).days,
                               (f"{field} was read on {read.isoformat()}, more than {fact_months} months ago"
                                if read else f"{field} has no 'checked' date")
                               + "; prices change often: read the cloud's price list again and update the value and 'checked'"))
        if e.kind == "engine" and (e.get("as_of") or {}).get("date"):
            release = _date(e.get("as_of")["date"])
            for group in ("features", "backends", "formats", "api"):
                for key, cell in (e.get(group) or {}).items():
                    when = _date(cell.get("checked")) if cell.get("checked") else None
                    if when and release and when < release:
                        out.append(Due(e.path, _line(root, e.path, f"{key}:"), f"{group}.{key}", e.id, e.kind,
                                       when.isoformat(), release.isoformat(), (today - release).days,
                                       f"cell '{key}' was checked on {when.isoformat()}, before the release its facts "
                                       f"describe ({e.get('as_of')['version']}, {release.isoformat()}); check it again"))
    return sorted(out, key=lambda d: (-d.overdue_days, d.path, d.line))


def stale_findings(atlas: Any, root: Any, today: dt.date | None = None) -> list[Finding]:
    """What `due` lists, as warnings for `atlas check`."""
    return sorted(Finding(d.path, d.line, 10 if d.line > 1 else 1, f"'{d.entry}' {d.why}" if d.field == "checked" else
                          f"'{d.entry}': {d.why}", severity="warning") for d in due(atlas, root, today))


def contradictions(atlas: Any, root: Any) -> list[Finding]:
    """Errors: an engine that is not active whose short does not say so."""
    out = []
    for e in atlas.of_kind("engine"):
        status = (e.get("status") or {}).get("value")
        words = STATUS_WORDS.get(status)
        if words and not any(w in e.short.lower() for w in words):
            out.append(Finding(e.path, _line(root, e.path, "short:"), 1,
                               f"'{e.id}' is {status} (its status) but its short does not say so; say it in the short, "
                               f"for example '...; {words[0]} since YYYY'"))
    return out
