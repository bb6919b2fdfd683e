"""Memory and speed arithmetic for a model on a device, from the entries' sourced figures.

    memory  = weights + KV cache + overhead
    weights = every part of the model x its bits per weight / 8   (bits include scales and zero points)
    KV      = bytes per token x tokens x sequences       (per token depends on the attention variant)
    decode ceiling per sequence = bandwidth / (bytes of the weights a token reads + that sequence's KV cache)
    prefill ceiling             = dense tensor FLOPS / (2 x active parameters) tokens per second

These are physical upper bounds, not predictions: real engines reach a fraction of them,
and speculative decoding can exceed the decode bound because it verifies several tokens
per weight read. Units: decimal GB (1e9 bytes) for what a model needs, GB/s and TFLOPS as vendors
quote them; a device's memory size is the vendor's binary GB (GiB), compared in bytes (specs.GIB).

The rooms, one job each: `limits` (what input is accepted), `parts` (a model by its parts, a
format by the bits of each), `specs` (models and devices from their entries), `formats`
(weight formats by name), `fit` (memory, decode and prefill ceilings, splits and offload),
`cost` (dollars and joules), `measured` (this project's measurements beside the ceilings),
`calibrate` (speed a reader can expect, calibrated on published measurements).
This module is the public face the pages and the CLI call. Part of the knowledge stage:
may import kb (the entries) and the standard library; nothing that renders.
"""

from generator.knowledge.calc.cost import JOULES_PER_KWH, PRICE_LIMITS, Cost, cost
from generator.knowledge.calc.fit import (
    HOST_BANDWIDTH_GBS,
    OVERHEAD_FRACTION,
    Estimate,
    decode_ceiling,
    decode_rates,
    estimate,
    prefill_rate,
)
from generator.knowledge.calc.calibrate import Expected, Speeds, device_family, expected, families, points, speeds
from generator.knowledge.calc.formats import bits_for, format_platforms, formats, precision_for, precisions, runs
from generator.knowledge.calc.limits import LIMITS, CalcError, check
from generator.knowledge.calc.measured import (
    MEASURED_BITS,
    Measured,
    MeasuredPrefill,
    measured_for,
    measured_points,
    measured_prefills,
    nearest_context,
    prefill_for,
)
from generator.knowledge.calc.parts import PART_LABELS, PARTS, Dims, Part, Precision, split, uniform
from generator.knowledge.calc.specs import (
    GIB,
    NOT_ONE_DEVICE,
    SPLIT_LIMIT,
    UNIFIED_SHARE,
    VENDOR_PLATFORM,
    DeviceSpec,
    ModelSpec,
    configurations,
    custom_device,
    device_spec,
    dims_of,
    model_spec,
    pick,
    pick_device,
    sized_devices,
)

__all__ = [
    "JOULES_PER_KWH", "PRICE_LIMITS", "Cost", "cost", "HOST_BANDWIDTH_GBS", "OVERHEAD_FRACTION", "Estimate",
    "decode_ceiling", "decode_rates", "estimate", "prefill_rate", "bits_for", "format_platforms", "formats",
    "precision_for", "precisions", "runs", "LIMITS", "CalcError", "check", "MEASURED_BITS", "Measured",
    "MeasuredPrefill", "measured_for", "measured_points", "measured_prefills", "nearest_context", "prefill_for",
    "PART_LABELS", "PARTS", "Dims", "Part", "Precision", "split", "uniform", "GIB", "NOT_ONE_DEVICE", "SPLIT_LIMIT",
    "UNIFIED_SHARE", "VENDOR_PLATFORM", "DeviceSpec", "ModelSpec", "configurations", "custom_device", "device_spec", "dims_of",
    "model_spec", "pick", "pick_device", "sized_devices",
]
