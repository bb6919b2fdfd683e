"""What a million tokens costs and how many tokens a joule buys, at the ceilings of an Estimate."""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.knowledge.calc.fit import Estimate
from generator.knowledge.calc.limits import CalcError
from generator.knowledge.calc.specs import DeviceSpec


@dataclass(frozen=True)
class Cost:
    """What a million tokens costs and how many tokens a joule buys at the ceilings of an
    Estimate: floors on cost, as the speeds are ceilings. A model on N devices (the reader's,
    or as many as a split needs) pays for N and draws N boards' power."""

    devices: int
    hourly_usd: float | None = None  # all the devices together, rent + electricity
    price: str | None = None  # where the rent came from: "yours", or the entry's cloud note
    watts: float | None = None  # the boards' TDP together
    output_usd_per_m: float | None = None  # one sequence at its decode ceiling
    batch_output_usd_per_m: float | None = None  # all sequences together
    input_usd_per_m: float | None = None  # prompt tokens at the prefill ceiling
    tokens_per_joule: float | None = None
    batch_tokens_per_joule: float | None = None
    input_tokens_per_joule: float | None = None

    def as_dict(self) -> dict:
        return {k: round(v, 6) if isinstance(v, float) else v for k, v in self.__dict__.items()}


JOULES_PER_KWH = 3.6e6
PRICE_LIMITS = {"hourly_usd": 10_000.0, "kwh_usd": 100.0}


def cost(e: Estimate, d: DeviceSpec, hourly_usd: float | None = None, kwh_usd: float | None = None,
         single: Estimate | None = None) -> Cost:
    """Dollars per million tokens = dollars per hour / (tokens per second x 3,600) x 10^6,
    with the hour priced at the reader's rent (else the entry's cloud price) plus, given an
    electricity price, the board's TDP for that hour; tokens per joule = tokens per second / watts.
    One stream is the device serving one sequence alone (`single`: the estimate at one
    sequence, needed when `e` is for several); the batch is all of `e`'s sequences together."""
    if single is None:
        if e.sequences != 1:
            raise ValueError("cost of one stream needs the one-sequence estimate (single=...)")
        single = e
    for name, value in (("hourly_usd", hourly_usd), ("kwh_usd", kwh_usd)):
        if value is not None and not (math.isfinite(value) and 0 <= value <= PRICE_LIMITS[name]):
            raise CalcError(f"{name} = {value:g} must be between 0 and {PRICE_LIMITS[name]:,g} US dollars")
    split = e.fits is False
    if split and not e.can_split:  # no usual setup holds it: nothing to price
        return Cost(devices=e.devices_needed or 1)
    n = (e.devices_needed or 1) if split else e.devices
    one = single.split_decode_tps if single.fits is False else single.decode_tps
    total = e.split_decode_total_tps if split else e.decode_total_tps
    prefill = e.prefill_tps * n / e.devices if e.prefill_tps else None  # the estimate's prefill is over the reader's devices
    rent = hourly_usd if hourly_usd is not None else d.hourly_usd
    price = "yours" if hourly_usd is not None else (d.hourly_note or "the entry's cloud price") if d.hourly_usd else None
    power = d.tdp_w * kwh_usd * 3600 / JOULES_PER_KWH if kwh_usd is not None and d.tdp_w else None
    hourly = (rent or 0) + (power or 0) if rent is not None or power is not None else None
    hourly = hourly * n if hourly is not None else None
    watts = d.tdp_w * n if d.tdp_w else None

    def per_m(tps):
        return hourly / (tps * 3600) * 1e6 if hourly is not None and tps else None

    def per_j(tps):
        return tps / watts if watts and tps else None

    return Cost(devices=n, hourly_usd=hourly, price=price, watts=watts, output_usd_per_m=per_m(one),
                batch_output_usd_per_m=per_m(total), input_usd_per_m=per_m(prefill), tokens_per_joule=per_j(one),
                batch_tokens_per_joule=per_j(total), input_tokens_per_joule=per_j(prefill))



@dataclass(frozen=True)
class Ranked:
    """One device in a cost ranking: what a million output tokens costs on it, the speed that
    rests on (measured, calibrated or a ceiling), and the hourly price at which it would take
    the place of the device ranked above it (None for the first)."""

    key: str
    hourly_usd: float
    tokens_per_s: float
    basis: str
    usd_per_m: float
    flip_usd_per_hour: float | None

    def as_dict(self) -> dict:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in self.__dict__.items()}


def rank(items: list[tuple[str, float, float, str]]) -> list[Ranked]:
    """Devices by dollars per million output tokens, cheapest first, from (key, hourly USD,
    tokens/s, basis). Each after the first says at what hourly price it would tie the one
    above: that one's cost per token times its own speed (P_above x T_self / T_above)."""
    priced = sorted(((k, p, t, b, p / (t * 3600) * 1e6) for k, p, t, b in items if p and t and p > 0 and t > 0),
                    key=lambda x: (x[4], x[0]))
    out: list[Ranked] = []
    for i, (k, p, t, b, m) in enumerate(priced):
        flip = priced[i - 1][1] * t / priced[i - 1][2] if i else None
        out.append(Ranked(key=k, hourly_usd=p, tokens_per_s=t, basis=b, usd_per_m=m, flip_usd_per_hour=flip))
    return out
