"""One figure, one meaning, everywhere (issue 35): each device's memory, bandwidth, dense
tensor rates and power read the same on its own page, in the hardware index, in the roofline
and decode tables, and in the calculator's data, and that is the value in its YAML entry."""

import html
import json
import re

import pytest
from bs4 import BeautifulSoup

from conftest import REPO
from generator.pipeline import load_atlas

ATLAS = load_atlas(REPO)
DEVICES = [e for e in ATLAS.of_kind("hardware") if e.get("specs")]
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def _num(cell) -> float | None:
    for sup in cell.select("sup"):
        sup.decompose()
    m = NUMBER.search(cell.get_text(" ", strip=True))
    return float(m.group().replace(",", "")) if m else None


def _rows(soup, heading_word: str) -> dict[str, dict[str, float | None]]:
    """A table's rows by the entry id of their first link, as {column heading: number}."""
    for table in soup.select("article table"):
        heads = [th.get_text(" ", strip=True) for th in table.select("thead th")]
        if heading_word not in " | ".join(heads):
            continue
        out = {}
        for tr in table.select("tbody tr"):
            a = tr.find("a", href=True)
            if a is None:
                continue
            eid = a["href"].rstrip("/").rsplit("/", 1)[-1]
            out[eid] = {h: _num(td) for h, td in zip(heads[1:], tr.find_all("td")[1:])}
        return out
    raise AssertionError(f"no table with a '{heading_word}' column")


@pytest.fixture(scope="module")
def pages(site):
    index = BeautifulSoup((site / "hardware/index.html").read_text(), "html.parser")
    calc = BeautifulSoup((site / "calculator/index.html").read_text(), "html.parser")
    data = json.loads(html.unescape(calc.select_one("#atlas-calc")["data-calc"]))
    return {"index": _rows(index, "Budget tier"), "roofline": _rows(index, "Ridge point"),
            "decode": _rows(index, "Decode ceiling"), "calc": {d["id"]: d for d in data["devices"]}}


def _value(e, key):
    fact = (e.get("specs") or {}).get(key)
    return float(fact["value"]) if fact else None


@pytest.mark.parametrize("e", DEVICES, ids=lambda e: e.id)
def test_every_table_shows_the_entrys_own_figure(site, pages, e):
    mem, bw, tdp = _value(e, "memory_gb"), _value(e, "bandwidth_gbs"), _value(e, "tdp_w")
    dense16 = _value(e, "fp16_tflops") or _value(e, "bf16_tflops")
    fp8, fp4 = _value(e, "fp8_tflops"), _value(e, "fp4_tflops")
    # its own page: the specifications table
    own = BeautifulSoup((site / e.url.strip("/") / "index.html").read_text(), "html.parser")
    specs = {tr.td.get_text(strip=True): _num(tr.find_all("td")[1]) for tr in own.select("#specs ~ table tbody tr")[:40]
             if tr.td and len(tr.find_all("td")) > 1}
    for label, want in (("Memory", mem), ("Memory bandwidth", bw), ("Power (TDP)", tdp)):
        if want is not None:
            got = specs.get(label)
            assert got is not None and abs(got - want) < 0.05 * max(1, want) / 100, (e.id, label, got, want)
    # the hardware index: every column is the entry's value, blank where the entry has none
    row = pages["index"][e.id]
    for col, want in (("Memory (GB)", mem), ("Bandwidth (GB/s)", bw), ("FP16/BF16 dense (TFLOPS)", dense16),
                      ("FP8 dense (TFLOPS)", fp8), ("FP4 dense (TFLOPS)", fp4), ("Power (W)", tdp)):
        assert row[col] == want, (e.id, col, row[col], want)
    # the roofline and decode tables list single devices only (racks and families are totals or ranges)
    if e.id in pages["roofline"]:
        r = pages["roofline"][e.id]
        assert (r["Memory bandwidth (GB/s)"], r["Dense FP16/BF16 (TFLOPS)"]) == (bw, dense16), e.id
    if e.id in pages["decode"]:
        r = pages["decode"][e.id]
        assert r["Memory bandwidth (GB/s)"] == bw and r["Memory (GB)"] == mem, e.id
    if e.id in pages["calc"]:
        d = pages["calc"][e.id]
        assert (d["memory_gb"], d["bandwidth_gbs"], d["tdp_w"]) == (mem, bw, tdp), e.id
        assert (d["tflops"].get("fp16") or d["tflops"].get("bf16")) == dense16, e.id


def test_a_rack_row_does_not_pair_rack_memory_with_one_gpus_power(pages):
    """The GB200 NVL72's row gives the rack's 13,400 GB; NVIDIA states no rack power, so its
    power cell is blank rather than one GPU's 1,200 W."""
    row = pages["index"]["nvidia-gb200"]
    assert row["Memory (GB)"] == 13400 and row["Power (W)"] is None


def test_tpus_have_their_16_bit_rate_in_the_index(pages):
    """TPUs publish BF16, not FP16: the index shows it in the 16-bit column, as the roofline does."""
    assert pages["index"]["google-tpu-v5e"]["FP16/BF16 dense (TFLOPS)"] == pages["roofline"]["google-tpu-v5e"]["Dense FP16/BF16 (TFLOPS)"] == 197
