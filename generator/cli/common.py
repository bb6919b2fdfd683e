"""What the `atlas` commands share: exit codes, number options, JSON and terminal output."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from generator.kb.model import Atlas
from generator.pipeline import find_root, load_atlas

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


def _finite(text: str) -> float:
    """A number option: NaN and infinity are refused (usage error, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
    return value


def _print_json(value) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True))


def _load(args) -> Atlas:
    return load_atlas(Path(args.root) if args.root else find_root())


def _plain(text: str) -> str:
    """Text for a terminal: no control characters (escape sequences), whatever the data."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)
