/* Inference Atlas: the command that starts an engine for one answer of the calculator, the
 * same builders as generator/knowledge/launch.py (a browser test checks that both write the
 * same commands), over the engines' data embedded in the calculator page. A builder takes the
 * answer and returns the command, every flag with what it does, and notes; an engine that
 * cannot load the format or run on the device throws an Error saying why. */
(function () {
  "use strict";
  var GIB = 1073741824;
  var PORT = 8000;

  function formatCell(L, label) {
    var up = String(label || "").toUpperCase();
    if (/BPW$/.test(up)) return (L.bpw || {})[String(label).toLowerCase()] || "exl2";  // EXL2's decimal levels or EXL3's
    var keys = Object.keys(L.format_cells).sort(function (a, b) { return b.length - a.length || (a < b ? -1 : 1); });
    for (var i = 0; i < keys.length; i++) if (up.indexOf(keys[i]) === 0) return L.format_cells[keys[i]];
    return null;
  }

  function quote(s) {  // shlex.quote
    s = String(s);
    if (s === "") return "''";
    if (!/[^\w@%+=:,./-]/.test(s)) return s;
    return "'" + s.replace(/'/g, "'\"'\"'") + "'";
  }

  var RANK = { yes: 0, plugin: 1, partial: 1, unknown: 2, no: 3 };  // knowledge.loads.RANK
  function rankOf(x) { return x in RANK ? RANK[x] : RANK.unknown; }

  function F(name, value, what) { return { name: name, value: value, what: what }; }

  function share(a, floor, cap) {  // launch._share
    cap = cap === undefined ? 0.95 : cap;
    var mem = (a.device.gpu_default_gb || a.device.memory_gb || 0) * GIB * a.devices;
    var need = mem ? a.fit.total_gb * 1e9 / mem : floor;
    return Math.min(cap, Math.max(floor, Math.ceil(need * 100) / 100));
  }
  function fixed2(x) { return x.toFixed(2); }
  function released(a) { return a.model.released_label || ""; }
  function num(x) { return x.toLocaleString("en"); }

  function gguf(a) { return a.model.id + "-" + a.fmt.replace("GGUF ", "").replace(/ /g, "_") + ".gguf"; }
  var ON_LOAD_FP8 = ["vllm", "sglang"], TOKENIZER_FLAG = { vllm: "--tokenizer", sglang: "--tokenizer-path" };
  function checkpoint(a, server, notes) {  // launch.checkpoint: the weights the answer was sized for
    var repo = a.model.repo, cell = formatCell(a.L, a.fmt), rel = formatCell(a.L, released(a) || "BF16");
    if (cell === "gguf" && TOKENIZER_FLAG[server]) {
      notes.push("The server reads one GGUF file: merge a download split in parts first (llama-gguf-split --merge); the tokenizer comes from " + repo + ".");
      return [gguf(a), [F(TOKENIZER_FLAG[server], repo, "the tokenizer of the original repository")]];
    }
    if (cell === rel) return [repo, []];
    if (cell === "fp16") {
      notes.push(repo + " holds " + released(a) + " weights, and the server loads them as they are: less memory than the 16-bit sized here.");
      return [repo, []];
    }
    if (cell === "fp8" && ON_LOAD_FP8.indexOf(server) >= 0) return [repo, [F("--quantization", "fp8", "quantize the 16-bit checkpoint to FP8 as it loads")]];
    notes.push(a.model.title + " was not released in " + a.fmt + ": put a repository or folder of a " + a.fmt + " checkpoint of it in place of the placeholder (the developer's own where one is published, else a community one).");
    return ["<" + a.fmt + " checkpoint of " + repo + ">", []];
  }

  var BUILD = {
    vllm: function (a, notes) {
      var fl = [a.devices > 1 ? F("--tensor-parallel-size", String(a.devices), "split every layer over your " + a.devices + " devices") : null,
        F("--max-model-len", String(a.context), "the longest sequence, prompt and answer, it will accept"),
        F("--max-num-seqs", String(a.sequences), "sequences decoded together in one batch"),
        F("--gpu-memory-utilization", fixed2(share(a, 0.9)), "the share of each GPU's memory for weights, activations and KV cache")];
      if (a.kv_bits === 8) fl.push(F("--kv-cache-dtype", "fp8", "keep the KV cache in FP8, half the bytes of 16-bit"));
      else if (a.kv_bits < 8) notes.push("vLLM keeps the KV cache in 16 or 8 bits for a model like this; sized here at " + a.kv_bits + ", it will use 8 (--kv-cache-dtype fp8).");
      var ck = checkpoint(a, "vllm", notes);
      fl = fl.concat(ck[1]);
      fl.push(F("--port", String(PORT), "the OpenAI-compatible API's port"));
      return [ck[0], fl];
    },
    sglang: function (a, notes) {
      var ck = checkpoint(a, "sglang", notes);
      var fl = [F("--model-path", ck[0], /\.gguf$/.test(ck[0]) ? "the GGUF file in " + a.fmt : "the model's repository or folder"),
        a.devices > 1 ? F("--tp-size", String(a.devices), "split every layer over your " + a.devices + " devices") : null,
        F("--context-length", String(a.context), "the longest sequence it will accept"),
        F("--max-running-requests", String(a.sequences), "sequences decoded together"),
        F("--mem-fraction-static", fixed2(share(a, 0.85)), "the share of each GPU's memory for weights and KV cache")];
      if (a.kv_bits === 8) fl.push(F("--kv-cache-dtype", "fp8_e4m3", "keep the KV cache in FP8"));
      fl = fl.concat(ck[1]);
      fl.push(F("--port", String(PORT), "the OpenAI-compatible API's port"));
      return ["", fl];
    },
    "llama-server": function (a, notes) {
      var layers = "all";
      if (a.fit.fits === false && a.fit.offload_gb) {
        var held = (a.device.gpu_default_gb || a.device.memory_gb) * GIB * a.devices;
        var part = Math.max(0, Math.min(1, held / (a.fit.total_gb * 1e9)));
        layers = String(Math.floor(a.model.layers * part));
        notes.push("Only " + layers + " layers fit on the GPU; the rest run from system memory, far slower (the offload ceiling above).");
      }
      var fl = [F("--model", gguf(a), "the GGUF file in " + a.fmt),
        F("--ctx-size", String(a.context * a.sequences), "the KV cache in tokens: " + num(a.context) + (a.sequences === 1 ? " for its one slot" : " for each of " + a.sequences + " slots")),
        F("--parallel", String(a.sequences), "slots: requests served at once"),
        F("--n-gpu-layers", layers, "layers kept on the GPU (all: the whole model)")];
      if (a.devices > 1) fl.push(F("--split-mode", "layer", "spread the layers over your " + a.devices + " GPUs"));
      if (a.kv_bits <= 8) {
        var t = a.kv_bits === 8 ? "q8_0" : "q4_0";
        fl.push(F("--cache-type-k", t, t === "q8_0" ? "keys in the KV cache at about 8 bits" : "keys at about 4 bits"),
                F("--cache-type-v", t, "values likewise (needs flash attention)"),
                F("--flash-attn", "on", "flash attention, which a quantized V cache needs"));
      }
      fl.push(F("--jinja", null, "use the model's own chat template"), F("--port", String(PORT), "the OpenAI-compatible API's port"));
      return ["", fl];
    },
    ollama: function (a, notes) {
      var tag = a.model.ollama_tag;
      var fl = [F("OLLAMA_CONTEXT_LENGTH", String(a.context), "the context each request gets by default"),
        F("OLLAMA_NUM_PARALLEL", String(a.sequences), "requests a loaded model serves at once")];
      if (a.kv_bits <= 8) fl.push(F("OLLAMA_FLASH_ATTENTION", "1", "flash attention, which a quantized cache needs"),
                                  F("OLLAMA_KV_CACHE_TYPE", a.kv_bits === 8 ? "q8_0" : "q4_0", "the KV cache's type"));
      notes.push("Ollama picks the weights by tag: `ollama pull " + tag + "` fetches its default quantization; a tag naming the format (for example :q8_0) where the library offers one.");
      return [tag, fl];
    },
    "mlx-lm": function (a, notes) {
      var fl = [F("--model", checkpoint(a, "mlx-lm", notes)[0], "the MLX model's repository or folder"),
        F("--decode-concurrency", String(a.sequences), "sequences decoded together")];
      if (a.kv_bits <= 8) fl.push(F("--kv-bits", String(Math.floor(a.kv_bits)), "quantize the KV cache (requests then run one at a time)"));
      fl.push(F("--port", String(PORT), "the API's port"));
      notes.push("mlx_lm.server has no context-length flag: a request may use the model's whole context, so keep prompts within the " + num(a.context) + " tokens sized here.");
      return ["", fl];
    },
    "tensorrt-llm": function (a, notes) {
      var fl = [F("--backend", "pytorch", "the PyTorch backend: no engine to build"),
        a.devices > 1 ? F("--tp_size", String(a.devices), "split every layer over your " + a.devices + " devices") : null,
        F("--max_seq_len", String(a.context), "the longest sequence it will accept"),
        F("--max_batch_size", String(a.sequences), "sequences decoded together"),
        F("--kv_cache_free_gpu_memory_fraction", "0.90", "the share of memory left after the weights that goes to the KV cache"),
        F("--port", String(PORT), "the OpenAI-compatible API's port")];
      if (a.kv_bits <= 8) notes.push("trtllm-serve sets the KV cache's type in its --config YAML (kv_cache_config.dtype), not on the command line.");
      return [checkpoint(a, "tensorrt-llm", notes)[0], fl];
    },
    tabbyapi: function (a) {
      var mode = { 16: "FP16", 8: "Q8", 6: "Q6", 4: "Q4" }[Math.floor(a.kv_bits)] || "FP16";
      var fl = [F("network.port", String(PORT), "the API's port"),
        F("model.model_dir", "models", "the folder holding the model folders"),
        F("model.model_name", a.model.id + "-exl3", "the model's folder, in an ExLlama format"),
        F("model.max_seq_len", String(a.context), "the longest sequence"),
        F("model.cache_mode", mode, "the KV cache's precision")];
      if (a.devices > 1) fl.push(F("model.tensor_parallel", "true", "split every layer over your " + a.devices + " GPUs"));
      return ["", fl];
    }
  };

  function text(c) {  // Launch.text
    if (c.kind === "env") {
      return c.flags.map(function (f) { return f.name + "=" + quote(f.value || "1"); }).join(" ") + " " + c.command + (c.after ? "\n" + c.after : "");
    }
    if (c.kind === "config") {
      var lines = [], section = null;
      c.flags.forEach(function (f) {
        var i = f.name.indexOf("."), top = f.name.slice(0, i), key = f.name.slice(i + 1);
        if (top !== section) { lines.push(top + ":"); section = top; }
        lines.push("  " + key + ": " + f.value);
      });
      return "# config.yml\n" + lines.join("\n") + "\n\n" + c.command;
    }
    var parts = [c.command].concat(c.model_arg ? [quote(c.model_arg)] : []);
    c.flags.forEach(function (f) { parts.push(f.value === null ? f.name : f.name + " " + quote(f.value)); });
    return parts.length > 2 ? [parts.slice(0, 2).join(" ")].concat(parts.slice(2)).join(" \\\n  ") : parts.join(" ");
  }

  /* L: the engines' data (calculator_data()["launch"]); engine: an id of L.engines;
   * a: {model, device, fmt, context, sequences, kv_bits, devices, fit} as launch.Answer. */
  function launch(L, engine, a) {
    var eng = L.engines[engine];
    if (!eng) throw new Error("no launch command is written for " + engine);
    a.L = L;
    var cell = formatCell(L, a.fmt), fcell = cell ? eng.formats[cell] || null : null, status = fcell ? fcell.status : null;
    if (status === "no") throw new Error(eng.title + " does not load " + a.fmt + " weights (its formats say no): pick another engine or format");
    if (a.fit.fits === false && !(eng.server === "llama-server" && a.fit.offload_gb))
      throw new Error(a.model.title + " in " + a.fmt + " does not fit " + a.devices + " x " + a.device.title + ": no command to start it there");
    var backend = L.platform_cells[a.device.platform || ""], bcell = backend ? eng.backends[backend] || null : null, runs = bcell ? bcell.status : null;
    if (runs === "no") throw new Error(eng.title + " does not run on " + a.device.title + " (its " + backend + " cell says no): pick another engine");
    var notes = [], built = BUILD[eng.server](a, notes);
    if (runs === "partial" || runs === "unknown") notes.unshift(eng.title + " on " + backend + ": " + runs + (bcell.note ? " (" + bcell.note + ")" : "") + ".");
    if (status === "partial" || status === "unknown" || status === "plugin") notes.unshift(eng.title + " and " + a.fmt + ": " + status + (fcell.note ? " (" + fcell.note + ")" : "") + ".");
    var c = { engine: eng.server, command: eng.command, model_arg: built[0], flags: built[1].filter(Boolean), kind: eng.kind, notes: notes, release: eng.release, after: null,
              rank: Math.max(rankOf(status), rankOf(runs)) };  // how well it loads the format there (loads.RANK): 0 best
    if (eng.server === "ollama") { c.after = "ollama run " + c.model_arg; c.model_arg = ""; }
    c.text = text(c);
    return c;
  }

  window.Atlas.launch = launch;
})();
