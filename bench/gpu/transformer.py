"""A decoder-only transformer with random weights in the exact shape of a model entry.

Plain PyTorch, no modules: weights are tensors, a step is a function of static buffers so
that it can be captured in a CUDA graph. Layers: RMSNorm, fused QKV projection, rotary
embedding, attention through torch.nn.functional.scaled_dot_product_attention over the real
KV cache, output projection, RMSNorm, gated FFN (SwiGLU) or a mixture of experts.

MoE: every expert of a layer is built (all of a layer's weights are resident, as in a real
model). The router's matrix product runs for every token, but which experts a token goes to
is drawn at random (k distinct experts, uniform) once per configuration, before capture; the
routing weights are a softmax of the router's logits at the drawn experts. Tokens are sorted
by expert and each used expert runs as two matrix products over its tokens, so an expert no
token chose is never read.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from shapes import Shape

try:
    from torch.nn.attention import SDPBackend
except ImportError:  # older torch
    SDPBackend = None


def sdpa_backend(q, k, v, is_causal: bool = False, enable_gqa: bool = False) -> str:
    """Which kernel scaled_dot_product_attention picks for these inputs, by PyTorch's own choice."""
    try:
        kw = {"enable_gqa": True} if enable_gqa else {}
        choice = torch._fused_sdp_choice(q, k, v, is_causal=is_causal, **kw)
        return SDPBackend(choice).name.lower() if SDPBackend is not None else str(choice)
    except Exception as exc:  # private API: record that it could not be asked
        return f"unknown ({type(exc).__name__})"


def sdpa_context(name: str):
    """A context manager factory: 'auto' leaves the choice to PyTorch, else only that kernel."""
    if name == "auto":
        return contextlib.nullcontext
    from torch.nn.attention import sdpa_kernel
    backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}[name]
    return lambda: sdpa_kernel([backend])


def within(ctx, fn):
    """fn run inside ctx() (also while a CUDA graph captures it)."""
    def run():
        with ctx():
            return fn()
    return run


@dataclass
class Layer:
    attn_norm: torch.Tensor
    wqkv: torch.Tensor  # ((Hq + 2 Hkv) D, H)
    wo: torch.Tensor  # (H, Hq D)
    mlp_norm: torch.Tensor
    w_gate_up: torch.Tensor | None = None  # (2F, H)
    w_down: torch.Tensor | None = None  # (H, F)
    router: torch.Tensor | None = None  # (E, H)
    w13: torch.Tensor | None = None  # (E + shared, 2F, H)
    w2: torch.Tensor | None = None  # (E + shared, H, F)


def _rand(shape, fan_in: int, device, dtype, gen) -> torch.Tensor:
    t = torch.randn(shape, device=device, dtype=dtype, generator=gen)
    return t.mul_(1.0 / math.sqrt(fan_in))


def tensor_bytes(t: torch.Tensor | None) -> int:
    return 0 if t is None else t.numel() * t.element_size()


class Model:
    def __init__(self, shape: Shape, n_layers: int, device: torch.device, dtype=torch.bfloat16, seed: int = 0):
        self.shape, self.n_layers, self.device, self.dtype = shape, n_layers, device, dtype
        # Local (sliding-window) layers among those built, in the model's proportion, the global
        # ones spread evenly (gpt-oss alternates, Gemma keeps one in six).
        local = round(n_layers * shape.sliding_layers / shape.layers) if shape.sliding_window else 0
        n_global = n_layers - local
        global_at = {round((j + 1) * n_layers / n_global) - 1 for j in range(n_global)} if n_global else set()
        self.window = shape.sliding_window
        self.local = frozenset(i for i in range(n_layers) if i not in global_at) if local else frozenset()
        gen = torch.Generator(device=device)
        gen.manual_seed(seed)
        self.gen = gen
        s = shape
        H, D = s.hidden_size, s.head_dim
        qkv_out = (s.attention_heads + 2 * s.kv_heads) * D
        self.embed = _rand((s.vocab_size, H), 1, device, dtype, gen)
        self.final_norm = torch.ones(H, device=device, dtype=dtype)
        self.lm_head = _rand((s.vocab_size, H), H, device, dtype, gen)
        self.layers: list[Layer] = []
        for _ in range(n_layers):
            layer = Layer(
                attn_norm=torch.ones(H, device=device, dtype=dtype),
                wqkv=_rand((qkv_out, H), H, device, dtype, gen),
                wo=_rand((H, s.attention_heads * D), s.attention_heads * D, device, dtype, gen),
                mlp_norm=torch.ones(H, device=device, dtype=dtype),
            )
            if s.is_moe:
                E, Fe = s.experts + s.shared_experts, s.expert_ffn_size
                layer.router = _rand((s.experts, H), H, device, dtype, gen)
                layer.w13 = _rand((E, 2 * Fe, H), H, device, dtype, gen)
                layer.w2 = _rand((E, H, Fe), Fe, device, dtype, gen)
            else:
                layer.w_gate_up = _rand((2 * s.ffn_size, H), H, device, dtype, gen)
                layer.w_down = _rand((H, s.ffn_size), s.ffn_size, device, dtype, gen)
            self.layers.append(layer)

    # ---- accounting -------------------------------------------------------------------
    def params(self) -> int:
        n = self.embed.numel() + self.final_norm.numel() + self.lm_head.numel()
        for L in self.layers:
            n += sum(t.numel() for t in vars(L).values() if t is not None)
        return n

    def weight_bytes(self) -> int:
        n = tensor_bytes(self.embed) + tensor_bytes(self.final_norm) + tensor_bytes(self.lm_head)
        for L in self.layers:
            n += sum(tensor_bytes(t) for t in vars(L).values())
        return n

    def layer_bytes_read(self, layer: Layer, experts_used: int) -> int:
        """Weight bytes one layer reads in a step where `experts_used` routed experts run."""
        n = tensor_bytes(layer.attn_norm) + tensor_bytes(layer.wqkv) + tensor_bytes(layer.wo)
        n += tensor_bytes(layer.mlp_norm)
        if self.shape.is_moe:
            per_expert = (tensor_bytes(layer.w13) + tensor_bytes(layer.w2)) // layer.w13.shape[0]
            n += tensor_bytes(layer.router) + (experts_used + self.shape.shared_experts) * per_expert
        else:
            n += tensor_bytes(layer.w_gate_up) + tensor_bytes(layer.w_down)
        return n

    def head_bytes_read(self, batch: int) -> int:
        """Final norm, output head, and the embedding rows of `batch` tokens."""
        row = self.embed.shape[1] * self.embed.element_size()
        return tensor_bytes(self.final_norm) + tensor_bytes(self.lm_head) + batch * row

    # ---- pieces -----------------------------------------------------------------------
    def rope(self, positions: torch.Tensor):
        """cos, sin of shape (len(positions), D) for rotate-half rotary embedding."""
        D = self.shape.head_dim
        inv = 1.0 / (500000.0 ** (torch.arange(0, D, 2, device=self.device, dtype=torch.float32) / D))
        ang = positions.to(torch.float32)[:, None] * inv[None, :]
        ang = torch.cat([ang, ang], dim=-1)
        return ang.cos().to(self.dtype), ang.sin().to(self.dtype)

    @staticmethod
    def _rotate(x, cos, sin):
        x1, x2 = x.chunk(2, dim=-1)
        return x * cos + torch.cat([-x2, x1], dim=-1) * sin

    def _ffn(self, layer: Layer, h: torch.Tensor, route) -> torch.Tensor:
        if not self.shape.is_moe:
            g, u = (h @ layer.w_gate_up.t()).chunk(2, dim=-1)
            return (F.silu(g) * u) @ layer.w_down.t()
        return self._moe(layer, h, route)

    def _moe(self, layer: Layer, h: torch.Tensor, route) -> torch.Tensor:
        """h: (N, H). route: static routing of this layer (see `draw_routing`)."""
        Fe = self.shape.expert_ffn_size
        logits = h @ layer.router.t()  # (N, E): the router's work is real
        w = torch.softmax(logits.gather(1, route["experts"]).float(), dim=-1).to(h.dtype)  # (N, k)
        xs = h.index_select(0, route["token_sorted"])  # (N k', H) sorted by expert
        buf13, buf2 = route["buf13"], route["buf2"]
        for e, start, end in route["segments"]:
            torch.mm(xs[start:end], layer.w13[e].t(), out=buf13[start:end])
        act = F.silu(buf13[:, :Fe]) * buf13[:, Fe:]
        for e, start, end in route["segments"]:
            torch.mm(act[start:end], layer.w2[e].t(), out=buf2[start:end])
        wsorted = torch.cat([w.reshape(-1), route["ones"]]).index_select(0, route["weight_sorted"])
        out = torch.zeros_like(h)
        out.index_add_(0, route["token_sorted"], buf2 * wsorted[:, None])
        return out

    def draw_routing(self, n_tokens: int, seed: int) -> list[dict]:
        """Per layer: k distinct routed experts per token, uniform at random, plus shared experts."""
        s = self.shape
        if not s.is_moe:
            return [None] * self.n_layers
        g = torch.Generator(device="cpu")
        g.manual_seed(seed)
        routes = []
        k = s.experts_active
        for _ in range(self.n_layers):
            experts = torch.rand(n_tokens, s.experts, generator=g).topk(k, dim=1).indices  # (N, k)
            pairs = []  # (expert, token, weight index)
            for t in range(n_tokens):
                for j in range(k):
                    pairs.append((int(experts[t, j]), t, t * k + j))
                for j in range(s.shared_experts):
                    pairs.append((s.experts + j, t, n_tokens * k + 0))  # shared: weight 1
            pairs.sort()
            segments, start = [], 0
            for i in range(1, len(pairs) + 1):
                if i == len(pairs) or pairs[i][0] != pairs[start][0]:
                    segments.append((pairs[start][0], start, i))
                    start = i
            dev = self.device
            if not routes:  # one pair of work buffers serves every layer: layers run in turn
                bufs = (torch.empty(len(pairs), 2 * s.expert_ffn_size, device=dev, dtype=self.dtype),
                        torch.empty(len(pairs), s.hidden_size, device=dev, dtype=self.dtype))
            routes.append({
                "experts": experts.to(dev),
                "token_sorted": torch.tensor([p[1] for p in pairs], device=dev),
                "weight_sorted": torch.tensor([p[2] for p in pairs], device=dev),
                "ones": torch.ones(1, device=dev, dtype=self.dtype),
                "segments": segments,
                "routed_used": len({p[0] for p in pairs if p[0] < s.experts}),
                "buf13": bufs[0],
                "buf2": bufs[1],
            })
        return routes

    # ---- decode -----------------------------------------------------------------------
    def kv_positions(self, context: int) -> int:
        """Cache positions one sequence's step reads over the layers built: a local layer at
        most its window."""
        return sum(min(context, self.window) if i in self.local else context for i in range(self.n_layers))

    def new_kv_cache(self, batch: int, length: int) -> list[torch.Tensor]:
        """One (2, B, Hkv, T, D) tensor per layer, filled with random values (never zeros)."""
        s = self.shape
        return [torch.randn((2, batch, s.kv_heads, length, s.head_dim), device=self.device,
                            dtype=self.dtype, generator=self.gen) for _ in range(self.n_layers)]

    def decode_attention_inputs(self, batch: int, context: int):
        """Shapes of one decode attention call, for asking which backend it gets."""
        s = self.shape
        q = torch.empty(batch, s.kv_heads, s.group, s.head_dim, device=self.device, dtype=self.dtype)
        kv = torch.empty(batch, s.kv_heads, context, s.head_dim, device=self.device, dtype=self.dtype)
        return q, kv

    def make_decode_step(self, batch: int, context: int, kv: list[torch.Tensor], routes, tokens=None):
        """A step that reads the KV cache of `context` positions (the new token at the last)
        and writes the new token's K and V there. GQA runs with the query heads of each KV
        head folded into the query length, (B, Hkv, group, D): exact for one new token, and
        each KV head is read once."""
        s = self.shape
        B, D, Hq, Hkv, G = batch, s.head_dim, s.attention_heads, s.kv_heads, s.group
        pos = context - 1
        if tokens is None:
            tokens = torch.randint(0, s.vocab_size, (B,), device=self.device, generator=self.gen)
        cos, sin = self.rope(torch.tensor([pos], device=self.device))
        cos, sin = cos.view(1, 1, 1, D), sin.view(1, 1, 1, D)

        def step():
            x = self.embed.index_select(0, tokens)  # (B, H)
            for i, L in enumerate(self.layers):
                h = F.rms_norm(x, (s.hidden_size,), L.attn_norm)
                qkv = h @ L.wqkv.t()
                q = qkv[:, : Hq * D].view(B, Hkv, G, D)
                k = qkv[:, Hq * D: (Hq + Hkv) * D].view(B, Hkv, 1, D)
                v = qkv[:, (Hq + Hkv) * D:].view(B, Hkv, D)
                q = self._rotate(q, cos, sin)
                k = self._rotate(k, cos, sin)
                cache = kv[i]
                cache[0, :, :, pos] = k[:, :, 0]
                cache[1, :, :, pos] = v
                lo = max(0, context - self.window) if i in self.local else 0  # a local layer reads its window only
                o = F.scaled_dot_product_attention(q, cache[0][:, :, lo:], cache[1][:, :, lo:])  # (B, Hkv, G, D)
                x = x + o.reshape(B, Hq * D) @ L.wo.t()
                h = F.rms_norm(x, (s.hidden_size,), L.mlp_norm)
                x = x + self._ffn(L, h, routes[i])
            x = F.rms_norm(x, (s.hidden_size,), self.final_norm)
            logits = x @ self.lm_head.t()
            return logits, logits.argmax(dim=-1)

        return step

    def make_head_step(self, batch: int):
        """Final norm and output head alone: the part of a step that does not scale with layers."""
        s = self.shape
        x = torch.randn(batch, s.hidden_size, device=self.device, dtype=self.dtype, generator=self.gen)

        def step():
            h = F.rms_norm(x, (s.hidden_size,), self.final_norm)
            logits = h @ self.lm_head.t()
            return logits, logits.argmax(dim=-1)

        return step

    # ---- prefill ----------------------------------------------------------------------
    def prefill_gqa_mode(self, batch: int, length: int) -> tuple[str, str]:
        """('enable_gqa' | 'expanded', backend): expand K/V only if GQA would fall to the math
        kernel, or if the kernel forced by --sdpa-backend cannot take GQA at all."""
        s = self.shape
        q = torch.empty(batch, s.attention_heads, length, s.head_dim, device=self.device, dtype=self.dtype)
        k = torch.empty(batch, s.kv_heads, length, s.head_dim, device=self.device, dtype=self.dtype)
        if s.group == 1:
            return "none (mha)", sdpa_backend(q, q, q, is_causal=True)
        native = sdpa_backend(q, k, k, is_causal=True, enable_gqa=True)
        if native in ("math", "error") and self.device.type == "cuda":
            expanded = sdpa_backend(q, q, q, is_causal=True)
            if expanded not in ("math", "error") or native == "error":
                return "expanded", expanded
        return "enable_gqa", native

    def make_prefill(self, batch: int, length: int, kv: list[torch.Tensor], routes, gqa_mode: str, tokens=None):
        """Whole prompt through every layer (causal attention), K and V written to the cache,
        logits of the last position: the work before the first token."""
        s = self.shape
        B, P, D, Hq, Hkv = batch, length, s.head_dim, s.attention_heads, s.kv_heads
        if tokens is None:
            tokens = torch.randint(0, s.vocab_size, (B, P), device=self.device, generator=self.gen)
        cos, sin = self.rope(torch.arange(P, device=self.device))
        cos, sin = cos.view(1, 1, P, D), sin.view(1, 1, P, D)
        band = None
        if self.local and P > self.window:  # causal within the window: position t sees t-W+1 .. t
            idx = torch.arange(P, device=self.device)
            band = (idx[None, :] <= idx[:, None]) & (idx[:, None] - idx[None, :] < self.window)

        def run():
            x = self.embed.index_select(0, tokens.reshape(-1))  # (B P, H)
            for i, L in enumerate(self.layers):
                h = F.rms_norm(x, (s.hidden_size,), L.attn_norm)
                qkv = (h @ L.wqkv.t()).view(B, P, Hq + 2 * Hkv, D).transpose(1, 2)
                q, k, v = qkv[:, :Hq], qkv[:, Hq:Hq + Hkv], qkv[:, Hq + Hkv:]
                q = self._rotate(q, cos, sin)
                k = self._rotate(k, cos, sin)
                kv[i][0, :, :, :P] = k
                kv[i][1, :, :, :P] = v
                if band is not None and i in self.local:
                    if s.group > 1:
                        k, v = k.repeat_interleave(s.group, dim=1), v.repeat_interleave(s.group, dim=1)
                    o = F.scaled_dot_product_attention(q, k, v, attn_mask=band)
                elif gqa_mode == "expanded":
                    k, v = k.repeat_interleave(s.group, dim=1), v.repeat_interleave(s.group, dim=1)
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                elif gqa_mode == "enable_gqa":
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                else:
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                x = x + o.transpose(1, 2).reshape(B * P, Hq * D) @ L.wo.t()
                h = F.rms_norm(x, (s.hidden_size,), L.mlp_norm)
                x = x + self._ffn(L, h, routes[i])
            last = x.view(B, P, -1)[:, -1]
            logits = F.rms_norm(last, (s.hidden_size,), self.final_norm) @ self.lm_head.t()
            return logits, logits.argmax(dim=-1)

        return run

    def prefill_flops(self, batch: int, length: int) -> int:
        """Matrix-product FLOPs of a prefill of the built layers (2 per multiply-add)."""
        s = self.shape
        tokens = batch * length
        per_token = s.attn_params() + (
            s.experts * s.hidden_size + (s.experts_active + s.shared_experts) * s.expert_params()
            if s.is_moe else 3 * s.hidden_size * s.ffn_size)
        linear = 2 * tokens * per_token * self.n_layers
        # causal attention: QK^T and PV over length (length + 1) / 2 keys on average
        attn = 2 * 2 * batch * s.attention_heads * s.head_dim * length * (length + 1) // 2 * self.n_layers
        head = 2 * batch * s.vocab_size * s.hidden_size
        return linear + attn + head
