"""Findings: every problem the pipeline reports, with the place it points at.

All stages report through `Finding` so the CLI, the MkDocs build and the tests print the
same `path:line:col: message` text.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    col: int
    message: str
    severity: str = "error"  # "error" fails the build; "warning" is reported only

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"

    def as_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "col": self.col,
                "message": self.message, "severity": self.severity}


class AtlasError(Exception):
    """Raised once, after a stage has collected every error it can find."""

    def __init__(self, findings: Iterable[Finding]):
        self.findings = sorted(findings)
        super().__init__(self.report())

    def report(self) -> str:
        n = len(self.findings)
        head = f"{n} error{'s' if n != 1 else ''} in the knowledge base:"
        return "\n".join([head, *(str(f) for f in self.findings)])


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' — did you mean 'x'?' for the closest choice, or '' when nothing is close."""
    match = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=0.6)
    return f" — did you mean '{match[0]}'?" if match else ""
