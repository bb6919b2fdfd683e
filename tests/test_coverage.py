"""Every technical term the five source documents use resolves to an entry, by title or alias.

The list is read off the documents by hand (shared/seeds/000-004), in their spellings."""

import hashlib
import re
from pathlib import Path

import pytest

from conftest import REPO
from generator.cli import lookup
from generator.pipeline import load_atlas

SEEDS = REPO.parent / "shared" / "seeds"

SEED_TERMS = """
GPU, APU, XPU, TPU, NVFP4, MTP, VRAM, TTFT, memory bandwidth, GDDR7, GDDR6, tensor cores, matrix cores,
prefill, decode, KV cache, MoE, dense models, OPEX vs CAPEX, power draw, TOPS, inference framework, quantization,
concurrency, tokenizer, scheduler, batching, decode loop, GGUF, TensorRT, SGLang, vLLM, llama.cpp, PagedAttention,
continuous batching, OpenAI-compatible, RAG, /v1/messages, MLX, unified memory, Metal, CUDA, ROCm,
ExLlamaV2, ExLlamaV3, EXL2, EXL3, tensor parallelism, pipeline parallelism, data parallelism, expert parallelism,
disaggregation, long-context, FP8, FP4, CUDA graphs, multi-node, Transformers, TT-Metal, interconnect, PCIe, NVLink,
RDMA, runtime overhead, activations, Ollama, latency, GGUF, MLC LLM, ONNX Runtime GenAI, OpenVINO, NPUs, TGI, LMDeploy,
prefix caching, structured output, multi-LoRA, NVIDIA Dynamo, disaggregated prefill, KV cache-aware request routing,
all-reduce, NVSwitch, preemption, chunked prefill, CUDA Graph, kernel fusion, out of memory, OOM, memory fragmentation,
k-quantization, FP16, Metal Performance Shaders, AVX2, AVX-512, speculative decoding, draft model, grammar constraints,
Modelfile, iteration-level scheduling, RadixAttention, radix tree, finite state machine, FSM, INT4, mistral.rs,
weight-only quantization, throughput, cost-per-token, time-to-first-token, FlashAttention, CuBLAS, Triton, Cutlass,
NIMs, Dynamo, KV cache-aware load balancing, Kubernetes, H100, H200, B200, RTX 5090, Arc B70, GB10, DGX Spark,
RTX 40, RTX Pro Blackwell, Grace Blackwell, Hopper, Jetson Nano, Raspberry Pi, A100, 3090, 4090, M2 Max,
Llama 3.1 8B, Qwen 3.6 27B, DeepSeek-R1, Llama-3-70B, AutoRound, agentic workflows, open weight models,
Apple Silicon, SoC, JAX, Blackwell, GB10, matrix units, matrix cores, matrix-multiply units, Arc B70, compute-bound,
memory-bandwidth-bound, Cloud GPU, DRAM, TOPS, CPU, RAM, CPU RAM, MoE, MiniMax 2.7, GLM 5.1, DeepSeek V4 Pro,
Llama 3, Llama 3.1, LLaMA, llama3, Llama 3.1 70B, Llama-70B, INT4, self-host, open source models, multi-tenant,
edge devices, IoT, edge boxes, hybrid offload, long-context, routing, request routing, load balancing,
KV cache-aware load balancing, precision, numerical precision, forward pass, sampling, temperature, sampling temperature,
matrix multiplication, integrated GPUs, discrete GPU, M-series, MLX-LM, metrics, orchestration, cross-node parallelism,
dequantization, autoregressive, static batching, PyTorch, MacBook Pro, Mac, M2 Max, Raspberry Pi, Jetson Nano, air-gapped,
JSON schema, prefix tree, model formats, model format, weight-only quantization, tokens per second, latency, inter-token latency,
time-per-output-token, portable local runtimes, Apple unified-memory runtimes, consumer CUDA quant engines,
production serving engines, inference engine, model weights, KV cache offloading, LMCache, HiCache, KV Block Manager,
vLLM offloading connector, SIMD, FP16, unified memory, layer offload, split computation, Grace Blackwell, RTX Pro Blackwell,
production LLM serving, model lifecycle, single binary, memory bus, frontend DSL, DSL, on-device, API surface,
compute stack, hardware auto-detection, Docker, Hugging Face
"""


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def _seed_words() -> dict[str, str]:
    """The names the documents use that reach no entry on purpose, with their reasons."""
    import yaml

    return yaml.safe_load((REPO / "graph/allowed.yaml").read_text(encoding="utf-8")).get("seed_words") or {}


def test_every_seed_term_resolves(atlas):
    """Issue 48: every term, API, metric, format, hardware concept and stack name the documents
    use reaches an entry or an alias, or is listed in graph/allowed.yaml with a reason."""
    allowed = _seed_words()
    terms = sorted({t.strip() for t in SEED_TERMS.replace("\n", " ").split(",") if t.strip()})
    missing = [t for t in terms if lookup(atlas, t)[0] is None and not (allowed.get(t) or "").strip()]
    assert missing == []


# Every name-like word of the documents (an acronym, a CamelCase or a name with a digit:
# GPU, PagedAttention, H100), read off them by NAME_RE. The list is kept in seed-names.txt
# so that a checkout without the documents still checks it; with them present, the test also
# checks the list is what the documents say now (regenerate: `PYTHONPATH=.:tests python tests/test_coverage.py`).
NAMES_FILE = Path(__file__).with_name("seed-names.txt")
NAME_RE = re.compile(r"(?<![\w/.-])([A-Za-z][A-Za-z0-9]*(?:[.-][A-Za-z0-9]+)*)(?![\w/])")


def _seed_names_from_text() -> set[str]:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt")))
    return {w for w in (m.group(1) for m in NAME_RE.finditer(text))
            if len(w) >= 2 and (re.search(r"[A-Z]", w[1:]) or re.search(r"\d", w))}


def test_every_name_the_documents_use_reaches_an_entry_or_has_a_reason(atlas):
    """A name counts as reached when it resolves whole, or when it is a compound of one that
    does (CUDA-first, GGUF-based: CUDA and GGUF resolve)."""
    names = NAMES_FILE.read_text(encoding="utf-8").split()
    if SEEDS.is_dir():
        assert sorted(_seed_names_from_text()) == names, "the documents changed: regenerate tests/seed-names.txt"
    allowed = _seed_words()

    def reached(name: str) -> bool:
        parts = [name] + [p for p in name.split("-") if re.search(r"[A-Z0-9]", p)]
        return any(lookup(atlas, p)[0] is not None or (allowed.get(p) or "").strip() for p in parts)

    missing = [n for n in names if not reached(n)]
    assert len(names) > 100 and missing == []


# Issue 35's list of the hardware of 2026, in the names a reader types, and the entry each must reach.
DEVICES = {
    "T4": "nvidia-t4", "A10G": "nvidia-a10g", "A10": "nvidia-a10", "L4": "nvidia-l4", "L40S": "nvidia-l40s",
    "A100 40GB": "nvidia-a100-40gb", "A100 80GB": "nvidia-a100-sxm", "H100 PCIe": "nvidia-h100-pcie",
    "H100 SXM": "nvidia-h100-sxm", "H100 NVL": "nvidia-h100-nvl", "H200": "nvidia-h200", "B200": "nvidia-b200",
    "B300": "nvidia-b300", "GB200 NVL72": "nvidia-gb200", "GB300 NVL72": "nvidia-gb300-nvl72",
    "MI300X": "amd-instinct-mi300x", "MI325X": "amd-instinct-mi325x", "MI355X": "amd-instinct-mi355x",
    "MI400": "amd-instinct-mi400", "Gaudi 3": "intel-gaudi-3", "TPU v5e": "google-tpu-v5e", "TPU v5p": "google-tpu-v5p",
    "TPU v6e": "google-tpu-v6e", "TPU7x": "google-tpu7x", "Ironwood": "google-tpu7x", "Trainium2": "aws-trainium2",
    "Trainium3": "aws-trainium3", "Inferentia2": "aws-inferentia2", "RTX 3060 12GB": "nvidia-rtx-3060-12gb",
    "RTX 3090": "nvidia-rtx-3090", "RTX 4060 Ti 16GB": "nvidia-rtx-4060-ti-16gb", "RTX 4090": "nvidia-rtx-4090",
    "RTX 5060 Ti 16GB": "nvidia-rtx-5060-ti-16gb", "RTX 5080": "nvidia-rtx-5080", "RTX 5090": "nvidia-rtx-5090",
    "RX 7900 XTX": "amd-radeon-rx-7900-xtx", "RX 9070 XT": "amd-radeon-rx-9070-xt", "Arc B580": "intel-arc-b580",
    "Ryzen AI Max+ 395": "amd-ryzen-ai-max-395", "Strix Halo": "amd-ryzen-ai-max-395",
    "M1 Max": "apple-m1-max", "M1 Ultra": "apple-m1-ultra", "M2 Max": "apple-m2-max", "M2 Ultra": "apple-m2-ultra",
    "M3 Max": "apple-m3-max", "M3 Ultra": "apple-m3-ultra", "M4 Max": "apple-m4-max", "M5 Max": "apple-m5-max",
    "DGX Spark": "nvidia-dgx-spark", "DGX Station": "nvidia-dgx-station", "Jetson AGX Orin": "nvidia-jetson-agx-orin",
    "Jetson Thor": "nvidia-jetson-agx-thor", "Jetson Orin Nano": "nvidia-jetson-orin-nano", "Raspberry Pi 5": "raspberry-pi-5",
    # and the 48 GB cards clouds rent most cheaply
    "A6000": "nvidia-rtx-a6000", "RTX 6000 Ada": "nvidia-rtx-6000-ada", "A40": "nvidia-a40",
    "A100 PCIe": "nvidia-a100-pcie-80gb",
}


def test_every_device_of_2026_resolves_by_its_usual_name(atlas):
    """Issue 35's done-when: each device resolves by the name people use for it, as `atlas
    define` reads it; a name that fits two entries (the A100 SXM comes in 40 and 80 GB) names
    both rather than picking one."""
    got = {name: lookup(atlas, name)[0] for name in DEVICES}
    assert {name: e.id if e else None for name, e in got.items()} == DEVICES
    entry, both = lookup(atlas, "A100 SXM")
    assert entry is None and set(both) == {"NVIDIA A100 40GB (SXM4)", "NVIDIA A100 SXM"}


# --- Own words -----------------------------------------------------------------------
# No run of eight words in our text may repeat a run in the source documents. Words in
# quotation marks are a quotation, attributed where they stand, and are left out.

SHINGLE = 8
_QUOTED = re.compile(r"\"[^\"]{0,300}\"|“[^”]{0,300}”")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower().replace("’", "'"))
    return {tuple(words[i:i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


def _our_texts():
    """Every piece of prose we wrote: YAML string values and handwritten pages. Titles are
    names (a source's title is the document's own), not prose, and are left out."""
    import yaml

    for path in sorted((REPO / "glossary").rglob("*.yaml")):
        def walk(v, where):
            if isinstance(v, str):
                yield where, v
            elif isinstance(v, dict):
                for k, x in v.items():
                    if k != "title":
                        yield from walk(x, where)
            elif isinstance(v, list):
                for x in v:
                    yield from walk(x, where)
        yield from walk(yaml.safe_load(path.read_text(encoding="utf-8")), str(path.relative_to(REPO)))
    for path in sorted((REPO / "docs").rglob("*.md")):
        yield str(path.relative_to(REPO)), path.read_text(encoding="utf-8")


# The seeds live beside the repository (../shared/seeds), not in it, and a checkout
# elsewhere has no copy. Their 8-word runs are kept here as hashes instead: enough to
# recognise a copied run, without committing anyone's text. When the seeds are present the
# test also checks that this file is up to date (regenerate with `python tests/test_coverage.py`).
SHINGLE_FILE = Path(__file__).with_name("seed-shingles.txt")


def _digest(run: tuple[str, ...]) -> str:
    return hashlib.blake2b(" ".join(run).encode(), digest_size=8).hexdigest()


def _seed_digests_from_text() -> set[str]:
    out: set[str] = set()
    for path in sorted(SEEDS.glob("*.txt")):
        out |= {_digest(r) for r in _shingles(path.read_text(encoding="utf-8", errors="replace"))}
    return out


def _seed_digests() -> set[str]:
    return set(SHINGLE_FILE.read_text(encoding="ascii").split())


def test_the_stored_seed_runs_match_the_seeds_when_they_are_here():
    stored = _seed_digests()
    assert len(stored) > 5_000  # five documents' worth of runs
    if SEEDS.is_dir():
        assert stored == _seed_digests_from_text(), "seeds changed: run `python tests/test_coverage.py`"


def test_no_sentence_is_copied_from_the_source_documents():
    seeds = _seed_digests()
    copied = []
    for where, text in _our_texts():
        for run in _shingles(_QUOTED.sub(" ", text)):
            if _digest(run) in seeds:
                copied.append(f"{where}: {' '.join(run)}")
    assert copied == [], "\n".join(sorted(set(copied))[:40])


def test_the_overlap_check_catches_a_copied_sentence():
    # A sentence of the fourth seed (003), quoted here to prove the check would catch it.
    sentence = "A 70B parameter model in FP16 demands about 140GB of VRAM"
    seeds = _seed_digests()
    assert any(_digest(r) in seeds for r in _shingles(sentence))
    quoted = _QUOTED.sub(" ", f'As the post puts it, "{sentence}".')
    assert not any(_digest(r) in seeds for r in _shingles(quoted))


if __name__ == "__main__":
    SHINGLE_FILE.write_text("\n".join(sorted(_seed_digests_from_text())) + "\n", encoding="ascii")
    NAMES_FILE.write_text("\n".join(sorted(_seed_names_from_text())) + "\n", encoding="utf-8")
    print(f"wrote {SHINGLE_FILE} and {NAMES_FILE}")
