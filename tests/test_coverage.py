"""Every technical term the five source documents use resolves to an entry, by title or alias.

The list is read off the documents by hand (shared/seeds/000-004), in their spellings."""

import pytest

from conftest import REPO
from generator.cli import lookup
from generator.pipeline import load_atlas

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
Llama 3.1 8B, Qwen 3.6 27B, DeepSeek-R1, Llama-3-70B, AutoRound, agentic workflows, open weight models
"""


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(REPO)


def test_every_seed_term_resolves(atlas):
    terms = sorted({t.strip() for t in SEED_TERMS.replace("\n", " ").split(",") if t.strip()})
    missing = [t for t in terms if lookup(atlas, t)[0] is None]
    assert missing == []
