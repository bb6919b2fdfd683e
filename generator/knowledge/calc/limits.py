"""What the calculator accepts: the ranges of its inputs and the error it raises for the rest."""

from __future__ import annotations

LIMITS = {"tokens": (1, 10_000_000), "sequences": (1, 100_000), "bits": (1.0, 32.0), "kv_bits": (2.0, 32.0),
          "overhead": (0.0, 2.0), "devices": (1, 64)}


class CalcError(ValueError):
    """Input the calculator cannot use, with what would be right."""


def check(name: str, value: float) -> float:
    lo, hi = LIMITS[name]
    if value is None or value != value:  # NaN
        raise CalcError(f"{name} is missing; give a number between {lo:g} and {hi:g}")
    if value <= 0:
        raise CalcError(f"{name} must be greater than zero, got {value:g}")
    if not lo <= value <= hi:
        raise CalcError(f"{name} = {value:g} is outside the range this calculator accepts ({lo:g} to {hi:g})")
    return value
