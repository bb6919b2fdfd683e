/* Inference Atlas calculator: the same formulas as generator/calc.py (a browser test
 * checks that both give the same numbers), over the figures embedded in the page.
 * Bad input (empty, zero, negative, absurd, unknown) gets a message in the page. */
(function () {
  "use strict";
  var GIB = 1073741824;  // bytes in a vendor's GB of device memory (calc.specs.GIB): an 80 GB card holds 80 GiB

  var el = window.Atlas.el;

  /* What one more token adds once the context is longer than any window (ModelSpec.kv_bytes_per_token). */
  function kvPerToken(m, kvBits) {
    var b = kvBits / 8;
    if (m.kv_bytes_16) return m.kv_bytes_16 * kvBits / 16;
    if (m.attention === "other") throw new Error(m.title + ": attention 'other' needs a published KV size per token");
    if (m.attention === "mla") {
      if (!m.kv_lora_rank || !m.rope_head_dim) throw new Error(m.title + ": an MLA model needs its latent and RoPE widths");
      return m.layers * (m.kv_lora_rank + m.rope_head_dim) * b;
    }
    if (!m.kv_heads || !m.head_dim) throw new Error(m.title + ": KV-cache size needs KV heads and head dimension");
    var layers = (m.attention === "hybrid-linear" && m.full_attention_layers) ? m.full_attention_layers : m.layers;
    if (m.sliding_window) layers -= (m.sliding_layers || 0);
    return 2 * layers * m.kv_heads * m.head_dim * b;
  }

  /* One sequence's cache at `tokens` (ModelSpec.kv_bytes): windows capped, recurrent state fixed. */
  function kvBytes(m, tokens, kvBits) {
    var grow = kvPerToken(m, kvBits) * tokens;
    if (m.sliding_window && m.sliding_layers && m.kv_heads && m.head_dim && m.attention !== "mla")
      grow += 2 * m.sliding_layers * m.kv_heads * m.head_dim * kvBits / 8 * Math.min(tokens, m.sliding_window);
    if (m.attention === "hybrid-linear" && m.full_attention_layers && m.linear_heads && m.linear_key_dim && m.linear_value_dim) {
      var perLayer = m.linear_heads * m.linear_key_dim * m.linear_value_dim;  // ModelSpec.state_bytes: the recurrent state,
      if (m.linear_conv)  // and the short convolution's last kernel - 1 inputs over the query, key and value channels
        perLayer += (2 * (m.linear_key_heads || m.linear_heads) * m.linear_key_dim + m.linear_heads * m.linear_value_dim) * (m.linear_conv - 1);
      grow += (m.linear_layers || m.layers - m.full_attention_layers) * perLayer * kvBits / 8;
    }
    return grow;
  }

  /* A precision: bits of the parts a format quantizes, and of the parts it keeps otherwise (calc.parts.Precision). */
  function precision(p) { return typeof p === "number" ? { bits: p, parts: {} } : p; }
  function partBits(p, part) { return p.parts && p.parts[part] !== undefined ? p.parts[part] : p.bits; }

  /* Bytes of the weights in memory: every part at its precision (ModelSpec.weight_bytes). */
  function weightBytes(m, p) {
    if (!m.parts) return m.params_b * 1e9 * p.bits / 8;
    return m.parts.reduce(function (s, x) { return s + x[1] * 1e9 * partBits(p, x[0]) / 8; }, 0);
  }

  /* Bytes of weights one step of `batch` sequences reads (ModelSpec.bytes_read): each part a
   * token uses, one row of the embedding table a token, the routed experts the batch touches. */
  function bytesRead(m, p, batch) {
    var e = m.experts_total, k = m.experts_active;
    if (!m.parts) {
      if (m.active_b === m.params_b || batch === 1) return m.active_b * 1e9 * p.bits / 8;
      if (!(e && k && e > k)) return null;
      var perExpert = (m.params_b - m.active_b) / (e - k);
      return Math.min(m.params_b, m.active_b - k * perExpert + e * (1 - Math.pow(1 - k / e, batch)) * perExpert) * 1e9 * p.bits / 8;
    }
    var out = 0;
    for (var i = 0; i < m.parts.length; i++) {
      var x = m.parts[i], b = partBits(p, x[0]) / 8 * 1e9;
      if (x[0] === "experts" && batch > 1) {
        if (!(e && k)) return null;
        out += x[1] * (1 - Math.pow(1 - k / e, batch)) * b;
      } else if (x[0] === "embed") out += Math.min(x[1], x[2] * batch) * b;
      else out += x[2] * b;
    }
    return out;
  }

  /* The decode ceiling of `batch` sequences on a device (calc.decode_rates): memory bound, or the tensor rate. */
  function decodeRates(m, d, p, kvSeq, batch, prefill) {
    var read = bytesRead(m, p, batch);
    if (!d.bandwidth_gbs || read === null) return null;
    var memory = batch * d.bandwidth_gbs * 1e9 / (read + kvSeq * batch);
    var compute = prefill !== null && prefill < memory;
    var total = compute ? prefill : memory;
    return { per: total / batch, total: total, bound: compute ? "compute" : "memory bandwidth" };
  }

  function times(d, n) {  // n devices as one (calc.fit._times)
    if (n === 1) return d;
    var tf = {};
    Object.keys(d.tflops || {}).forEach(function (x) { tf[x] = d.tflops[x] * n; });
    return Object.assign({}, d, { memory_gb: d.memory_gb ? d.memory_gb * n : null, gpu_default_gb: d.gpu_default_gb ? d.gpu_default_gb * n : null,
                                  bandwidth_gbs: d.bandwidth_gbs ? d.bandwidth_gbs * n : null, tflops: tf });
  }

  function prefillOf(m, d) {
    var p = ["fp16", "bf16", "fp8", "fp4"].filter(function (x) { return d.tflops && d.tflops[x]; })[0];
    return p ? { tps: d.tflops[p] * 1e12 / (2 * m.active_b * 1e9), precision: p } : null;
  }

  function estimate(m, d, prec, tokens, seqs, kvBits, overhead, hostGbs, devices) {
    var p = precision(prec), n = devices || 1;
    var weights = weightBytes(m, p);
    var kvSeq = kvBytes(m, tokens, kvBits);
    var kv = kvSeq * seqs;
    var over = overhead * (weights + kv);
    var total = weights + kv + over;
    var readOne = bytesRead(m, p, 1);
    var out = { weights_gb: weights / 1e9, kv_gb: kv / 1e9, overhead_gb: over / 1e9, total_gb: total / 1e9,
                fits: null, decode_tps: null, prefill_tps: null, devices_needed: null, split_decode_tps: null,
                offload_gb: null, offload_decode_tps: null, decode_total_tps: null, decode_bound: null,
                kv_per_sequence_gb: kvSeq / 1e9, sequences: seqs, devices: n, split_decode_total_tps: null,
                offload_decode_total_tps: null, better: null, read_gb: readOne === null ? null : readOne / 1e9 };
    if (d) {
      var dn = times(d, n);
      var usable = dn.gpu_default_gb || dn.memory_gb;  // unified memory: the GPU's default share (calc.DeviceSpec.usable_gb)
      if (d.memory_gb) out.fits = total <= usable * GIB;  // a vendor's GB of memory is a GiB (calc.specs.GIB)
      var pre = prefillOf(m, dn);
      if (pre) { out.prefill_tps = pre.tps; out.prefill_precision = pre.precision; }
      var r = decodeRates(m, dn, p, kvSeq, seqs, out.prefill_tps);
      if (r) { out.decode_tps = r.per; out.decode_total_tps = r.total; out.decode_bound = r.bound; }
      if (out.fits === false) {
        var one = d.gpu_default_gb || d.memory_gb;
        out.devices_needed = Math.ceil(total / (one * GIB));
        var maxDevices = d.max_devices || 8;  // calc.SPLIT_LIMIT: one machine, or one 8-device server
        out.can_split = out.devices_needed <= maxDevices;
        var offload = total - usable * GIB;
        out.offload_gb = offload / 1e9;
        if (r) {
          var pre1 = prefillOf(m, d), single = decodeRates(m, d, p, kvSeq, seqs, pre1 ? pre1.tps : null);
          if (out.can_split && single) { out.split_decode_tps = single.per * out.devices_needed; out.split_decode_total_tps = single.total * out.devices_needed; }
          var step = bytesRead(m, p, seqs);
          if (maxDevices > 1 && step !== null) {  // each step streams the offloaded weights it uses once, for the whole batch
            var offRead = Math.min(offload, weights) * step / weights;
            var seconds = (step - offRead + kvSeq * seqs) / (dn.bandwidth_gbs * 1e9) + offRead / ((hostGbs || 76.8) * 1e9);
            out.offload_decode_total_tps = seqs / seconds;
            out.offload_decode_tps = out.offload_decode_total_tps / seqs;
          }
          if (out.split_decode_total_tps && out.offload_decode_total_tps)
            out.better = out.split_decode_total_tps / out.devices_needed > out.offload_decode_total_tps / n ? "split" : "offload";
        }
        out.decode_tps = null;  // the devices cannot hold it
        out.decode_total_tps = null;
      }
    }
    return out;
  }
  window.atlasCalcEstimate = estimate;  // for the test that compares with the Python calculator

  /* Dollars per million tokens and tokens per joule at the ceilings (calc.cost): the hour
   * priced at the reader's rent (else the entry's cloud price) plus the board's TDP at the
   * reader's electricity price; a split model pays for every device. `one` is the estimate
   * for one sequence served alone. */
  function cost(e, one, d, hourly, kwh) {
    var split = e.fits === false, n = split ? (e.devices_needed || 1) : (e.devices || 1);
    if (split && !e.can_split)  // no usual setup holds it: nothing to price
      return { devices: n, hourly_usd: null, watts: null, output_usd_per_m: null, batch_output_usd_per_m: null, input_usd_per_m: null,
               tokens_per_joule: null, batch_tokens_per_joule: null, input_tokens_per_joule: null };
    var oneTps = one.fits === false ? one.split_decode_tps : one.decode_tps;
    var total = split ? e.split_decode_total_tps : e.decode_total_tps;
    var prefill = e.prefill_tps ? e.prefill_tps * n / (e.devices || 1) : null;  // the estimate's prefill is over the reader's devices
    var rent = hourly !== null ? hourly : (d.hourly_usd || null);
    var power = kwh !== null && d.tdp_w ? d.tdp_w * kwh / 1000 : null;
    var perHour = rent !== null || power !== null ? ((rent || 0) + (power || 0)) * n : null;
    var watts = d.tdp_w ? d.tdp_w * n : null;
    function perM(tps) { return perHour !== null && tps ? perHour / (tps * 3600) * 1e6 : null; }
    function perJ(tps) { return watts && tps ? tps / watts : null; }
    return { devices: n, hourly_usd: perHour, watts: watts, output_usd_per_m: perM(oneTps), batch_output_usd_per_m: perM(total),
             input_usd_per_m: perM(prefill), tokens_per_joule: perJ(oneTps), batch_tokens_per_joule: perJ(total),
             input_tokens_per_joule: perJ(prefill) };
  }
  window.atlasCalcCost = cost;

  /* A model the atlas does not hold, from its pasted config.json: the same reading as
   * generator/knowledge/shape.py (a test compares the two). Text is parsed as JSON with a size
   * limit and only numbers are taken from it; nothing of it is written as markup. */
  var CONFIG_MAX_BYTES = 200000, CONFIG_LIMIT = 1e7, CONFIG_MAX_DEPTH = 32;  // shape.MAX_BYTES, LIMIT, MAX_DEPTH
  function nesting(text) {  // the deepest brackets outside strings (shape._depth)
    var depth = 0, top = 0, inStr = false, esc = false;
    for (var i = 0; i < text.length; i++) {
      var ch = text[i];
      if (inStr) { if (esc) esc = false; else if (ch === "\\") esc = true; else if (ch === '"') inStr = false; }
      else if (ch === '"') inStr = true;
      else if (ch === "[" || ch === "{") { depth++; if (depth > top) top = depth; if (top > CONFIG_MAX_DEPTH) return top; }
      else if (ch === "]" || ch === "}") depth--;
    }
    return top;
  }
  function specFromConfig(text, name) {
    if (new Blob([text]).size > CONFIG_MAX_BYTES) throw new Error("that is more than " + CONFIG_MAX_BYTES.toLocaleString("en") + " bytes; a config.json is a few kilobytes");
    if (nesting(text) > CONFIG_MAX_DEPTH) throw new Error("the JSON is nested more than " + CONFIG_MAX_DEPTH + " levels deep; a config.json is a few levels");
    var data;
    try { data = JSON.parse(text); } catch (e) { throw new Error("not valid JSON: " + e.message); }
    if (!data || typeof data !== "object" || Array.isArray(data)) throw new Error("a config.json is a JSON object ({...}), not a list or a single value");
    var cfg = (data.text_config && typeof data.text_config === "object" && !Array.isArray(data.text_config)) ? data.text_config : data;
    var used = [], missing = [];
    function num(keys, required, dflt) {
      for (var i = 0; i < keys.length; i++) {
        var v = cfg[keys[i]];
        if (v === undefined || v === null) continue;
        if (typeof v !== "number" || !isFinite(v) || v !== Math.round(v) || v <= 0 || v > CONFIG_LIMIT)
          throw new Error("\u201c" + keys[i] + "\u201d must be a whole number between 1 and " + CONFIG_LIMIT.toLocaleString("en"));
        if (used.indexOf(keys[i]) < 0) used.push(keys[i]);
        return v;
      }
      if (required) throw new Error("the config has no " + keys.join(" or ") + ", which sizing needs");
      return dflt === undefined ? null : dflt;
    }
    var layers = num(["num_hidden_layers", "n_layers", "num_layers"], true);
    var hidden = num(["hidden_size", "d_model", "dim"], true);
    var heads = num(["num_attention_heads", "n_heads"], true);
    var kvHeads = num(["num_key_value_heads", "n_kv_heads"], false, heads);
    var headDim = num(["head_dim"], false, Math.floor(hidden / heads));
    var vocab = num(["vocab_size"]);
    if (vocab === null) { missing.push("vocab_size: the embedding table is not counted"); vocab = 0; }
    var tied = cfg.tie_word_embeddings !== undefined ? cfg.tie_word_embeddings : data.tie_word_embeddings;
    if (typeof tied === "boolean") used.push("tie_word_embeddings");
    else { tied = false; missing.push("tie_word_embeddings: taken as untied (the output head counted)"); }
    var rank = num(["kv_lora_rank"]), rope = num(["qk_rope_head_dim"]), attention, attn;
    if (rank && rope) {
      attention = "mla";
      var qRank = num(["q_lora_rank"]), nope = num(["qk_nope_head_dim"], false, headDim), vDim = num(["v_head_dim"], false, headDim);
      var q = qRank ? hidden * qRank + qRank * heads * (nope + rope) : hidden * heads * (nope + rope);
      attn = q + hidden * (rank + rope) + rank * heads * (nope + vDim) + heads * vDim * hidden;
    } else {
      attention = kvHeads < heads ? "gqa" : "mha";
      attn = hidden * heads * headDim * 2 + hidden * kvHeads * headDim * 2;
    }
    if (kvHeads > heads) throw new Error("\u201cnum_key_value_heads\u201d is " + kvHeads.toLocaleString("en") + ", more than the " + heads.toLocaleString("en") + " attention heads; KV heads are at most the attention heads");
    var kinds = Array.isArray(cfg.layer_types) ? cfg.layer_types : null;
    if (kinds) {
      if (kinds.length !== layers || !kinds.every(function (k) { return typeof k === "string"; }))
        throw new Error("\u201clayer_types\u201d lists " + kinds.length + " entries for " + layers + " layers");
      used.push("layer_types");
    }
    var windowTokens = num(["sliding_window", "attention_chunk_size"]);
    var local = 0, linear = 0;
    if (kinds) {
      local = kinds.filter(function (k) { return k === "sliding_attention" || k === "chunked_attention"; }).length;
      linear = kinds.filter(function (k) { return k === "linear_attention" || k === "mamba"; }).length;
    } else if (windowTokens && cfg.use_sliding_window !== false) local = layers;
    var interval = num(["full_attention_interval"]);
    if (!kinds && interval) linear = layers - Math.floor(layers / interval);
    var linHeads = num(["linear_num_value_heads"]), linK = num(["linear_key_head_dim"]), linV = num(["linear_value_head_dim"]);
    if (linear) {
      attention = "hybrid-linear";
      if (!(linHeads && linK && linV)) missing.push("linear-attention state widths: the recurrent state is not counted");
    }
    if (local && !windowTokens) { missing.push("sliding_window: local layers counted as full"); local = 0; }
    var experts = num(["n_routed_experts", "num_local_experts", "num_experts"]);
    var perTok = num(["num_experts_per_tok", "moe_topk"]);
    var inter = num(["intermediate_size", "ffn_dim"]);
    var moeInter = num(["moe_intermediate_size"], false, inter);
    var shared = num(["n_shared_experts", "num_shared_experts"], false, 0);
    var sharedInter = num(["shared_expert_intermediate_size"]);
    if (sharedInter && !shared) shared = 1;  // Qwen2-MoE names one shared expert by its width
    var denseLayers = layers;
    if (experts) {
      if (!(perTok && moeInter)) throw new Error("the config names experts but not num_experts_per_tok and the expert width");
      var firstDense = num(["first_k_dense_replace"], false, 0);
      var step = num(["interleave_moe_layer_step", "decoder_sparse_step"], false, 1), moeLayers = 0;
      if (step > 1) { for (var i = firstDense; i < layers; i++) if ((i - firstDense + 1) % step === 0) moeLayers++; }
      else moeLayers = layers - firstDense;
      denseLayers = layers - moeLayers;
      if (denseLayers) inter = num(["intermediate_size_mlp"], false, inter);  // Llama 4's dense layers
    }
    if (denseLayers && !inter) throw new Error("the config has no intermediate_size, the width of the MLP");
    var linKHeads = num(["linear_num_key_heads"], false, linHeads);
    var conv = num(["linear_conv_kernel_dim", "conv_kernel"]);
    var mla = attention === "mla";
    var dims = { layers: layers, hidden: hidden, heads: heads, kv_heads: kvHeads, head_dim: headDim, vocab: vocab || null, tied: tied,
                 q_lora_rank: mla ? num(["q_lora_rank"]) : null, kv_lora_rank: mla ? rank : null, rope_dim: mla ? rope : null,
                 nope_dim: mla ? num(["qk_nope_head_dim"]) : null, v_head_dim: mla ? num(["v_head_dim"]) : null,
                 attn_gate: cfg.attn_output_gate === true, linear_layers: linear,
                 lin_k_heads: linear ? linKHeads : null, lin_v_heads: linear ? linHeads : null, lin_k_dim: linear ? linK : null, lin_v_dim: linear ? linV : null,
                 dense_layers: experts ? denseLayers : null, inter: inter, experts: experts, per_tok: perTok, moe_inter: moeInter,
                 shared: shared, shared_inter: sharedInter, shared_total: !!(sharedInter && shared === 1) };
    var sp = splitParts(dims);
    if (!sp.parts) throw new Error("the config lacks " + sp.missing.join(", ") + ", which sizing needs");
    var total = 0, active = 0;
    sp.parts.forEach(function (x) { total += x[1]; active += x[0] === "embed" ? x[1] : x[2]; });
    var context = num(["max_position_embeddings", "max_seq_len", "seq_length"]);
    var prec = quantization(data.quantization_config, used, missing);
    return {
      spec: { id: "custom", title: name, params_b: total, active_b: active, layers: layers, kv_heads: kvHeads, head_dim: headDim,
              attention: attention, kv_lora_rank: mla ? rank : null, rope_head_dim: mla ? rope : null,
              full_attention_layers: linear ? layers - linear : null, context_length: context, kv_bytes_16: null,
              sliding_window: local ? windowTokens : null, sliding_layers: local || null,
              linear_heads: linear ? linHeads : null, linear_key_dim: linear ? linK : null, linear_value_dim: linear ? linV : null,
              experts_total: experts, experts_active: perTok, linear_key_heads: linear ? linKHeads : null, linear_conv: linear ? conv : null,
              parts: sp.parts, url: null },
      used: used, missing: missing, params_total_b: total, params_active_b: active, precision: prec };
  }

  /* A model's parts from its widths (calc.parts.split): [name, billions held, billions one token reads]. */
  function splitParts(d) {
    var h = d.hidden, attn;
    if (d.kv_lora_rank && d.rope_dim) {
      var nope = d.nope_dim || d.head_dim, v = d.v_head_dim || d.head_dim;
      var q = d.q_lora_rank ? h * d.q_lora_rank + d.q_lora_rank * d.heads * (nope + d.rope_dim) : h * d.heads * (nope + d.rope_dim);
      attn = q + h * (d.kv_lora_rank + d.rope_dim) + d.kv_lora_rank * d.heads * (nope + v) + d.heads * v * h;
    } else if (d.heads && d.head_dim && d.kv_heads) {
      attn = h * d.heads * d.head_dim * (d.attn_gate ? 2 : 1) + 2 * h * d.kv_heads * d.head_dim + d.heads * d.head_dim * h;
    } else return { parts: null, missing: ["the attention widths"] };
    var out = [], missing = [];
    if (d.vocab) {
      if (d.tied) out.push(["head", d.vocab * h / 1e9, d.vocab * h / 1e9]);
      else out.push(["embed", d.vocab * h / 1e9, h / 1e9], ["head", d.vocab * h / 1e9, d.vocab * h / 1e9]);
    } else missing.push("vocab_size");
    var lin = attn;
    if (d.lin_k_heads && d.lin_v_heads && d.lin_k_dim && d.lin_v_dim) {
      var k = d.lin_k_heads * d.lin_k_dim, vv = d.lin_v_heads * d.lin_v_dim;
      lin = h * (2 * k + 2 * vv) + h * 2 * d.lin_v_heads + vv * h;
    }
    var a = (d.layers - d.linear_layers) * attn + d.linear_layers * lin;
    out.push(["attention", a / 1e9, a / 1e9]);
    var moeLayers = d.layers - (d.dense_layers !== null ? d.dense_layers : (d.experts ? 0 : d.layers)), dense = d.layers - moeLayers;
    if (dense) { if (d.inter) out.push(["mlp", dense * 3 * h * d.inter / 1e9, dense * 3 * h * d.inter / 1e9]); else missing.push("intermediate_size"); }
    if (moeLayers) {
      if (d.moe_inter && d.experts && d.per_tok) {
        var ex = moeLayers * d.experts * 3 * h * d.moe_inter;
        out.push(["experts", ex / 1e9, ex * d.per_tok / d.experts / 1e9], ["router", moeLayers * h * d.experts / 1e9, moeLayers * h * d.experts / 1e9]);
      } else missing.push("moe_intermediate_size and the expert counts");
      if (d.shared) {
        var w = d.shared_inter || d.moe_inter;
        if (w) { var sh = moeLayers * 3 * h * w * (d.shared_total ? 1 : d.shared); out.push(["shared", sh / 1e9, sh / 1e9]); }
        else missing.push("the shared expert's width");
      }
    }
    return { parts: out, missing: missing };
  }

  /* A config's quantization_config as a precision (shape.quantization). */
  var QUANT_BITS = { mxfp4: 4.25, fp8: 8, nvfp4: 4.5, modelopt: 4.5 };
  var MODULE_PARTS = [["embed_tokens", "embed"], ["lm_head", "head"], ["self_attn", "attention"], ["linear_attn", "attention"],
                      ["router", "router"], ["mlp.gate", "router"], ["shared_expert", "shared"], ["experts", "experts"]];
  function quantization(q, used, missing) {
    if (q === undefined || q === null) return null;
    if (typeof q !== "object" || Array.isArray(q)) throw new Error("\u201cquantization_config\u201d must be an object");
    var method = q.quant_method;
    if (typeof method !== "string" || method.length > 40) throw new Error("\u201cquantization_config\u201d has no quant_method (a short name such as mxfp4, fp8, awq, gptq)");
    method = method.toLowerCase();
    var bits = q.bits !== undefined ? q.bits : q.w_bit;
    if (bits !== undefined && bits !== null && (typeof bits !== "number" || !(bits >= 1 && bits <= 16))) throw new Error("\u201cquantization_config.bits\u201d must be between 1 and 16");
    var group = q.group_size !== undefined ? q.group_size : q.q_group_size;
    if (group !== undefined && group !== null && (typeof group !== "number" || group !== Math.round(group) || !(group === -1 || (group >= 1 && group <= CONFIG_LIMIT)))) throw new Error("\u201cquantization_config.group_size\u201d must be a whole number (or -1)");
    var b;
    if (method in QUANT_BITS) b = QUANT_BITS[method];
    else if (bits !== undefined && bits !== null) b = bits + (group && group > 0 ? 16 / group : 0);
    else { missing.push("quantization_config: \u2018" + method + "\u2019 without bits, so the weights are sized at 16 bits"); return null; }
    var keep = { embed: 16, head: 16, router: 16 };
    var names = q.modules_to_not_convert || q.ignore || q.ignored_layers || [];
    if (!Array.isArray(names) || names.length > 10000 || !names.every(function (x) { return typeof x === "string" && x.length < 300; }))
      throw new Error("\u201cmodules_to_not_convert\u201d must be a list of module names");
    names.forEach(function (n) { for (var i = 0; i < MODULE_PARTS.length; i++) if (n.indexOf(MODULE_PARTS[i][0]) >= 0) { keep[MODULE_PARTS[i][1]] = 16; break; } });
    used.push("quantization_config");
    return { bits: b, parts: keep, label: method + " as the config says (" + b + " bits)" };
  }
  window.atlasSpecFromConfig = specFromConfig;  // for the test that compares with the Python reading

  function number(value, name, range) {
    var raw = String(value).trim();
    if (raw === "") throw new Error(name + " is empty: give a number between " + range[0] + " and " + range[1].toLocaleString("en"));
    var x = Number(raw);
    if (!isFinite(x)) throw new Error(name + " must be a number, not \u201c" + raw + "\u201d");
    if (x <= 0) throw new Error(name + " must be greater than zero");
    if (x < range[0] || x > range[1]) throw new Error(name + " = " + x.toLocaleString("en") + " is outside the range this calculator accepts (" + range[0] + " to " + range[1].toLocaleString("en") + ")");
    return x;
  }

  /* Of this project's measured points for a model on a device, those whose length (the
   * decode context or the prefill prompt) is nearest the reader's tokens by ratio (a tie goes
   * to the shorter) and of those the fastest, as calc._nearest_fastest does. */
  function nearestFastest(pts, modelId, deviceId, key, tokens) {
    pts = (pts || []).filter(function (p) { return p.model === modelId && p.device === deviceId; });
    if (!pts.length) return null;
    function dist(p) { return Math.round(Math.abs(Math.log(p[key] / tokens)) * 1e9) / 1e9; }
    return pts.reduce(function (best, p) {
      if (dist(p) !== dist(best)) return dist(p) < dist(best) ? p : best;
      if (p[key] !== best[key]) return p[key] < best[key] ? p : best;
      return p.tokens_per_s > best.tokens_per_s ? p : best;
    });
  }
  /* Single-sequence decode (calc.measured_for) and prefill (calc.prefill_for). */
  function measuredFor(measured, modelId, deviceId, tokens) { return nearestFastest(measured && measured.points, modelId, deviceId, "context", tokens); }
  function prefillFor(measured, modelId, deviceId, tokens) { return nearestFastest(measured && measured.prefill, modelId, deviceId, "prompt", tokens); }
  window.atlasCalcMeasuredFor = measuredFor;

  /* Expected speed from published measurements, as calc.calibrate.predict works it out: rows
   * of this device, model and format (measured); else the engine with most rows on this kind of
   * device, its rows of this format if there are min_rows, else all (calibrated); else that
   * engine on the vendor's other devices, band widened; else null (ceiling only). A row is
   * [device, model, format key, engine, backend, device family, ratio, source number]. */
  function formatKey(label) { var k = String(label || "").toLowerCase(); return k.indexOf("gguf ") === 0 ? k.slice(5) : k; }
  function median(xs) { var a = xs.slice().sort(function (x, y) { return x - y; }), n = a.length; return n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2; }
  function uniq(xs) { return Array.from(new Set(xs)).sort(); }
  function ratioBand(rows, X) {  // calibrate.band: widened when thin (few rows, or all from one source)
    var xs = rows.map(function (r) { return r[6]; });
    var nsrc = uniq(rows.map(function (r) { return r[7]; })).length;
    var lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs), thin = xs.length < X.min_rows || nsrc < 2;
    if (thin) { lo *= 1 - X.widen; hi *= 1 + X.widen; }
    return { ratio: Math.min(1, median(xs)), low: Math.min(1, lo), high: Math.min(1, hi), n: xs.length, thin: thin,
             why: xs.length < X.min_rows ? "too few for a narrow band" : "all from one source, so the band is widened" };
  }
  function most(rows) {
    var counts = {};
    rows.forEach(function (r) { var k = r[3] + "\u0000" + r[4]; counts[k] = (counts[k] || 0) + 1; });
    return Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a] || (a < b ? -1 : a > b ? 1 : 0); })[0].split("\u0000");
  }
  function familyLabel(X, eb, where) { return (X.engines[eb[0]] || eb[0]) + " (" + (X.backends[eb[1]] || eb[1]) + ") on " + where; }
  /* Where a kind of device has nothing of one request on one chip (TPUs, Trainium, Gaudi), its
   * runs at scale (split over chips, or many requests at once) calibrate it, the band widened
   * again and the basis saying so, before the vendor's other kinds of device: calibrate.expected's
   * second step. */
  function predict(X, kind, modelId, deviceId, label, engine) {
    var dev = X && X.devices[String(deviceId).split("@")[0]];
    if (!dev) return null;
    var got = predictFrom(X, X.rows[kind], dev, modelId, deviceId, label, engine);
    if ((got && !got.elsewhere) || !X.scale) return got;
    var own = predictFrom(X, X.scale[kind].filter(function (r) { return r[5] === dev.family; }), dev, modelId, deviceId, label, engine);
    if (!own) return got;
    got = own;
    var b = got.band;
    return { band: { ratio: b.ratio, low: b.low * (1 - X.widen), high: Math.min(1, b.high * (1 + X.widen)), n: b.n, thin: b.thin, why: b.why },
             basis: "calibrated", text: got.text.replace("measured: ", "calibrated from ") + "; each ran split over several chips or with several " +
             "requests at once, none as one request on one chip, so the band is widened" };
  }
  function predictFrom(X, rowsOfKind, dev, modelId, deviceId, label, engine) {
    var all = rowsOfKind.filter(function (r) { return !engine || r[3] === engine; });
    var pts = all.filter(function (r) { return !dev.backends || dev.backends.indexOf(r[4]) >= 0; });
    var fk = formatKey(label), base = String(deviceId).split("@")[0], s = function (n) { return n === 1 ? "" : "s"; };
    var own = pts.filter(function (r) { return r[0] === base && r[1] === modelId && r[2] === fk; });
    var eb, b;
    if (own.length) {
      eb = most(own);  // the engine of the most rows, on every backend it ran (calibrate.predict's first rule)
      var mine = own.filter(function (r) { return r[3] === eb[0]; });
      var backs = uniq(mine.map(function (r) { return r[4]; }));
      b = ratioBand(mine, X);
      return { band: b, basis: "measured", text: "measured: " + b.n + " published run" + s(b.n) + " of this model and format on this device with " +
               (X.engines[eb[0]] || eb[0]) + " (" + backs.map(function (x) { return X.backends[x] || x; }).join(" and ") + ")" + (b.thin ? ", " + b.why : "") };
    }
    var same = pts.filter(function (r) { return r[5] === dev.family; });
    if (same.length) {
      eb = most(same);
      var rows = same.filter(function (r) { return r[3] === eb[0] && r[4] === eb[1]; });
      var fmtRows = rows.filter(function (r) { return r[2] === fk; });
      if (fmtRows.length >= X.min_rows) {
        b = ratioBand(fmtRows, X);
        return { band: b, basis: "calibrated", text: "calibrated from " + b.n + " measurements of " + label + " with " + familyLabel(X, eb, dev.family) + (b.thin ? ": " + b.why : "") };
      }
      b = ratioBand(rows, X);
      return { band: b, basis: "calibrated", text: "calibrated from " + b.n + " measurement" + s(b.n) + " of " + familyLabel(X, eb, dev.family) + (b.thin ? ": " + b.why : "") };
    }
    var kin = pts.filter(function (r) { return (X.devices[r[0]] || {}).vendor === dev.vendor; });
    if (!kin.length) return null;
    eb = most(kin);
    b = ratioBand(kin.filter(function (r) { return r[3] === eb[0] && r[4] === eb[1]; }), X);
    b = { ratio: b.ratio, low: b.low * (1 - X.widen), high: Math.min(1, b.high * (1 + X.widen)), n: b.n, thin: b.thin, why: b.why };
    return { band: b, basis: "calibrated", text: "calibrated from " + b.n + " measurement" + s(b.n) + " of " + familyLabel(X, eb, "other " + dev.vendor + " devices") +
             ": nothing measured on " + dev.family + ", so the band is wide", elsewhere: true };
  }
  window.atlasCalcPredict = predict;

  var PART_LABELS = { embed: "embedding table", attention: "attention", mlp: "dense MLP", experts: "routed experts", shared: "shared experts", router: "router", head: "output head" };  // calc.parts.PART_LABELS
  function fmt(x, digits) { return x.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits }); }

  function mount() {
    var root = document.getElementById("atlas-calc");
    if (!root || !root.dataset.calc || root.dataset.mounted) return;
    root.dataset.mounted = "1";
    var data = JSON.parse(root.dataset.calc);
    var q = new URLSearchParams(location.search);
    function field(label, input) { return el("label", { class: "atlas-calc__field" }, [el("span", { text: label }), input]); }
    // Models grouped by developer (families read together), and a box that finds one by
    // name or alias: 45+ models are too many for one flat list on a phone.
    var model = el("select", { id: "calc-model" });
    var byDev = {};
    data.models.forEach(function (m) { (byDev[m.developer || "Other"] = byDev[m.developer || "Other"] || []).push(m); });
    Object.keys(byDev).sort(function (a, b) { return a.localeCompare(b); }).forEach(function (dev) {
      var group = el("optgroup", { label: dev });
      byDev[dev].sort(function (a, b) { return a.title.localeCompare(b.title, "en", { numeric: true }); })
        .forEach(function (m) { group.appendChild(el("option", { value: m.id, text: m.title })); });
      model.appendChild(group);
    });
    var modelNames = el("datalist", { id: "calc-model-names" });
    var nameToId = {};
    data.models.forEach(function (m) {
      [m.title].concat(m.aliases || []).forEach(function (n) {
        if (!(n.toLowerCase() in nameToId)) { nameToId[n.toLowerCase()] = m.id; modelNames.appendChild(el("option", { value: n })); }
      });
    });
    var modelFind = el("input", { id: "calc-model-find", type: "search", list: "calc-model-names", placeholder: "e.g. gpt-oss-120b", autocomplete: "off" });
    modelFind.addEventListener("input", function () {
      var id = nameToId[modelFind.value.trim().toLowerCase()];
      if (id && id !== model.value) { model.value = id; model.dispatchEvent(new Event("change")); }
    });
    var format = el("select", { id: "calc-format" });
    var bitsOf = {}, meaningOf = {}, runsOn = {}, familyOf = {}, partsOf = {}, labelOf = {}, partsRuleOf = {};
    data.formats.forEach(function (g) {
      var group = el("optgroup", { label: g.family });
      g.options.forEach(function (f) {
        bitsOf[f.id] = f.bits;
        labelOf[f.id] = f.label;  // expected speed matches published rows on it (calibrate.format_key)
        partsOf[f.id] = f.parts || {};  // parts it keeps at other bits (calc.formats.precisions)
        runsOn[f.id] = g.runs_on || null;  // calc.format_platforms: only devices of these platforms run it
        familyOf[f.id] = g.family;
        var said = f.meaning.charAt(0).toUpperCase() + f.meaning.slice(1);
        meaningOf[f.id] = f.label + ": " + f.bits + " bits per weight. " + said + (/[.!?)]$/.test(said) ? "" : ".");
        partsRuleOf[f.id] = f.parts_note || "";  // said with the notes on the figures
        group.appendChild(el("option", { value: f.id, text: f.label + " \u2014 " + f.bits + " bits" }));
      });
      format.appendChild(group);
    });
    format.appendChild(el("option", { value: "custom", text: "Other: bits per weight" }));
    var meaning = el("p", { class: "atlas-calc__meaning" });
    var bits = el("input", { id: "calc-bits", type: "text", inputmode: "decimal", value: "16", size: "5" });
    var context = el("input", { id: "calc-context", type: "text", inputmode: "numeric", value: q.get("context") || "4096", size: "8" });
    var seqs = el("input", { id: "calc-seqs", type: "text", inputmode: "numeric", value: q.get("n") || "1", size: "6" });
    var owned = el("input", { id: "calc-devices", type: "text", inputmode: "numeric", value: q.get("devices") || "1", size: "4" });
    // Device groups, as the hardware index has them; the choice stays in the address.
    var SEGMENTS = [["", "All devices"]].concat(data.segments || []);  // ids and labels from the build (render/labels.SEGMENTS)
    var where = el("select", { id: "calc-where" }, SEGMENTS.map(function (s2) { return el("option", { value: s2[0], text: s2[1] }); }));
    if (SEGMENTS.some(function (s2) { return s2[0] === q.get("where"); })) where.value = q.get("where");
    var X = data.expected;
    var engineSel = el("select", { id: "calc-engine" }, [el("option", { value: "", text: "the best-measured one" })].concat(
      Object.keys((X && X.engines) || {}).map(function (k) { return el("option", { value: k, text: X.engines[k] }); })));
    if (q.get("engine") && X && X.engines[q.get("engine")]) engineSel.value = q.get("engine");
    var kvBits = el("select", { id: "calc-kv" }, [el("option", { value: "16", text: "16-bit" }), el("option", { value: "8", text: "8-bit" }), el("option", { value: "4", text: "4-bit" })]);
    var defaults = data["default"] || {};  // a model and format that fit common hardware
    if (defaults.model && data.models.some(function (x) { return x.id === defaults.model; })) model.value = defaults.model;
    if (defaults.format && defaults.format in bitsOf) format.value = defaults.format;
    if (q.get("model") && data.models.some(function (x) { return x.id === q.get("model"); })) model.value = q.get("model");
    function released(id) { var x = data.models.filter(function (mm) { return mm.id === id; })[0]; return x && x.checkpoint_format in bitsOf ? x.checkpoint_format : null; }
    if (q.get("model") && !q.get("format") && !q.get("bits") && released(model.value)) format.value = released(model.value);  // as the developer released it
    if (q.get("format") && q.get("format") in bitsOf) format.value = q.get("format");
    model.addEventListener("change", function () { var r = released(model.value); if (r) format.value = r; });
    if (q.get("bits")) { format.value = "custom"; bits.value = q.get("bits"); }
    var pasteBox = el("textarea", { id: "calc-config", rows: "6", spellcheck: "false", autocomplete: "off",
                                    placeholder: "{ \"num_hidden_layers\": 32, \"hidden_size\": 4096, ... }" });
    var pasteInfo = el("p", { class: "atlas-calc__config-info", id: "calc-config-info", "aria-live": "polite" });
    var paste = el("details", { class: "atlas-calc__paste" }, [
      el("summary", { text: "A model not in the list? Paste its config.json" }),
      el("p", { text: "Copy config.json from the model\u2019s Hugging Face page and paste it here: the calculator reads its shape, counts the parameters and sizes it on every device like any model in the list. The text stays in this page; it is not sent anywhere or kept in the address." }),
      el("label", { class: "atlas-calc__field" }, [el("span", { text: "config.json" }), pasteBox]), pasteInfo]);
    var pasted = null, pastedPrecision = null;
    function readPaste() {
      pasteInfo.textContent = "";
      var old = model.querySelector("option[value='custom']");
      if (!pasteBox.value.trim()) { if (old) { old.remove(); pasted = null; } return; }
      try {
        var r = specFromConfig(pasteBox.value, "Your model (pasted config)");
        pasted = r.spec;
        pastedPrecision = r.precision;
        var opt = format.querySelector("option[value='config']");
        if (r.precision) {
          if (!opt) { opt = el("option", { value: "config" }); format.insertBefore(opt, format.firstChild); }
          opt.textContent = "As its config says: " + r.precision.label;
          bitsOf.config = r.precision.bits; partsOf.config = r.precision.parts;
          meaningOf.config = "From the pasted config's quantization_config: " + r.precision.bits + " bits, with " + Object.keys(r.precision.parts).sort().join(", ") + " kept in 16 bits.";
          format.value = "config";
        } else if (opt) { opt.remove(); if (format.value === "config") format.value = "fp16" in bitsOf ? "fp16" : format.options[0].value; }
        if (!old) { old = el("option", { value: "custom" }); model.insertBefore(old, model.firstChild); }
        old.textContent = "Your model (pasted config): " + fmt(r.params_total_b, 1) + "B";
        model.value = "custom";
        pasteInfo.textContent = "Counted from the shape: " + fmt(r.params_total_b, 2) + "B parameters" +
          (r.params_active_b < r.params_total_b ? ", " + fmt(r.params_active_b, 2) + "B active" : "") + ", " + r.spec.layers + " layers, " +
          (r.spec.attention === "mla" ? "latent attention (MLA)" : r.spec.attention === "hybrid-linear" ? "hybrid linear attention" : "attention with " + r.spec.kv_heads + " KV heads") +
          (r.spec.sliding_layers ? ", " + r.spec.sliding_layers + " layers windowed at " + r.spec.sliding_window.toLocaleString("en") + " tokens" : "") +
          ". Fields read: " + r.used.join(", ") + "." + (r.missing.length ? " Not in the config: " + r.missing.join("; ") + "." : "");
      } catch (e) {
        if (old) old.remove();
        pasted = null;
        pasteInfo.textContent = "";
        message.textContent = "Pasted config: " + e.message.charAt(0).toUpperCase() + e.message.slice(1) + ".";
        throw e;
      }
    }
    function optional(id, label, key) {
      return el("input", { id: id, type: "text", inputmode: "decimal", value: q.get(key) || "", size: "7", placeholder: label });
    }
    var price = optional("calc-price", "e.g. 2.50", "price"), kwh = optional("calc-kwh", "e.g. 0.30", "kwh");
    // A price of the reader's own for one device (as atlas fit --price DEVICE=USD): one input per device listed,
    // made once and kept, so typing into one never loses its focus when the table is drawn again.
    var ownPrice = {};
    (q.get("prices") || "").split(",").forEach(function (kv) { var i = kv.lastIndexOf(":"); if (i > 0) ownPrice[kv.slice(0, i)] = kv.slice(i + 1); });
    var priceInputs = {}, priceListed = "";
    var priceList = el("div", { class: "atlas-calc__form atlas-calc__pricelist" });
    var pricesBox = el("details", { class: "atlas-calc__prices", id: "calc-prices" }, [
      el("summary", { text: "A price of your own for one device" }),
      el("p", { text: "USD per device-hour, for the devices listed below; it takes the place of the entry\u2019s cloud price and of the price for every device above." }), priceList]);
    if (Object.keys(ownPrice).length) pricesBox.open = true;
    function priceInput(d) {
      if (!priceInputs[d.id]) {
        var input = el("input", { type: "text", inputmode: "decimal", size: "7", "data-device": d.id, value: ownPrice[d.id] || "",
                                  placeholder: d.hourly_usd ? String(d.hourly_usd) : "USD" });
        input.addEventListener("input", update);
        priceInputs[d.id] = field(d.title, input);
      }
      return priceInputs[d.id];
    }
    function listPrices(devices) {  // redrawn only when the devices listed change
      var key = devices.map(function (d) { return d.id; }).join(" ");
      if (key !== priceListed) { priceListed = key; priceList.replaceChildren.apply(priceList, devices.map(priceInput)); }
    }

    var devMem = optional("calc-dev-mem", "GB", "dev_mem"), devBw = optional("calc-dev-bw", "GB/s", "dev_bw");
    var devTflops = optional("calc-dev-tflops", "TFLOPS", "dev_tflops"), devWatts = optional("calc-dev-watts", "W", "dev_w");
    var devUnified = el("input", { id: "calc-dev-unified", type: "checkbox" });
    if (q.get("dev_unified") === "1") devUnified.checked = true;
    var own = el("details", { class: "atlas-calc__own", id: "calc-own" }, [
      el("summary", { text: "A device not in the list? Type its figures" }),
      el("p", { text: "Memory and memory bandwidth are enough for fit and decode; dense 16-bit tensor TFLOPS add the prefill ceiling and board power adds tokens per joule. Your device is the first row of the table." }),
      el("div", { class: "atlas-calc__form" }, [field("Memory, GB", devMem), field("Memory bandwidth, GB/s", devBw),
        field("Dense FP16 TFLOPS (optional)", devTflops), field("Board power, W (optional)", devWatts),
        el("label", { class: "atlas-calc__field atlas-calc__check" }, [devUnified, el("span", { text: "Unified memory (Apple silicon, Ryzen AI Max, DGX Spark): the GPU may use " + Math.round((data.unified_share || 0.75) * 100) + "% by default" })])])]);
    if (q.get("dev_mem") || q.get("dev_bw")) own.open = true;
    var message = el("p", { class: "atlas-calc__error", role: "alert" });
    var summary = el("p", { class: "atlas-calc__summary", "aria-live": "polite" });
    var verdict = el("div", { class: "atlas-calc__verdict", id: "calc-verdict" });
    var table = el("table", { class: "atlas-calc__table", id: "calc-table" });
    var notes = el("ul", { class: "atlas-calc__notes" });
    var notesBox = el("details", { class: "atlas-calc__notesbox", id: "calc-notes" }, [el("summary"), notes]);
    var FIRST_ROWS = 8, showAll = q.get("rows") === "all";
    var more = el("button", { type: "button", class: "md-button atlas-calc__more", id: "calc-more", "aria-controls": "calc-table" });
    more.addEventListener("click", function () { showAll = !showAll; update(); });
    // Run it: the command that starts an engine for the answer on one device of the table (atlas-launch.js).
    var L = data.launch || { engines: {} };
    var runOn = el("select", { id: "calc-run-on" });
    var runOrder = (L.order || Object.keys(L.engines)).filter(function (k) { return L.engines[k]; });
    var runWith = el("select", { id: "calc-run-with" }, runOrder.map(function (k) { return el("option", { value: k, text: L.engines[k].title }); }));
    var runChosen = false;  // until the reader picks an engine, Run it takes the first in the list that loads the format
    if (q.get("run_with") && L.engines[q.get("run_with")]) { runWith.value = q.get("run_with"); runChosen = true; }
    else if (q.get("engine") && L.engines[q.get("engine")]) { runWith.value = q.get("engine"); runChosen = true; }
    var runOut = el("div", { class: "atlas-calc__runout", "aria-live": "polite" });
    var runBox = el("section", { class: "atlas-calc__run", id: "calc-run" }, [
      el("h2", { id: "run-it", text: "Run it" }),
      el("p", { text: "A server started for this answer\u2019s context, sequences, devices and KV cache, in flags its engine\u2019s pinned release accepts." }),
      el("div", { class: "atlas-calc__form" }, [field("On", runOn), field("With", runWith)]), runOut]);
    var runCtx = null;
    if (!Object.keys(L.engines).length) runBox.hidden = true;  // a knowledge base without engines' flags: no command to write
    var legend = el("p", { class: "atlas-calc__legend" });
    root.replaceChildren(el("div", { class: "atlas-calc__form" }, [
      field("Find a model", modelFind), modelNames, field("Model", model), field("Weight format", format), field("Bits per weight", bits),
      field("Tokens per sequence", context), field("Sequences at once", seqs), field("KV cache", kvBits), field("Devices", where),
      field("How many you have", owned), field("Engine, for expected speed", engineSel),
      field("Price per device-hour, USD (optional)", price), field("Electricity per kWh, USD (optional)", kwh)]),
      el("div", { class: "atlas-calc__extras" }, [pricesBox, paste, own]), meaning, message, verdict, summary,
      legend, el("div", { class: "atlas-calc__scroll" }, [table]), el("div", { class: "atlas-calc__after" }, [more, notesBox]), runBox);

    function daysSince(day) { return Math.max(0, Math.floor((Date.now() - Date.parse(day + "T00:00:00Z")) / 864e5)); }
    function usdOf(x) { return "$" + fmt(x, x < 1 ? 3 : 2); }
    function rankCost(rows, s) {  // calc.cost.rank over the rows that hold it and have a price (as atlas fit's ranking)
      var items = [];
      rows.forEach(function (r) {
        var e = r.e, c = r.c, one = r.one || e;
        if (c.hourly_usd === null || (e.fits === false && !e.can_split)) return;
        var ceiling = s === 1 ? (one.fits !== false ? one.decode_tps : one.split_decode_tps) : (e.fits !== false ? e.decode_total_tps : e.split_decode_total_tps);
        var expected = s === 1 && r.xd && r.xd.tps && one.fits !== false ? r.xd : null;
        if (ceiling > 0 && c.hourly_usd > 0) items.push({ r: r, p: c.hourly_usd, ceiling: ceiling, expected: expected });
      });
      // one basis for all: expected speeds where every device has one, else every ceiling (as atlas fit)
      var every = items.length && items.every(function (x) { return x.expected; });
      items.forEach(function (x) {
        x.t = every ? x.expected.tps : x.ceiling; x.basis = every ? x.expected.basis : "ceiling";
        x.m = x.p / (x.t * 3600) * 1e6;
      });
      items.sort(function (a, b) { return a.m - b.m || (a.r.d.id < b.r.d.id ? -1 : 1); });
      items.forEach(function (x, i) { x.flip = i ? items[i - 1].p * x.t / items[i - 1].t : null; });
      return items;
    }
    function say(rows, s, hourly, leftOutText) {  // the answer first: what holds it, the fastest and the cheapest
      var listed = rows;
      var fit = listed.filter(function (r) { return r.e.fits; });
      var lines = [];
      lines.push(el("p", { class: "atlas-calc__verdict-fit", text: fit.length ? fit.length + " of the " + listed.length + " devices listed hold it" +
        (listed.length - fit.length ? "; the others need it split or offloaded (their rows say how)." : ".") :
        "None of the " + listed.length + " devices listed holds it whole: see each row for a split over several or an offload." }));
      if (leftOutText) lines.push(el("p", { class: "atlas-calc__leftout", text: leftOutText }));
      // the fastest on one basis for all (as the cost ranking): the speed to expect where every device that holds it has one, else the ceiling
      var quick = fit.filter(function (r) { return r.one && r.one.decode_tps; });
      var byExpected = quick.length && quick.every(function (r) { return r.xd && r.xd.tps; });
      var fastest = quick.sort(function (a, b) { return byExpected ? b.xd.tps - a.xd.tps : b.one.decode_tps - a.one.decode_tps; })[0];
      if (fastest) lines.push(el("p", {}, [el("strong", { text: "Fastest: " }), document.createTextNode(fastest.d.title + ", " +
        (byExpected ? "expect about " + fmt(fastest.xd.tps, 0) + " tok/s (" + fastest.xd.basis + ") under a ceiling of " + fmt(fastest.one.decode_tps, 0) + " tok/s for one sequence."
          : "at most " + fmt(fastest.one.decode_tps, 0) + " tok/s for one sequence (ceilings compared: not every device here has a calibrated speed)."))]));
      var ranked = rankCost(rows, s);
      if (ranked.length) {
        var top = ranked[0], what = s === 1 ? "one sequence" : "all " + s.toLocaleString("en") + " sequences";
        function age(x) {
          return x.r.own ? "your price" : x.r.d.hourly_checked ? "price read " + x.r.d.hourly_checked + ", " + daysSince(x.r.d.hourly_checked) + " days ago" : "price undated";
        }
        lines.push(el("p", {}, [el("strong", { text: "Cheapest per million output tokens: " }), document.createTextNode(top.r.d.title + (top.r.c.devices > 1 ? " (" + top.r.c.devices + " of them)" : "") + ", " + usdOf(top.m) + " for " + what +
          " (" + usdOf(top.p) + " an hour; speed: " + top.basis + "; " + age(top) + ")." )]));
        if (ranked.length > 1) {
          var ol = el("ol", { class: "atlas-calc__rank", id: "calc-rank" }, ranked.map(function (x, i) {
            return el("li", { "data-device": x.r.d.id, text: x.r.d.title + (x.r.c.devices > 1 ? " \u00d7 " + x.r.c.devices : "") + ": " + usdOf(x.m) + " per million, at " + usdOf(x.p) + "/h and " + fmt(x.t, 0) + " tok/s (" + x.basis + "; " + age(x) + ")" +
              (x.flip !== null ? "; passes " + ranked[i - 1].r.d.title + " under " + usdOf(x.flip) + "/h" : "") });
          }));
          lines.push(el("details", { class: "atlas-calc__rankbox" }, [el("summary", { text: "All " + ranked.length + " priced devices by cost per million tokens, and the price at which each passes the one above" }), ol,
            el("p", { text: s === 1 ? (ranked[0].basis === "ceiling" ? "One sequence, every device at its ceiling: not all of them have a speed calibrated on published measurements, and mixing the two would favour the uncalibrated. Real costs are higher." : "One sequence at the speed to expect, calibrated on published measurements for every device listed.") : "All sequences at the ceiling: engines\u2019 batched speed is not calibrated yet, so real costs are higher." })]));
        }
      }
      verdict.replaceChildren.apply(verdict, lines);
    }
    function splitCount(r) {  // tensor parallelism divides the attention heads evenly: a power of two at least the devices needed
      var n = 1;
      while (n < r.e.devices_needed) n *= 2;
      return n;
    }
    function fillRun() {  // the devices that can start it, keeping the reader's pick
      var c = runCtx, keep = runOn.value || q.get("run_on");
      // a device that holds it; one that would, split over as many as it needs; one that offloads
      function split(r) { return !r.e.fits && r.e.can_split && splitCount(r) <= (r.d.max_devices || 8); }
      var can = c.rows.filter(function (r) { return r.d.id !== "custom" && (r.e.fits || split(r) || r.e.offload_gb); });
      runOn.replaceChildren.apply(runOn, can.map(function (r) {
        return el("option", { value: r.d.id, text: r.d.title + (r.e.fits ? "" : split(r) ? " \u00d7 " + splitCount(r) + " (split" + (r.e.offload_gb ? ", or one offloading)" : ")") : " (offloading)") });
      }));
      if (can.some(function (r) { return r.d.id === keep; })) runOn.value = keep;
      else { var first = can.filter(function (r) { return r.e.fits; })[0] || can.filter(split)[0] || can[0]; if (first) runOn.value = first.d.id; }
      renderRun();
    }
    function renderRun() {
      runOut.replaceChildren();
      var c = runCtx;
      if (!c || runBox.hidden) return;
      var r = c.rows.filter(function (x) { return x.d.id === runOn.value; })[0];
      if (c.m.id === "custom") { runOut.appendChild(el("p", { text: "A model read from a config.json has no repository to start: pick it from the list for a command." })); return; }
      if (!c.fmtLabel) { runOut.appendChild(el("p", { text: "Pick a named weight format for a command: typed bits per weight name no file an engine can load." })); return; }
      if (!r) { runOut.appendChild(el("p", { text: "None of the devices listed holds " + c.m.title + " this way: a smaller format, a shorter context, fewer sequences or more devices." })); return; }
      // a model that needs a split is started on as many devices as it needs, sized for them
      // (llama-server offloads instead where it can: the reader's one device, part of the model in system memory)
      var splitFit = !r.e.fits && r.e.can_split ? estimate(c.m, r.d, c.prec, c.t, c.s, c.kb, data.overhead, c.host, splitCount(r)) : null;
      function fitFor(k) { return splitFit && !(L.engines[k].server === "llama-server" && r.e.offload_gb) ? splitFit : r.e; }
      function write(k) { var f = fitFor(k); return window.Atlas.launch(L, k, { model: c.m, device: r.d, fmt: c.fmtLabel, context: c.t, sequences: c.s, kv_bits: c.kb, devices: f.devices, fit: f }); }
      if (!runChosen) {  // the engine that loads this format on this device best (launch's rank), then the list's order
        var best = null;
        runOrder.forEach(function (k) {
          try { var made = write(k); if (best === null || made.rank < best[0]) best = [made.rank, k]; } catch (e) { /* cannot start it here */ }
        });
        if (best) runWith.value = best[1];
      }
      var eng = L.engines[runWith.value], cmd, fit = fitFor(runWith.value);
      try {
        cmd = write(runWith.value);
      } catch (err) {
        runOut.appendChild(el("p", { class: "atlas-calc__runerror", text: err.message + "." }));
        return;
      }
      runOut.appendChild(el("pre", { class: "atlas-calc__command" }, [el("code", { text: cmd.text })]));
      runOut.appendChild(el("details", { class: "atlas-calc__flagsbox" }, [el("summary", { text: "What each of its " + cmd.flags.length + " flags does" }),
        el("ul", { class: "atlas-calc__flags" }, cmd.flags.map(function (f) {
          return el("li", {}, [el("code", { text: f.value === null ? f.name : f.name + " " + f.value }), document.createTextNode(": " + f.what + ".")]);
        }))]));
      cmd.notes.forEach(function (n) { runOut.appendChild(el("p", { class: "atlas-calc__runnote", text: n })); });
      if (fit !== r.e) runOut.appendChild(el("p", { class: "atlas-calc__runnote", text: "Split over " + fit.devices + " of them: the fewest that hold it, rounded up to a power of two so that tensor parallelism divides the attention heads evenly; set \u201cHow many you have\u201d to " + fit.devices + " to see the figures for " + fit.devices + " in the table." }));
      var pr = r.one && r.one.decode_tps ? predict(X, "decode", c.m.id, r.d.id, c.fmtLabel, runWith.value) : null;
      var speed = pr ? "Expect about " + fmt(pr.band.ratio * r.one.decode_tps, 0) + " (" + fmt(pr.band.low * r.one.decode_tps, 0) + "\u2013" + fmt(pr.band.high * r.one.decode_tps, 0) +
                       ") tok/s for one sequence with " + eng.title + " (" + pr.basis + "), under a ceiling of " + fmt(r.one.decode_tps, 0) + "."
        : r.one && r.one.decode_tps ? "Nothing published to calibrate " + eng.title + " on " + r.d.title + ": the ceiling is " + fmt(r.one.decode_tps, 0) + " tok/s for one sequence." : "";
      runOut.appendChild(el("p", { class: "atlas-calc__runnote" }, [document.createTextNode(speed + (speed ? " " : "") + "Flags as " + eng.title + " " + eng.release + " accepts them" +
        (eng.caveat ? " (" + eng.caveat + ")" : "") + "; "), el("a", { href: eng.url, text: "what " + eng.title + " runs and where" }), document.createTextNode(".")]));
    }
    runOn.addEventListener("change", update);
    runWith.addEventListener("change", function () { runChosen = true; update(); });
    root.addEventListener("click", function (ev) {
      var a = ev.target.closest ? ev.target.closest("a[data-run]") : null;
      if (!a) return;
      runOn.value = a.getAttribute("data-run");
      update();
    });
    function update() {
      bits.disabled = format.value !== "custom";
      if (format.value !== "custom") bits.value = String(bitsOf[format.value]);
      meaning.textContent = format.value === "custom" ? "Any format: type its bits per weight, scales and zero points included." : meaningOf[format.value];
      message.textContent = ""; summary.textContent = ""; verdict.replaceChildren(); runCtx = null; runOut.replaceChildren(); legend.textContent = ""; table.replaceChildren(); notes.replaceChildren();
      try {
        var m = model.value === "custom" ? pasted : data.models.filter(function (x) { return x.id === model.value; })[0];
        if (!m) throw new Error("unknown model \u201c" + model.value + "\u201d: pick one from the list");
        var b = number(bits.value, "Bits per weight", data.limits.bits);
        var t = number(context.value, "Tokens per sequence", data.limits.tokens);
        var s = number(seqs.value, "Sequences at once", data.limits.sequences);
        var nOwned = number(owned.value, "How many you have", data.limits.devices);
        if (!Number.isInteger(nOwned)) throw new Error("How many you have must be a whole number");
        if (!Number.isInteger(t) || !Number.isInteger(s)) throw new Error("Tokens and sequences must be whole numbers");
        if (m.context_length && t > m.context_length) throw new Error(t.toLocaleString("en") + " tokens is more than " + m.title + "\u2019s context length of " + m.context_length.toLocaleString("en"));
        var kb = Number(kvBits.value);
        function maybe(input, name, range) { return input.value.trim() === "" ? null : number(input.value, name, range); }
        var hourly = maybe(price, "Price per device-hour", [0.001, 10000]), perKwh = maybe(kwh, "Electricity per kWh", [0.001, 100]);
        var mine = null, mem = maybe(devMem, "Your device's memory", [0.1, 100000]), bw = maybe(devBw, "Your device's bandwidth", [0.1, 1000000]);
        var tf = maybe(devTflops, "Your device's TFLOPS", [0.001, 1000000]), w = maybe(devWatts, "Your device's board power", [0.1, 1000000]);
        if ((mem === null) !== (bw === null) || ((tf !== null || w !== null) && mem === null))
          throw new Error("Your device needs both its memory (GB) and its memory bandwidth (GB/s)");
        if (mem !== null) mine = { id: "custom", title: "Your device", memory_gb: mem, bandwidth_gbs: bw, tflops: tf ? { fp16: tf } : {}, tdp_w: w, url: null,
                                   gpu_default_gb: devUnified.checked ? Math.round(mem * (data.unified_share || 0.75) * 1000) / 1000 : null,
                                   max_devices: devUnified.checked ? 1 : 8, unified: devUnified.checked };  // calc.custom_device
        var host = data.host_bandwidth_gbs;
        // The precision: a format's bits and the parts it keeps otherwise; a pasted config's own quantization; or typed bits for every part.
        var prec = format.value === "custom" ? { bits: b, parts: {} } : format.value === "config" && m.id === "custom" && pastedPrecision ? pastedPrecision
          : { bits: b, parts: partsOf[format.value] || {} };
        var base = estimate(m, null, prec, t, s, kb, data.overhead, host);
        summary.textContent = "Needs " + fmt(base.total_gb, 1) + " GB: weights " + fmt(base.weights_gb, 1) + " GB + KV cache " + fmt(base.kv_gb, 1) + " GB + overhead " + fmt(base.overhead_gb, 1) + " GB." +
          (base.read_gb !== null ? " Each decoded token reads " + fmt(base.read_gb, 2) + " GB of weights" + (s > 1 ? " for one sequence alone" : "") + "." : "");
        if (m.parts) {
          var byPart = m.parts.map(function (x) { return (PART_LABELS[x[0]] || x[0]) + " " + fmt(x[1], 2) + "B at " + partBits(prec, x[0]) + " bits = " + fmt(x[1] * partBits(prec, x[0]) / 8, 2) + " GB"; });
          summary.appendChild(el("span", { class: "atlas-calc__parts", text: " By part: " + byPart.join("; ") + "." }));
        }
        var head = el("tr", {}, ["Device", "Memory", "Fits?", "Decode max (per sequence" + (s > 1 ? ", and all " + s.toLocaleString("en") : "") + ")", "Prefill max"].map(function (h) { return el("th", { text: h, scope: "col" }); }));
        var body = el("tbody");
        var said = {};
        var rowNotes = null, rowTitle = null, pricedHere = false;  // while a row is drawn: its own notes go with it, opened on demand
        function note(text) {
          if (rowNotes && text.indexOf(rowTitle + ": ") === 0) { rowNotes.push(text.slice(rowTitle.length + 2)); return; }
          if (rowNotes && text.indexOf(rowTitle + ", ") === 0) { rowNotes.push(text.slice(rowTitle.length + 2)); return; }
          if (!said[text]) { said[text] = true; notes.appendChild(el("li", { text: text })); }
        }
        if (m.parts_note) note(m.title + ": " + m.parts_note + ".");
        if (partsRuleOf[format.value]) note(labelOf[format.value] + " part by part: " + partsRuleOf[format.value] + (/[.!?)]$/.test(partsRuleOf[format.value]) ? "" : "."));
        var only = format.value === "custom" ? null : runsOn[format.value], leftOut = 0;
        var runsHere = function (d) { var ok = !only || !d.platform || only.indexOf(d.platform) >= 0; if (!ok) leftOut++; return ok; };
        var rows0 = (mine ? [mine] : []).concat(data.devices.filter(function (d) { return (!where.value || d.segment === where.value) && runsHere(d); }).sort(function (a, b2) { return (b2.memory_gb || 0) - (a.memory_gb || 0); }))
        listPrices(rows0.filter(function (d) { return d.id !== "custom"; }));
        var perDevice = {};
        Object.keys(priceInputs).forEach(function (id) {
          var input = priceInputs[id].querySelector("input");
          if (input.value.trim() !== "") perDevice[id] = number(input.value, "Your price for " + priceInputs[id].querySelector("span").textContent, [0.001, 10000]);
        });
        var rows = rows0.map(function (d) {
            var n = Math.min(nOwned, d.max_devices || 8);  // a Mac or a laptop is one machine
            var e = estimate(m, d, prec, t, s, kb, data.overhead, host, n);
            var mineP = d.id in perDevice ? perDevice[d.id] : hourly;
            return { d: d, e: e, own: mineP !== null, c: cost(e, s === 1 ? e : estimate(m, d, prec, t, 1, kb, data.overhead, host, n), d, mineP, perKwh) };
          });
        // Your own device first; then the devices that hold it, the smallest first (the least
        // hardware that does the job); then those that would with a split or an offload, the
        // nearest first; then the rest.
        function standing(r) { return r.d.id === "custom" ? 0 : r.e.fits ? 1 : r.e.fits === false && (r.e.can_split || r.e.offload_gb) ? 2 : 3; }
        rows.sort(function (x, y) {
          var a = standing(x), c2 = standing(y);
          if (a !== c2) return a - c2;
          var mx = x.d.memory_gb || 0, my = y.d.memory_gb || 0;
          return (a === 1 ? mx - my : my - mx) || (x.d.title < y.d.title ? -1 : x.d.title > y.d.title ? 1 : 0);
        });
        // The bars under each decode figure share one scale: the fastest ceiling in the table.
        var top = Math.max.apply(null, rows.map(function (r) { return r.e.decode_tps || r.e.split_decode_tps || 0; }));
        function bar(tps, split, measured) {
          var fill = el("span", { class: "atlas-calc__fill" + (split ? " atlas-calc__fill--split" : "") });
          fill.style.width = Math.max(0.5, 100 * tps / top).toFixed(2) + "%";
          var track = el("span", { class: "atlas-calc__bar", "aria-hidden": "true", "data-tps": String(tps) }, [fill]);
          if (measured) {
            var tick = el("span", { class: "atlas-calc__tick" });
            tick.style.left = Math.min(100, 100 * measured / top).toFixed(2) + "%";
            track.appendChild(tick);
          }
          return track;
        }
        var leftOutText = leftOut ? familyOf[format.value] + " runs on " + only.map(function (p) { return (data.platforms || {})[p] || p; }).join(" and ") +
                          ": " + leftOut + " devices that do not are left out (its entry says where it runs)." : "";
        // A gap several devices share is one note naming them all, after the table.
        var lacking = {};  // the note's start and end -> {start, end, names}
        function lack(start, end, title) { var k = start + "\u0000" + end; (lacking[k] = lacking[k] || { start: start, end: end, names: [] }).names.push(title); }
        function listed(names) { return names.length < 2 ? names.join("") : names.slice(0, -1).join(", ") + " and " + names[names.length - 1]; }
        rows.forEach(function (r) {
          var d = r.d, e = r.e;
          rowNotes = []; rowTitle = d.title;
          var fitsText = e.fits === null ? "memory unknown" : (e.fits ? (e.devices > 1 ? "yes, on your " + e.devices : "yes")
            : e.can_split ? (e.devices > 1 ? "no: needs " + e.devices_needed + ", you have " + e.devices : "no: needs " + e.devices_needed) : "no");
          var decodeText = e.decode_tps ? fmt(e.decode_tps, e.decode_tps < 10 ? 1 : 0) + " tok/s" +
              (s > 1 ? " each, " + fmt(e.decode_total_tps, 0) + " in total" : "") + (e.decode_bound === "compute" ? " (compute-bound)" : "")
            : e.split_decode_tps ? fmt(e.split_decode_tps, 0) + " tok/s" + (s > 1 ? " each, " + fmt(e.split_decode_total_tps, 0) + " in total," : "") + " on " + e.devices_needed + " (split)"
            : (d.bandwidth_gbs ? "\u2014" : "no bandwidth figure");
          if (e.fits && e.devices > 1) note(d.title + ": yes, on your " + e.devices + ": each holds " + fmt(e.total_gb / e.devices, 1) + " GB of the " + fmt(e.total_gb, 1) + " GB, split by tensor parallelism; the speeds are over all " + e.devices + ", before the traffic between them.");
          if (e.decode_bound === "compute")
            note(d.title + ": at " + s.toLocaleString("en") + " sequences its tensor rate, not its memory bandwidth, sets the decode ceiling (2 FLOP per active parameter per token).");
          if (d.bandwidth_gbs && s > 1 && m.active_b !== m.params_b && !(m.experts_total && m.experts_active))
            note(m.title + ": its entry does not give its expert counts, so how many experts a batch reads, and so its decode ceiling above one sequence, cannot be worked out.");
          if (e.fits === false) {
            var maxD = d.max_devices || 8;
            note(d.title + ": needs " + fmt(e.total_gb, 1) + " GB, more than " + (d.gpu_default_gb ? "the " + d.gpu_default_gb + " GiB (" + fmt(d.gpu_default_gb * GIB / 1e9, 1) + " GB) its GPU may use by default" : "its " + d.memory_gb + " GiB (" + fmt(d.memory_gb * GIB / 1e9, 1) + " GB)") + "." +
                 (e.can_split ? " Split over " + e.devices_needed + " of them with an engine that does tensor parallelism (vLLM, SGLang, TensorRT-LLM) or a layer split (llama.cpp, ExLlama)" +
                   (e.split_decode_tps ? ": decode at most " + fmt(e.split_decode_tps, 0) + " tok/s before the traffic between them (a direct link such as NVLink or a TPU's ICI carries it far faster than PCIe)" : "")
                 : maxD === 1 ? " It is one machine, and " + e.devices_needed + " of them for one model is no usual setup: a smaller format, a shorter context or a larger machine"
                 : " It would take " + e.devices_needed + ", more than one " + maxD + "-device server: a smaller format or a larger device") +
                 (e.offload_decode_tps ? "; or keep " + fmt((d.gpu_default_gb || d.memory_gb) * e.devices * GIB / 1e9, 1) + " GB on " + (e.devices > 1 ? "your " + e.devices : "the card") + " and offload " + fmt(e.offload_gb, 1) + " GB to system memory (" + host +
                   " GB/s, two DDR5-4800 channels; each step reads it once for all sequences): at most " + fmt(e.offload_decode_tps, 1) + " tok/s" +
                   (s > 1 ? " each, " + fmt(e.offload_decode_total_tps, 0) + " in total" : "") : "") +
                 (e.better ? ". Per device, " + (e.better === "split" ? "splitting" : "offloading") + " gives more tokens, so it is the cheaper" : "") + ".");
          }
          if (d.platform === "apple" && !d.gpu_default_gb && d.memory_gb) lack("The GPU\u2019s default share of memory has not been published for ", ", so fit is judged against all of it; on Macs that have been read, macOS lets the GPU use two thirds to 84% by default (see the unified memory entry).", d.title);
          if (d.gpu_default_gb) note(d.title + ": macOS lets the GPU use " + d.gpu_default_gb + " GB of its " + d.memory_gb + " GB by default (Metal\u2019s recommended working set, as users have read it); fit is judged against that. Raising iogpu.wired_limit_mb gives the GPU more.");
          if (!d.bandwidth_gbs) lack("No decode ceiling for ", ": no memory-bandwidth figure in the atlas yet.", d.title);
          if (!e.prefill_tps && d.id !== "custom") lack("No prefill ceiling for ", ": no dense tensor throughput (TFLOPS) in the atlas yet.", d.title);
          var decodeCell = el("td", { class: "atlas-calc__decode", "data-label": "Decode max (per sequence)" }, [document.createTextNode(decodeText)]);
          var meas = measuredFor(data.measured, m.id, d.id, t);
          if (meas && b === data.measured.bits && kb === data.measured.kv_bits) {
            var tps = meas.tokens_per_s;
            decodeCell.appendChild(el("span", { class: "atlas-calc__measured" }, [
              document.createTextNode("measured " + fmt(tps, tps < 100 ? 1 : 0) + " tok/s at " + meas.context.toLocaleString("en") +
                " tokens" + (meas.ratio ? ", " + fmt(meas.ratio, 2) + " of the ceiling there (" + fmt(meas.ceiling_tps, 0) + ")" : "") +
                (meas.slice ? "; " + meas.layers_built + " of " + meas.layers + " layers run, time scaled to " + meas.layers : "") + " · "),
              el("a", { href: meas.url, text: "source", title: meas.title })]));
            note(d.title + ", measured: this project's decoder with random BF16 weights in " + m.title + "’s shape, plain PyTorch (not a serving engine), one sequence at the measured context nearest yours" +
                 (meas.slice ? "; only " + meas.layers_built + " of its " + meas.layers + " layers fit the card, so the per-layer time is scaled to the full depth" : "") + ".");
          } else if (meas) {
            note(d.title + ": this project measured " + m.title + " on it in 16-bit weights and KV cache only; pick a 16-bit format and a 16-bit KV cache to see the measurement beside the ceiling.");
          }
          var prefillCell = el("td", { class: "atlas-calc__prefill", "data-label": "Prefill max" },
                               [document.createTextNode(e.prefill_tps ? fmt(e.prefill_tps, 0) + " tok/s" +
                                 (e.prefill_precision === "fp16" || e.prefill_precision === "bf16" ? "" : " (" + e.prefill_precision.toUpperCase() + " rate)")
                                 : "no TFLOPS figure")]);
          if (e.prefill_tps && e.prefill_precision !== "fp16" && e.prefill_precision !== "bf16")
            note(d.title + ": its entry gives only an " + e.prefill_precision.toUpperCase() + " tensor rate, so its prefill ceiling assumes a model quantized to run at that rate; at 16 bits it is lower.");
          var pre = e.prefill_tps && b === data.measured.bits && kb === data.measured.kv_bits ? prefillFor(data.measured, m.id, d.id, t) : null;
          if (pre) {
            prefillCell.appendChild(el("span", { class: "atlas-calc__measured" }, [
              document.createTextNode("measured " + fmt(pre.tokens_per_s, 0) + " tok/s for a " + pre.prompt.toLocaleString("en") +
                "-token prompt (first token in " + fmt(pre.ttft_ms, 0) + " ms), " + fmt(pre.tokens_per_s / e.prefill_tps, 2) + " of the ceiling" +
                (pre.slice ? "; " + pre.layers_built + " of " + pre.layers + " layers run, time scaled" : "") + " · "),
              el("a", { href: pre.url, text: "source", title: pre.title })]));
          }
          var fmtLabel = format.value === "custom" || format.value === "config" ? "" : labelOf[format.value];
          function expectLine(kind, ceiling) {
            var pr = ceiling ? predict(X, kind, m.id, d.id, fmtLabel, engineSel.value) : null;
            if (!pr) return null;
            var bd = pr.band;
            return { tps: bd.ratio * ceiling, low: bd.low * ceiling, high: bd.high * ceiling, basis: pr.basis, text: pr.text };
          }
          function tpsText(x) { return fmt(x, x < 10 ? 1 : 0); }
          var one = s === 1 ? e : estimate(m, d, prec, t, 1, kb, data.overhead, host, Math.min(nOwned, d.max_devices || 8));
          r.one = one;
          var xd = e.fits !== false && one.decode_tps ? expectLine("decode", one.decode_tps) : null;
          r.xd = xd;
          if (xd) {
            decodeCell.appendChild(el("span", { class: "atlas-calc__expected", "data-basis": xd.basis, title: xd.text,
              text: "expect about " + tpsText(xd.tps) + " (" + tpsText(xd.low) + "\u2013" + tpsText(xd.high) + ") tok/s" + (s > 1 ? " alone" : "") + " \u00b7 " + xd.basis }));
            lack("Expected decode on ", ": " + xd.text + ".", d.title);
          } else if (e.decode_tps && d.id !== "custom") {
            decodeCell.appendChild(el("span", { class: "atlas-calc__expected", "data-basis": "ceiling only", text: "ceiling only: nothing published to calibrate on" }));
          }
          var xp = e.prefill_tps ? expectLine("prefill", e.prefill_tps) : null;
          if (e.prefill_tps) {
            var ttftCeil = t / e.prefill_tps;
            function secs(x) { return x < 1 ? fmt(x * 1000, 0) + " ms" : x < 120 ? fmt(x, 1) + " s" : fmt(x / 60, 1) + " min"; }
            function band(x, a, b2) {  // 289 (240–526) ms: all three in the expected figure's unit (labels.wait_band)
              var u = x < 1 ? [1000, 0, " ms"] : x < 120 ? [1, 1, " s"] : [1 / 60, 1, " min"];
              return fmt(x * u[0], u[1]) + " (" + fmt(a * u[0], u[1]) + "\u2013" + fmt(b2 * u[0], u[1]) + ")" + u[2];
            }
            prefillCell.appendChild(el("span", { class: "atlas-calc__ttft", "data-basis": xp ? xp.basis : "ceiling only",
              text: t.toLocaleString("en") + "-token TTFT: " + (xp ? "expect " + band(t / xp.tps, t / xp.high, t / xp.low) + ", " : "") +
                    "at best " + secs(ttftCeil) + (xp ? " \u00b7 " + xp.basis : " \u00b7 ceiling only") }));
            if (xp) lack("Expected prefill on ", ": " + xp.text + ".", d.title);
          }
          var shown = meas && b === data.measured.bits && kb === data.measured.kv_bits ? meas.tokens_per_s : null;
          if (top > 0 && (e.decode_tps || e.split_decode_tps)) decodeCell.insertBefore(bar(e.decode_tps || e.split_decode_tps, !e.decode_tps, shown), decodeCell.childNodes[1] || null);
          var c = r.c;
          function usd(x) { return "$" + fmt(x, x < 1 ? 3 : 2); }
          function perJ(x) { return fmt(x, x < 10 ? 2 : 0); }
          var outCost = [];
          if (c.output_usd_per_m !== null) outCost.push(usd(c.output_usd_per_m) + (s > 1 ? "/M alone" + (c.batch_output_usd_per_m !== null ? ", " + usd(c.batch_output_usd_per_m) + "/M with all " + s.toLocaleString("en") : "") : " per million tokens"));
          if (c.tokens_per_joule !== null) outCost.push(perJ(c.tokens_per_joule) + " tok/J" + (s > 1 && c.batch_tokens_per_joule !== null ? " alone, " + perJ(c.batch_tokens_per_joule) + " with all" : ""));
          if (outCost.length) decodeCell.appendChild(el("span", { class: "atlas-calc__costline", text: outCost.join(" \u00b7 ") }));
          var inCost = [];
          if (c.input_usd_per_m !== null) inCost.push(usd(c.input_usd_per_m) + " per million prompt tokens");
          if (c.input_tokens_per_joule !== null) inCost.push(perJ(c.input_tokens_per_joule) + " tok/J");
          if (inCost.length) prefillCell.appendChild(el("span", { class: "atlas-calc__costline", text: inCost.join(" \u00b7 ") }));
          if (!r.own && d.hourly_usd && c.hourly_usd !== null) {
            note(d.title + ": priced at $" + d.hourly_usd + " a device-hour" + (d.hourly_note ? " (" + d.hourly_note + ")" : "") + ".");
            pricedHere = true;
          }
          if (c.devices > 1 && c.hourly_usd !== null) note(d.title + ": the model is split over " + c.devices + " of them, so the cost is " + c.devices + " devices\u2019 price and power.");
          var why = rowNotes.length ? [el("details", { class: "atlas-calc__why" }, [el("summary", { text: rowNotes.length === 1 ? "1 note" : rowNotes.length + " notes" }),
            el("ul", {}, rowNotes.map(function (x) { return el("li", { text: x.charAt(0).toUpperCase() + x.slice(1) }); }))])] : [];
          rowNotes = null;
          body.appendChild(el("tr", { "data-device": d.id, class: e.fits === false ? "atlas-calc__nofit" : "" }, [
            el("th", { scope: "row" }, [d.url ? el("a", { href: d.url, text: d.title }) : document.createTextNode(d.title)].concat(
              L.engines && Object.keys(L.engines).length && d.id !== "custom" && (e.fits || e.offload_gb) ? [el("a", { href: "#run-it", class: "atlas-calc__runlink", "data-run": d.id, text: "run it" })] : [], why)),
            el("td", { class: "atlas-calc__memory", text: d.memory_gb ? d.memory_gb + " GB" + (d.gpu_default_gb ? " (GPU " + d.gpu_default_gb + ")" : "") : "unknown", "data-label": "Memory" }),
            el("td", { class: "atlas-calc__fits", text: fitsText, "data-label": "Fits?" }),
            decodeCell,
            prefillCell]));
        });
        table.append(el("thead", {}, [head]), body);
        // The first rows answer; the rest wait behind one button (kept in the address as rows=all).
        var trs = Array.prototype.slice.call(body.children);
        trs.forEach(function (tr, i) { tr.hidden = !showAll && i >= FIRST_ROWS; });
        more.hidden = trs.length <= FIRST_ROWS;
        more.textContent = showAll ? "Show the first " + FIRST_ROWS + " only" : "Show all " + trs.length + " devices (" + (trs.length - FIRST_ROWS) + " more)";
        more.setAttribute("aria-expanded", showAll ? "true" : "false");
        say(rows, s, hourly, leftOutText);
        runCtx = { m: m, rows: rows, t: t, s: s, kb: kb, prec: prec, host: host, fmtLabel: format.value === "custom" || format.value === "config" ? "" : labelOf[format.value] };
        fillRun();
        if (pricedHere) note("Cloud prices are each device entry\u2019s own on-demand price, with the cloud, the instance and the day it was read in the device\u2019s notes; type your own price above to change them.");
        Object.keys(lacking).forEach(function (k) { note(lacking[k].start + listed(lacking[k].names) + lacking[k].end); });
        if (hourly !== null || perKwh !== null || rows.some(function (r) { return r.c.tokens_per_joule !== null; }))
          note("Cost and energy: dollars per million tokens = the price of an hour (" + (hourly !== null ? "$" + hourly + " a device-hour" : "a device's cloud price where its entry has one") +
               (perKwh !== null ? ", plus its board power for an hour at $" + perKwh + " per kWh" : "") + ") / tokens in that hour at the ceiling; tokens per joule = tokens per second / board power (TDP). Both are at the ceilings, so real serving costs more per token." +
               (hourly === null && perKwh === null ? " Type a price per device-hour or per kWh above to see dollars." : ""));
        if (top > 0) legend.textContent = "Bars: each device’s decode ceiling per sequence" + (s > 1 ? " (with " + s.toLocaleString("en") + " running at once)" : "") + ", on one scale up to the fastest here (" +
          fmt(top, 0) + " tok/s); a hatched bar needs the model split over several cards; a tick is this project’s measurement. TTFT: the time to the first token of a prompt of your length; $/M: dollars per million output tokens.";
        var said0 = notes.children.length;
        notesBox.hidden = !said0;
        notesBox.firstChild.textContent = said0 === 1 ? "1 note on these figures" : said0 + " notes on these figures: where prices come from, what is missing, how cost is counted";
        var url = new URL(location.href);
        if (showAll) url.searchParams.set("rows", "all"); else url.searchParams.delete("rows");
        if (m.id === "custom") url.searchParams.delete("model"); else url.searchParams.set("model", m.id);  // a pasted config stays in the page
        url.searchParams.set("context", t); url.searchParams.set("n", s);
        if (nOwned > 1) url.searchParams.set("devices", nOwned); else url.searchParams.delete("devices");
        if (devUnified.checked) url.searchParams.set("dev_unified", "1"); else url.searchParams.delete("dev_unified");
        if (where.value) url.searchParams.set("where", where.value); else url.searchParams.delete("where");
        if (engineSel.value) url.searchParams.set("engine", engineSel.value); else url.searchParams.delete("engine");
        if (runOn.value) url.searchParams.set("run_on", runOn.value); else url.searchParams.delete("run_on");
        if (runChosen) url.searchParams.set("run_with", runWith.value); else url.searchParams.delete("run_with");
        var typed = Object.keys(perDevice).map(function (id) { return id + ":" + perDevice[id]; }).join(",");
        if (typed) url.searchParams.set("prices", typed); else url.searchParams.delete("prices");
        [["price", hourly], ["kwh", perKwh], ["dev_mem", mem], ["dev_bw", bw], ["dev_tflops", tf], ["dev_w", w]].forEach(function (kv) {
          if (kv[1] === null) url.searchParams.delete(kv[0]); else url.searchParams.set(kv[0], kv[1]);
        });
        if (format.value === "custom") { url.searchParams.set("bits", b); url.searchParams.delete("format"); }
        else if (format.value === "config") { url.searchParams.delete("format"); url.searchParams.delete("bits"); }
        else { url.searchParams.set("format", format.value); url.searchParams.delete("bits"); }
        history.replaceState(null, "", url.href);
      } catch (err) {
        message.textContent = err.message;
      }
    }
    [model, format, bits, context, seqs, owned, kvBits, where, price, kwh, devMem, devBw, devTflops, devWatts, devUnified, engineSel].forEach(function (x) { x.addEventListener("input", update); x.addEventListener("change", update); });
    pasteBox.addEventListener("input", function () { try { readPaste(); update(); } catch (e) { /* the message says what is wrong */ } });
    update();
  }

  window.Atlas.onPage(mount);
})();
