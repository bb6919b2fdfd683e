"""From a fit to a running server (issue 47): the command line, or the environment and config
file, that starts an engine for one answer of the calculator (this model, format, context,
sequences and devices), every flag with what it does, and a check that each flag and value is
one the engine's pinned release accepts (glossary/engine-flags, read from the released package).

One builder per engine; each takes the same `Answer` and returns a `Launch`. Part of the
knowledge stage: may import kb and calc."""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field

from generator.kb.model import Atlas, Entry, EngineFlags
from generator.knowledge.calc.fit import Estimate
from generator.knowledge.calc.limits import CalcError
from generator.knowledge.calc.specs import GIB, DeviceSpec

PORT = 8000


@dataclass(frozen=True)
class Answer:
    """What the command is for: a model in a format on `devices` of one device, with a
    context per sequence and sequences at once, the KV cache at `kv_bits`, and the fit."""

    atlas: Atlas
    model: Entry
    device: DeviceSpec
    fmt: str  # the precision's label: Q4_K_M, FP8, MXFP4, BF16 ...
    context: int
    sequences: int
    kv_bits: float
    devices: int
    fit: Estimate


@dataclass(frozen=True)
class Flag:
    name: str  # as the engine spells it: --max-model-len, OLLAMA_NUM_PARALLEL, model.max_seq_len
    value: str | None  # None for a switch
    what: str  # what it does, for this answer


@dataclass
class Launch:
    engine: str
    command: str  # the program, as the flags file gives it
    model_arg: str  # the model as the command takes it (a repository, a file, a tag)
    flags: list[Flag] = field(default_factory=list)
    kind: str = "flags"  # flags (a command line), env (environment variables), config (a config file)
    notes: list[str] = field(default_factory=list)
    release: str = ""
    after: str | None = None  # a second command (ollama run ...)

    def text(self) -> str:
        """The command a reader pastes: one line, or the environment and the server, or the config file and the start script."""
        if self.kind == "env":
            env = " ".join(f"{f.name}={shlex.quote(f.value or '1')}" for f in self.flags)
            return f"{env} {self.command}" + (f"\n{self.after}" if self.after else "")
        if self.kind == "config":
            lines, section = [], None
            for f in self.flags:
                top, key = f.name.split(".", 1)
                if top != section:
                    lines.append(f"{top}:")
                    section = top
                lines.append(f"  {key}: {f.value}")
            return "# config.yml\n" + "\n".join(lines) + f"\n\n{self.command}"
        parts = [self.command] + ([shlex.quote(self.model_arg)] if self.model_arg else [])
        for f in self.flags:
            parts.append(f.name if f.value is None else f"{f.name} {shlex.quote(f.value)}")
        return " \\\n  ".join([" ".join(parts[:2])] + parts[2:]) if len(parts) > 2 else " ".join(parts)

    def as_dict(self) -> dict:
        return {"engine": self.engine, "release": self.release, "command": self.text(), "kind": self.kind,
                "flags": [{"name": f.name, "value": f.value, "what": f.what} for f in self.flags], "notes": self.notes}


FORMAT_CELL = {"GGUF": "gguf", "Q": "gguf", "IQ": "gguf", "FP8": "fp8", "MXFP4": "mxfp4", "MXFP4_MOE": "gguf", "NVFP4": "nvfp4", "FP16": "fp16",
               "BF16": "fp16", "AWQ": "awq", "GPTQ": "gptq", "MLX": "mlx-format", "AFFINE": "mlx-format", "INT8": "int8",
               "INT4": "int4"}
"""A precision's label as the engines' format cells name it (the longest prefix that matches)."""


PLATFORM_CELL = {"cuda": "cuda", "rocm": "rocm", "apple": "metal", "intel": "xpu", "cpu": "cpu-inference", "tpu": "tpu"}
"""A device's platform (calc.specs.VENDOR_PLATFORM) as the engines' backend cells name it."""


def bpw_families(atlas: Atlas) -> dict[str, str]:
    """A decimal-bits label ("4.0 bpw", "3.75 bpw") -> the ExLlama format it is a variant of
    (exl2, exl3): the label alone does not say which."""
    from generator.knowledge.calc.formats import _format_names

    return {name: e.id for name, e, *_ in _format_names(atlas) if name.endswith("bpw") and e.id in ("exl2", "exl3")}


def format_cell(label: str, bpw: dict[str, str] | None = None) -> str | None:
    """The engines' format cell for a precision's label; `bpw` (bpw_families) tells EXL2's
    decimal levels from EXL3's."""
    up = label.upper()
    if up.endswith("BPW"):
        return (bpw or {}).get(label.casefold(), "exl2")
    for prefix in sorted(FORMAT_CELL, key=len, reverse=True):
        if up.startswith(prefix):
            return FORMAT_CELL[prefix]
    return None


_HF = re.compile(r"^https://huggingface\.co/(?!datasets/|spaces/|docs/|blog/|papers/)([\w.-]+/[\w.-]+)")


def repo_of(atlas: Atlas, model: Entry) -> str:
    """The model's Hugging Face repository: an alias written owner/name, else the repository of
    the first source the entry cites there (its model card or config), else a placeholder."""
    alias = next((a for a in model.aliases if "/" in a and " " not in a), None)
    if alias:
        return alias
    words = [w for w in re.split(r"[\s-]+", model.title.casefold()) if w]  # every word of the title in the name: not another size's card
    for sid in model.sources:
        m = _HF.match((atlas.sources[sid].url or "") if sid in atlas.sources else "")
        owner = m.group(1).split("/")[0].casefold().replace("-", "").replace(".", "") if m else ""
        makers = {t for t in re.split(r"[^a-z0-9]+", f"{model.get('developer') or ''} {model.title.split()[0]}".casefold().replace(".", ""))
                  if len(t) >= 3}
        if m and any(t in owner for t in makers) and all(w in m.group(1).casefold().replace("-", " ").replace("_", " ").replace(" ", "") or w in m.group(1).casefold()
                     for w in words):
            return m.group(1)
    return f"<{model.id} repository>"


def _gguf(a: Answer) -> str:
    return f"{a.model.id}-{a.fmt.replace('GGUF ', '').replace(' ', '_')}.gguf"


ON_LOAD_FP8 = ("vllm", "sglang")
"""The servers that quantize a 16-bit checkpoint to FP8 as they load it (--quantization fp8)."""

TOKENIZER_FLAG = {"vllm": "--tokenizer", "sglang": "--tokenizer-path"}
"""Where a server that reads a GGUF file is told to take the tokenizer from the original repository."""


def checkpoint(a: Answer, server: str, notes: list[str]) -> tuple[str, list[Flag]]:
    """What a server that loads from a repository is pointed at, so that it loads the weights the
    answer was sized for: the repository where the format is the released one (or 16-bit, or FP8
    quantized as it loads); one GGUF file with the tokenizer from the repository; else a
    placeholder for a checkpoint in that format, said in a note. Never the released weights under
    another format's name: an engine would then allocate what the calculator did not size."""
    repo = repo_of(a.atlas, a.model)
    cell, rel = format_cell(a.fmt), format_cell(_released(a) or "BF16")
    if cell == "gguf" and server in TOKENIZER_FLAG:
        notes.append(f"The server reads one GGUF file: merge a download split in parts first (llama-gguf-split --merge); "
                     f"the tokenizer comes from {repo}.")
        return _gguf(a), [Flag(TOKENIZER_FLAG[server], repo, "the tokenizer of the original repository")]
    if cell == rel:
        return repo, []
    if cell == "fp16":
        notes.append(f"{repo} holds {_released(a)} weights, and the server loads them as they are: less memory than the 16-bit sized here.")
        return repo, []
    if cell == "fp8" and server in ON_LOAD_FP8:
        return repo, [Flag("--quantization", "fp8", "quantize the 16-bit checkpoint to FP8 as it loads")]
    notes.append(f"{a.model.title} was not released in {a.fmt}: put a repository or folder of a {a.fmt} checkpoint of it "
                 f"in place of the placeholder (the developer's own where one is published, else a community one).")
    return f"<{a.fmt} checkpoint of {repo}>", []


def _share(a: Answer, floor: float, cap: float = 0.95) -> float:
    """The share of each device's memory to give the engine: enough for the fit (weights, cache
    and overhead over the devices), never below the engine's usual default nor above `cap`."""
    mem = (a.device.usable_gb or a.device.memory_gb or 0) * GIB * a.devices
    need = a.fit.total_gb * 1e9 / mem if mem else floor
    return min(cap, max(floor, math.ceil(need * 100) / 100))


def _vllm(a: Answer, notes: list[str]) -> tuple[str, list[Flag]]:
    fl = [Flag("--tensor-parallel-size", str(a.devices), f"split every layer over your {a.devices} devices") if a.devices > 1 else None,
          Flag("--max-model-len", str(a.context), "the longest sequence, prompt and answer, it will accept"),
          Flag("--max-num-seqs", str(a.sequences), "sequences decoded together in one batch"),
          Flag("--gpu-memory-utilization", f"{_share(a, 0.9):.2f}", "the share of each GPU's memory for weights, activations and KV cache")]
    if a.kv_bits == 8:
        fl.append(Flag("--kv-cache-dtype", "fp8", "keep the KV cache in FP8, half the bytes of 16-bit"))
    elif a.kv_bits < 8:
        notes.append("vLLM keeps the KV cache in 16 or 8 bits for a model like this; sized here at "
                     f"{a.kv_bits:g}, it will use 8 (--kv-cache-dtype fp8).")
    model, extra = checkpoint(a, "vllm", notes)
    fl += extra + [Flag("--port", str(PORT), "the OpenAI-compatible API's port")]
    return model, [f for f in fl if f]


def _sglang(a: Answer, notes: list[str]) -> tuple[str, list[Flag]]:
    model, extra = checkpoint(a, "sglang", notes)
    fl = [Flag("--model-path", model, "the model's repository or folder" if not model.endswith(".gguf") else f"the GGUF file in {a.fmt}"),
          Flag("--tp-size", str(a.devices), f"split every layer over your {a.devices} devices") if a.devices > 1 else None,
          Flag("--context-length", str(a.context), "the longest sequence it will accept"),
          Flag("--max-running-requests", str(a.sequences), "sequences decoded together"),
          Flag("--mem-fraction-static", f"{_share(a, 0.85):.2f}", "the share of each GPU's memory for weights and KV cache")]
    if a.kv_bits == 8:
        fl.append(Flag("--kv-cache-dtype", "fp8_e4m3", "keep the KV cache in FP8"))
    fl += extra + [Flag("--port", str(PORT), "the OpenAI-compatible API's port")]
    return "", [f for f in fl if f]


def _llama_server(a: Answer, notes: list[str]) -> tuple[str, list[Flag]]:
    layers = "all"
    if a.fit.fits is False and a.fit.offload_gb:
        held = (a.device.usable_gb or a.device.memory_gb) * GIB * a.devices
        share = max(0.0, min(1.0, held / (a.fit.total_gb * 1e9)))
        layers = str(int(int(a.model.get("specs")["layers"]["value"]) * share))
        notes.append(f"Only {layers} layers fit on the GPU; the rest run from system memory, far slower (the offload ceiling above).")
    fl = [Flag("--model", _gguf(a), f"the GGUF file in {a.fmt}"),
          Flag("--ctx-size", str(a.context * a.sequences), "the KV cache in tokens: " + (f"{a.context:,} for its one slot" if a.sequences == 1 else f"{a.context:,} for each of {a.sequences} slots")),
          Flag("--parallel", str(a.sequences), "slots: requests served at once"),
          Flag("--n-gpu-layers", layers, "layers kept on the GPU (all: the whole model)")]
    if a.devices > 1:
        fl.append(Flag("--split-mode", "layer", f"spread the layers over your {a.devices} GPUs"))
    if a.kv_bits <= 8:
        t = "q8_0" if a.kv_bits == 8 else "q4_0"
        fl += [Flag("--cache-type-k", t, "keys in the KV cache at about 8 bits" if t == "q8_0" else "keys at about 4 bits"),
               Flag("--cache-type-v", t, "values likewise (needs flash attention)"),
               Flag("--flash-attn", "on", "flash attention, which a quantized V cache needs")]
    fl += [Flag("--jinja", None, "use the model's own chat template"), Flag("--port", str(PORT), "the OpenAI-compatible API's port")]
    return "", fl


def ollama_tag(model: Entry) -> str:
    """The model's tag in Ollama's library (an alias written name:size), else a placeholder."""
    return next((x for x in model.aliases if ":" in x and "/" not in x and " " not in x), f"<{model.id} tag>")


def _ollama(a: Answer, notes: list[str]) -> tuple[str, list[Flag]]:
    tag = ollama_tag(a.model)
    fl = [Flag("OLLAMA_CONTEXT_LENGTH", str(a.context), "the context each request gets by default"),
          Flag("OLLAMA_NUM_PARALLEL", str(a.sequences), "requests a loaded model serves at once")]
    if a.kv_bits <= 8:
        fl += [Flag("OLLAMA_FLASH_ATTENTION", "1", "flash attention, which a quantized cache needs"),
               Flag("OLLAMA_KV_CACHE_TYPE", "q8_0" if a.kv_bits == 8 else "q4_0", "the KV cache's type")]
    notes.append(f"Ollama picks the weights by tag: `ollama pull {tag}` fetches its default quantization; "
                 "a tag naming the format (for example :q8_0) where the library offers one.")
    return tag, fl


def _mlx_lm(a: Answer, notes: list[str]) -> tuple[str, list[Flag]]:
    model, _ = checkpoint(a, "mlx-lm", notes)
    fl = [Flag("--model", model, "the MLX model's repository or folder"),
          Flag("--decode-concurrency", str(a.sequences), "sequences decoded together")]
    if a.kv_bits <= 8:
        fl.append(Flag("--kv-bits", str(int(a.kv_bits)), "quantize the KV cache (requests then run one at a time)"))
    fl.append(Flag("--port", str(PORT), "the API's port"))
    notes.append("mlx_lm.server has no context-length flag: a request may use the model's whole context, "
                 f"so keep prompts within the {a.context:,} tokens sized here.")
    return "", fl


def _trtllm(a: Answer, notes: list[str]) -> tuple[str, list[Flag]]:
    fl = [Flag("--backend", "pytorch", "the PyTorch backend: no engine to build"),
          Flag("--tp_size", str(a.devices), f"split every layer over your {a.devices} devices") if a.devices > 1 else None,
          Flag("--max_seq_len", str(a.context), "the longest sequence it will accept"),
          Flag("--max_batch_size", str(a.sequences), "sequences decoded together"),
          Flag("--kv_cache_free_gpu_memory_fraction", f"{0.9:.2f}", "the share of memory left after the weights that goes to the KV cache"),
          Flag("--port", str(PORT), "the OpenAI-compatible API's port")]
    if a.kv_bits <= 8:
        notes.append("trtllm-serve sets the KV cache's type in its --config YAML (kv_cache_config.dtype), not on the command line.")
    model, _ = checkpoint(a, "tensorrt-llm", notes)
    return model, [f for f in fl if f]


def _tabby(a: Answer, notes: list[str]) -> tuple[str, list[Flag]]:
    mode = {16: "FP16", 8: "Q8", 6: "Q6", 4: "Q4"}.get(int(a.kv_bits), "FP16")
    fl = [Flag("network.port", str(PORT), "the API's port"),
          Flag("model.model_dir", "models", "the folder holding the model folders"),
          Flag("model.model_name", f"{a.model.id}-exl3", "the model's folder, in an ExLlama format"),
          Flag("model.max_seq_len", str(a.context), "the longest sequence"),
          Flag("model.cache_mode", mode, "the KV cache's precision")]
    if a.devices > 1:
        fl.append(Flag("model.tensor_parallel", "true", f"split every layer over your {a.devices} GPUs"))
    return "", fl


BUILDERS = {"vllm": (_vllm, "flags"), "sglang": (_sglang, "flags"), "llama-server": (_llama_server, "flags"),
            "llama-cpp": (_llama_server, "flags"), "ollama": (_ollama, "env"), "mlx-lm": (_mlx_lm, "flags"),
            "tensorrt-llm": (_trtllm, "flags"), "tabbyapi": (_tabby, "config"), "exllamav3": (_tabby, "config")}
"""The engines a command is written for; llama.cpp serves through llama-server, ExLlamaV3 through TabbyAPI."""

SERVED_BY = {"llama-cpp": "llama-server", "exllamav3": "tabbyapi"}


def released_label(model: Entry) -> str | None:
    """The format the developer released the weights in (the model's checkpoint_format)."""
    return ((model.get("specs") or {}).get("checkpoint_format") or {}).get("value")


def _released(a: Answer) -> str | None:
    return released_label(a.model)


OFFERED = ("vllm", "sglang", "llama-cpp", "ollama", "mlx-lm", "tensorrt-llm", "exllamav3")
"""The engines the calculator's Run it panel offers, in its order (llama.cpp and ExLlamaV3
through the servers that start them)."""


def page_data(atlas: Atlas) -> dict:
    """What the calculator's script needs to write the same commands (docs/assets/atlas-launch.js):
    each offered engine's server, release, command and its format and backend cells."""
    engines = {}
    for eid in OFFERED:
        e, server = atlas.entries.get(eid), SERVED_BY.get(eid, eid)
        data = atlas.engine_flags.get(server)
        if e is None or data is None:
            continue
        cells = lambda key: {k: {"status": v.get("status"), "note": v.get("note")} for k, v in (e.get(key) or {}).items()}  # noqa: E731
        engines[eid] = {"title": e.title, "server": server, "kind": BUILDERS[eid][1], "command": data.command,
                        "release": data.release, "url": "../" + e.url.strip("/") + "/", "formats": cells("formats"),
                        "backends": cells("backends"), "caveat": data.caveat}
    return {"engines": engines, "order": list(engines), "format_cells": FORMAT_CELL, "platform_cells": PLATFORM_CELL, "port": PORT, "bpw": bpw_families(atlas)}


def launch(atlas: Atlas, engine: str, a: Answer) -> Launch:
    """The command that starts `engine` for the answer, every flag explained; a CalcError where
    the engine has no flags on record, cannot load the format, or the model does not fit."""
    if engine not in BUILDERS:
        raise CalcError(f"no launch command is written for {atlas.entries[engine].title if engine in atlas.entries else engine}; "
                        f"known: {', '.join(sorted(BUILDERS))}")
    server = SERVED_BY.get(engine, engine)
    data = atlas.engine_flags.get(server)
    if data is None:
        raise CalcError(f"the flags of {server} are not on record (glossary/engine-flags/{server}.yaml)")
    cell = format_cell(a.fmt, bpw_families(atlas))
    status = (((atlas.entries[engine].get("formats") or {}).get(cell) or {}).get("status")) if cell else None
    if status == "no":
        raise CalcError(f"{atlas.entries[engine].title} does not load {a.fmt} weights (its formats say no): pick another engine or format")
    if a.fit.fits is False and not (server == "llama-server" and a.fit.offload_gb):
        raise CalcError(f"{a.model.title} in {a.fmt} does not fit {a.devices} x {a.device.title}: no command to start it there")
    backend = PLATFORM_CELL.get(a.device.platform or "")
    runs = (((atlas.entries[engine].get("backends") or {}).get(backend) or {}).get("status")) if backend else None
    if runs == "no":
        raise CalcError(f"{atlas.entries[engine].title} does not run on {a.device.title} (its {backend} cell says no): pick another engine")
    build, kind = BUILDERS[engine]
    notes: list[str] = []
    model_arg, flags = build(a, notes)
    if runs in ("partial", "unknown"):
        note = (((atlas.entries[engine].get("backends") or {}).get(backend) or {}).get("note"))
        notes.insert(0, f"{atlas.entries[engine].title} on {backend}: {runs}" + (f" ({note})" if note else "") + ".")
    if status in ("partial", "unknown", "plugin"):
        note = ((atlas.entries[engine].get("formats") or {}).get(cell) or {}).get("note")
        notes.insert(0, f"{atlas.entries[engine].title} and {a.fmt}: {status}" + (f" ({note})" if note else "") + ".")
    out = Launch(engine=server, command=data.command, model_arg=model_arg, flags=flags, kind=kind, notes=notes, release=data.release)
    if server == "ollama":
        out.after = f"ollama run {model_arg}"
        out.model_arg = ""
    return out


def problems(atlas: Atlas, cmd: Launch) -> list[str]:
    """What in a command the engine's pinned release would refuse: a flag it does not have, a
    value outside its choices, a number where it wants one. Empty when every flag is accepted."""
    data = atlas.engine_flags[cmd.engine]
    out = []
    for f in cmd.flags:
        found = data.find(f.name)
        if found is None:
            out.append(f"{cmd.engine} {data.release} has no {f.name}")
            continue
        _, spec = found
        t, choices = spec.get("type"), spec.get("choices")
        if f.value is None:
            if t != "bool":
                out.append(f"{f.name} needs a value in {cmd.engine} {data.release}")
            continue
        if choices and f.value not in [str(c) for c in choices]:
            out.append(f"{f.name} {f.value}: {cmd.engine} {data.release} accepts {', '.join(map(str, choices))}")
        elif t == "int" and not f.value.lstrip("-").isdigit():
            out.append(f"{f.name} {f.value}: {cmd.engine} {data.release} wants a whole number")
        elif t == "float":
            try:
                float(f.value)
            except ValueError:
                out.append(f"{f.name} {f.value}: {cmd.engine} {data.release} wants a number")
    return out
