/* Inference Atlas concept graph, in two views of the same data (graph-view.json):
 * - the neighbourhood of one entry (the default, ?focus=ID, else the KV cache): the entry in
 *   the middle, what it points to on the right and what points to it on the left, grouped
 *   and labelled by relation, one row per neighbour so no label overlaps (on a phone the
 *   groups stack under the entry). Hover lights an edge and its neighbour; a click or tap
 *   re-centres on the neighbour; "Open entry" goes to its page.
 * - the whole graph (?view=all): a canvas with positions and sizes (PageRank) precomputed
 *   by the build; a frame is a few batched canvas calls, measured at 5,000 nodes by
 *   tests/test_graph_scale.py. Hover lights a node's neighbours; filters lay the visible
 *   nodes out again; find centres a node; a click shows its neighbourhood.
 * "How is X related to Y?" takes the cheapest path, where relations that explain (is a,
 * uses, mitigates, bottlenecked by, ...) cost least and mentions in prose most, and says
 * which relations it used. No library, no network beyond the JSON. */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var COLOURS = { term: "#3949ab", engine: "#d84315", hardware: "#2e7d32", model: "#7b1fa2", guide: "#00838f" };

  var el = window.Atlas.el;

  function mount() {
    var root = document.getElementById("atlas-graph");
    if (!root || root.dataset.mounted) return;
    root.dataset.mounted = "1";
    fetch(root.dataset.src).then(function (r) { return r.json(); }).then(function (data) { build(root, data); });
  }

  function build(root, data) {
    var byId = {}, adj = {};
    data.nodes.forEach(function (n) { byId[n.id] = n; adj[n.id] = []; });
    data.edges.forEach(function (e) { adj[e[0]].push([e[1], e[2], true]); adj[e[1]].push([e[0], e[2], false]); });
    var kinds = uniq(data.nodes.map(function (n) { return n.k; }));
    var cats = uniq(data.nodes.map(function (n) { return n.c; }));
    var rels = uniq(data.edges.map(function (e) { return e[2]; }));
    var LABELS = data.labels || {};
    function relLabel(r, forward) { var l = LABELS[r]; return l ? l[forward === false ? 1 : 0] : r.replace(/_/g, " "); }
    // The default view shows the typed relations only: mentions found in prose are most of
    // the edges and turn the picture into a hairball; one tick brings them back.
    var on = { k: set(kinds), c: set(cats), r: set(rels.filter(function (r) { return r !== "mentions"; })) };
    var KIND_NAMES = { term: "Term", engine: "Engine", hardware: "Hardware", model: "Model", guide: "Guide" };
    var view = { x: 0, y: 0, z: 1 }, focus = null, hover = null, path = [];
    var params = new URLSearchParams(location.search);
    var centre = byId[params.get("focus")] ? params.get("focus") : (byId["kv-cache"] ? "kv-cache" : data.nodes[0].id);
    var mode = params.get("view") === "all" ? "all" : "near";

    var canvas = el("canvas", { class: "atlas-graph__canvas", tabindex: "0", "aria-label": "Concept graph. Use the search box to find an entry; links to every entry are on the glossary page." });
    var tip = el("div", { class: "atlas-graph__tip", hidden: "" });
    var search = el("input", { type: "search", class: "atlas-graph__search", placeholder: "Find an entry…", list: "atlas-graph-names", "aria-label": "Find an entry in the graph" });
    var names = el("datalist", { id: "atlas-graph-names" });
    data.nodes.forEach(function (n) { names.appendChild(el("option", { value: n.t })); });
    data.nodes.forEach(function (n) { (n.a || []).forEach(function (a) { names.appendChild(el("option", { value: a, label: n.t })); }); });
    var legend = el("ul", { class: "atlas-graph__legend", "aria-label": "Colours by kind of entry" });
    kinds.forEach(function (k) {
      legend.appendChild(el("li", {}, [el("span", { class: "atlas-graph__swatch", style: "background:" + (COLOURS[k] || "#555") }),
                                       document.createTextNode(KIND_NAMES[k] || k)]));
    });
    legend.appendChild(el("li", { class: "atlas-graph__legend-note", text: "Larger circles: more central entries. Lines: typed relations (tick \u201cmentions\u201d under Filters for links found in prose)." }));
    var filters = el("details", { class: "atlas-graph__filters" }, [el("summary", { text: "Filters: kinds, categories, relations" }),
      filter("Kinds", "k", kinds, function (v) { return KIND_NAMES[v] || v; }),
      filter("Categories", "c", cats, function (v) { return v; }),
      filter("Relations", "r", rels, function (v) { return relLabel(v); })]);
    var nearBtn = el("button", { type: "button", class: "md-button atlas-graph__mode", "data-mode": "near", text: "Neighbourhood" });
    var allBtn = el("button", { type: "button", class: "md-button atlas-graph__mode", "data-mode": "all", text: "Whole graph" });
    var modes = el("div", { class: "atlas-graph__modes", role: "group", "aria-label": "View" }, [nearBtn, allBtn]);
    var controls = el("div", { class: "atlas-graph__controls" }, [modes, search, names, filters]);
    var about = el("div", { class: "atlas-near__about", "aria-live": "polite" });
    var nearSvg = document.createElementNS(SVG, "svg");
    nearSvg.setAttribute("class", "atlas-near__svg");
    var near = el("div", { class: "atlas-near" }, [about, nearSvg]);
    var stage = el("div", { class: "atlas-graph__stage" }, [canvas, tip]);
    root.replaceChildren(controls, legend, near, stage);
    [nearBtn, allBtn].forEach(function (b) { b.addEventListener("click", function () { setMode(b.getAttribute("data-mode"), true); }); });

    function filter(title, key, values, name) {
      var box = el("fieldset", { class: "atlas-graph__filter" }, [el("legend", { text: title })]);
      values.forEach(function (v) {
        var input = el("input", { type: "checkbox", "data-key": key, value: v });
        input.checked = on[key].has(v);
        input.addEventListener("change", function () {
          if (input.checked) on[key].add(v); else on[key].delete(v);
          relayout(); draw(); if (mode === "near") renderNear();
        });
        box.appendChild(el("label", {}, [input, document.createTextNode(" " + name(v))]));
      });
      return box;
    }

    var ctx = canvas.getContext("2d"), dpr = window.devicePixelRatio || 1, W = 0, H = 0;
    function resize() {
      W = canvas.clientWidth; H = canvas.clientHeight;
      canvas.width = W * dpr; canvas.height = H * dpr;
      fit(); draw();
    }
    function fit() { view.z = Math.min(W, H) / 1080; view.x = (W - 1000 * view.z) / 2; view.y = (H - 1000 * view.z) / 2; }
    function sx(n) { return (n.px !== undefined ? n.px : n.x) * view.z + view.x; }
    function sy(n) { return (n.py !== undefined ? n.py : n.y) * view.z + view.y; }

    /* Filters lay the visible nodes out again: from their build-time places, a few rounds
     * of a force layout (springs along visible edges, repulsion between nodes) close the
     * gaps the hidden ones leave. Only up to RELAYOUT_MAX visible nodes (quadratic); with
     * every filter on, the build's layout stands. */
    var RELAYOUT_MAX = 900;
    function relayout() {
      var vis = data.nodes.filter(visible);
      var all = vis.length === data.nodes.length && rels.every(function (r) { return r === "mentions" || on.r.has(r); });
      data.nodes.forEach(function (n) { delete n.px; delete n.py; });
      root.dataset.layout = "build";
      if (all || vis.length > RELAYOUT_MAX || vis.length < 2) return;
      var idx = {}; vis.forEach(function (n, i) { idx[n.id] = i; n.px = n.x; n.py = n.y; });
      var links = data.edges.filter(function (e) { return on.r.has(e[2]) && e[0] in idx && e[1] in idx; });
      var k = Math.sqrt(1000 * 1000 / vis.length) * 0.6, t = 40;
      for (var it = 0; it < 60; it++, t *= 0.95) {
        var dx = new Float64Array(vis.length), dy = new Float64Array(vis.length);
        for (var i = 0; i < vis.length; i++) for (var j = i + 1; j < vis.length; j++) {
          var x = vis[i].px - vis[j].px, y = vis[i].py - vis[j].py, d2 = x * x + y * y + 0.01, f = k * k / d2;
          dx[i] += x * f; dy[i] += y * f; dx[j] -= x * f; dy[j] -= y * f;
        }
        links.forEach(function (e) {
          var a = idx[e[0]], b = idx[e[1]], x = vis[a].px - vis[b].px, y = vis[a].py - vis[b].py, d = Math.sqrt(x * x + y * y) + 0.01, f = d / k;
          dx[a] -= x * f; dy[a] -= y * f; dx[b] += x * f; dy[b] += y * f;
        });
        vis.forEach(function (n, i) {
          var d = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]) + 0.01, step = Math.min(d, t);
          n.px = Math.min(1000, Math.max(0, n.px + dx[i] / d * step));
          n.py = Math.min(1000, Math.max(0, n.py + dy[i] / d * step));
        });
      }
      root.dataset.layout = "filtered";
    }
    function visible(n) { return on.k.has(n.k) && on.c.has(n.c); }
    function radius(n) { return Math.max(2, n.r * Math.sqrt(view.z * 1.2)); }

    // Redraws are coalesced to one per animation frame; edges and nodes are batched into
    // one path per style, so a frame costs a few draw calls however large the graph is.
    var pending = false, frames = 0;
    function draw() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; drawNow(); });
    }
    function drawNow() {
      var t0 = performance.now();
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, W, H);
      var dark = document.body.getAttribute("data-md-color-scheme") === "slate";
      var lead = hover || focus;
      var near = lead ? neighbours(lead) : null;
      root.dataset.lit = near ? String(near.size - 1) : "0";
      var plain = new Path2D(), lit = new Path2D();
      data.edges.forEach(function (e) {
        var a = byId[e[0]], b = byId[e[1]];
        if (!on.r.has(e[2]) || !visible(a) || !visible(b)) return;
        var p = near && (e[0] === lead || e[1] === lead) ? lit : plain;
        p.moveTo(sx(a), sy(a)); p.lineTo(sx(b), sy(b));
      });
      ctx.lineWidth = 0.6;
      ctx.strokeStyle = dark ? "rgba(255,255,255,0.12)" : "rgba(0,0,0,0.12)";
      ctx.stroke(plain);
      ctx.strokeStyle = dark ? "rgba(255,200,150,0.9)" : "rgba(216,67,21,0.8)";
      ctx.stroke(lit);
      if (path.length > 1) {
        ctx.lineWidth = 3; ctx.strokeStyle = "#ff6f00";
        ctx.beginPath(); ctx.moveTo(sx(byId[path[0]]), sy(byId[path[0]]));
        path.slice(1).forEach(function (id) { ctx.lineTo(sx(byId[id]), sy(byId[id])); });
        ctx.stroke();
      }
      var dots = {}, labels = [];
      data.nodes.forEach(function (n) {
        if (!visible(n)) return;
        var x = sx(n), y = sy(n), r = radius(n);
        if (x < -r || y < -r || x > W + r || y > H + r) return;  // off screen
        var faded = near && !near.has(n.id);
        var key = (COLOURS[n.k] || "#555") + (faded ? "|f" : "");
        var p = dots[key] || (dots[key] = new Path2D());
        p.moveTo(x + r, y); p.arc(x, y, r, 0, 6.2832);
        if (n.id === focus || n.id === hover || (!faded && (view.z > 1.6 || n.r > 7))) labels.push(n);
      });
      Object.keys(dots).sort().forEach(function (key) {
        ctx.globalAlpha = key.slice(-2) === "|f" ? 0.25 : 1;
        ctx.fillStyle = key.split("|")[0];
        ctx.fill(dots[key]);
      });
      ctx.globalAlpha = 1;
      ctx.font = "12px sans-serif"; ctx.textAlign = "center";
      ctx.fillStyle = dark ? "#eee" : "#222";
      // Labels most central first, each only where it overlaps none already drawn: no pile-up.
      var placed = [];
      labels.sort(function (a, b) { return (b.id === focus || b.id === hover) - (a.id === focus || a.id === hover) || b.r - a.r; });
      labels.forEach(function (n) {
        var w = ctx.measureText(n.t).width, x = sx(n) - w / 2, y = sy(n) - radius(n) - 15;
        var box = [x - 2, y - 1, x + w + 2, y + 14];
        var clash = placed.some(function (p) { return box[0] < p[2] && box[2] > p[0] && box[1] < p[3] && box[3] > p[1]; });
        if (clash && n.id !== focus && n.id !== hover) return;
        placed.push(box);
        ctx.fillText(n.t, sx(n), sy(n) - radius(n) - 3);
      });
      // For the scale benchmark and the tests: how many frames, and the last one's cost.
      root.dataset.frames = String(++frames);
      root.dataset.frameMs = (performance.now() - t0).toFixed(1);
    }

    function neighbours(id) {
      var s = new Set([id]);
      adj[id].forEach(function (x) { if (on.r.has(x[1])) s.add(x[0]); });
      return s;
    }

    function at(px, py) {
      var best = null, bd = 1e9;
      data.nodes.forEach(function (n) {
        if (!visible(n)) return;
        var d = Math.hypot(sx(n) - px, sy(n) - py);
        if (d < Math.max(radius(n) + 4, 8) && d < bd) { bd = d; best = n; }
      });
      return best;
    }

    var drag = null, moved = false;
    canvas.addEventListener("pointerdown", function (ev) { drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y }; moved = false; });
    window.addEventListener("pointerup", function () { drag = null; });
    canvas.addEventListener("pointermove", function (ev) {
      var r = canvas.getBoundingClientRect();
      if (drag) {
        var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
        view.x = drag.vx + dx; view.y = drag.vy + dy; draw(); return;
      }
      var n = at(ev.clientX - r.left, ev.clientY - r.top);
      if ((n && n.id) !== hover) {
        hover = n && n.id; canvas.style.cursor = n ? "pointer" : "grab"; draw();
        if (n) { tip.hidden = false; tip.textContent = n.t + " — " + n.s; tip.style.left = (sx(n) + 12) + "px"; tip.style.top = (sy(n) + 8) + "px"; }
        else tip.hidden = true;
      }
    });
    canvas.addEventListener("click", function (ev) {
      if (moved) return;
      var r = canvas.getBoundingClientRect();
      var n = at(ev.clientX - r.left, ev.clientY - r.top);
      if (n) { centre = n.id; setMode("near", true); }
    });
    canvas.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var r = canvas.getBoundingClientRect();
      zoom(ev.deltaY < 0 ? 1.2 : 1 / 1.2, ev.clientX - r.left, ev.clientY - r.top);
    }, { passive: false });
    canvas.addEventListener("keydown", function (ev) {
      if (ev.key === "+" || ev.key === "=") zoom(1.25, W / 2, H / 2);
      else if (ev.key === "-") zoom(0.8, W / 2, H / 2);
      else if (ev.key === "0") { fit(); draw(); }
    });
    function zoom(f, px, py) { view.x = px - (px - view.x) * f; view.y = py - (py - view.y) * f; view.z *= f; draw(); }

    function findNode(text) {
      var q = text.trim().toLowerCase();
      function named(n) { return [n.t].concat(n.a || []).map(function (x) { return x.toLowerCase(); }); }
      return data.nodes.filter(function (n) { return n.id === q || named(n).indexOf(q) >= 0; })[0] ||
             data.nodes.filter(function (n) { return named(n).some(function (x) { return x.indexOf(q) === 0; }); })
               .sort(function (a, b) { return b.r - a.r; })[0] || null;
    }
    /* Find shows the node: in the neighbourhood view it becomes the centre, in the whole
     * graph it is centred and lit. Its page is one click away ("Open entry"). */
    function find(text) {
      var n = text ? findNode(text) : null;
      focus = n && n.id;
      if (n && mode === "near") { centre = n.id; renderNear(); remember(true); }
      if (n && mode === "all") { view.z = Math.max(view.z, 1.5); view.x = W / 2 - (n.px !== undefined ? n.px : n.x) * view.z; view.y = H / 2 - (n.py !== undefined ? n.py : n.y) * view.z; }
      draw();
    }
    search.addEventListener("input", function () { find(search.value); });
    search.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { ev.preventDefault(); find(search.value); } });

    var pathBox = document.getElementById("atlas-path");
    if (pathBox) {
      var from = el("input", { list: "atlas-graph-names", placeholder: "From, e.g. vLLM", "aria-label": "From entry", class: "atlas-path__from" });
      var to = el("input", { list: "atlas-graph-names", placeholder: "To, e.g. memory bandwidth", "aria-label": "To entry", class: "atlas-path__to" });
      var go = el("button", { type: "button", class: "md-button atlas-path__go", text: "Show the path" });
      var out = el("ol", { class: "atlas-path__steps", "aria-live": "polite" });
      pathBox.replaceChildren(from, to, go, out);
      go.addEventListener("click", function () {
        var a = findNode(from.value), b = findNode(to.value);
        out.replaceChildren();
        if (!a || !b) { out.appendChild(el("li", { text: "Type two entry names from the list." })); return; }
        // The cheapest path (knowledge/graph.py PATH_COST): relations that explain cost
        // least, other typed relations more, mentions in prose most. Dijkstra on a small heap.
        var cost = data.cost || { explains: 1, typed: 3, mentions: 8 };
        function stepCost(r) { return r === "mentions" ? cost.mentions : explains.has(r) ? cost.explains : cost.typed; }
        var dist = {}, prev = {}, heap = [[0, a.id]];
        dist[a.id] = 0; prev[a.id] = null;
        while (heap.length) {
          heap.sort(function (p, q) { return q[0] - p[0]; });
          var top = heap.pop(), cur = top[1];
          if (top[0] > dist[cur]) continue;
          if (cur === b.id) break;
          adj[cur].forEach(function (x) {
            var d = top[0] + stepCost(x[1]);
            var better = !(x[0] in dist) || d < dist[x[0]] || (d === dist[x[0]] && prev[x[0]] && prev[x[0]][0] === cur && x[1] < prev[x[0]][1]);
            if (better) { dist[x[0]] = d; prev[x[0]] = [cur, x[1], x[2]]; heap.push([d, x[0]]); }
          });
        }
        var ids = [b.id], steps = [];
        while (prev[ids[0]]) { steps.unshift(prev[ids[0]]); ids.unshift(prev[ids[0]][0]); }
        path = ids;
        out.appendChild(el("li", {}, [link(byId[ids[0]])]));
        steps.forEach(function (s, i) {
          out.appendChild(el("li", {}, [document.createTextNode(relLabel(s[1], s[2]) + " "), link(byId[ids[i + 1]])]));
        });
        var used = uniq(steps.map(function (s) { return relLabel(s[1], s[2]).toLowerCase(); }));
        var allExplain = steps.every(function (s) { return explains.has(s[1]); });
        out.appendChild(el("li", { class: "atlas-path__used", text: "Relations used: " + used.join(", ") + "." +
          (allExplain ? " Each one explains how the two ideas connect." : " Relations that explain (is a, uses, mitigates, bottlenecked by, \u2026) were preferred; where none joins the two, others fill in.") }));
        draw();
      });
    }
    function link(n) { return el("a", { href: new URL(".." + n.u, location.href).href, text: n.t }); }

    /* The neighbourhood of `centre`, drawn as SVG rows: no two labels can overlap. */
    function groupsOf(id) {
      var groups = {}, order = [];
      adj[id].forEach(function (x) {
        var rel = x[1], other = byId[x[0]];
        if (!on.r.has(rel) || !visible(other) || other.id === id) return;
        var sym = LABELS[rel] && LABELS[rel][0] === LABELS[rel][1];
        var out = x[2] || sym, key = (out ? "out:" : "in:") + rel;
        if (!groups[key]) { groups[key] = { rel: rel, out: out, label: relLabel(rel, out), items: [] }; order.push(key); }
        if (groups[key].items.indexOf(other) < 0) groups[key].items.push(other);
      });
      return order.map(function (k) {
        var g = groups[k];
        g.items.sort(function (p, q) { return q.r - p.r || p.t.localeCompare(q.t); });
        return g;
      }).sort(function (p, q) { return (explains.has(q.rel) - explains.has(p.rel)) || q.items.length - p.items.length || p.label.localeCompare(q.label); });
    }
    var explains = set(data.explains || []);
    var GROUP_MAX = 12, ROW = 22, HEAD = 26, GAP = 12, measure = document.createElement("canvas").getContext("2d");
    function fitText(t, w) {
      measure.font = "13px sans-serif";
      if (measure.measureText(t).width <= w) return t;
      while (t.length > 1 && measure.measureText(t + "\u2026").width > w) t = t.slice(0, -1);
      return t + "\u2026";
    }
    function svgEl(tag, attrs, text) {
      var n = document.createElementNS(SVG, tag);
      Object.keys(attrs).forEach(function (k) { n.setAttribute(k, attrs[k]); });
      if (text !== undefined) n.textContent = text;
      return n;
    }
    function renderNear() {
      var c = byId[centre], groups = groupsOf(centre);
      var Wn = near.clientWidth || 800, wide = Wn >= 640;
      about.replaceChildren(
        el("p", { class: "atlas-near__title" }, [el("strong", { text: c.t }), document.createTextNode(" \u00b7 " + (KIND_NAMES[c.k] || c.k) + " \u00b7 "),
          el("a", { href: new URL(".." + c.u, location.href).href, class: "atlas-near__open", text: "Open entry \u2192" })]),
        el("p", { class: "atlas-near__short", text: c.s }),
        el("p", { class: "atlas-near__hint", text: groups.length ? "Read each group as \u201c" + c.t + " \u2014 relation \u2014 neighbour\u201d: relations it declares " + (wide ? "on the right" : "first") + ", those declared by its neighbours " + (wide ? "on the left" : "after") + "; solid lines are relations that explain. Click or tap a neighbour to centre it." : "No typed relation with the filters as they are: tick \u201cmentions\u201d under Filters, or pick another entry." }));
      var outs = groups.filter(function (g) { return g.out; }), ins = groups.filter(function (g) { return !g.out; });
      var parts = [], boxW = 190;
      function blockHeight(gs) { return gs.reduce(function (h, g) { return h + HEAD + ROW * Math.min(g.items.length, GROUP_MAX) + (g.items.length > GROUP_MAX ? ROW : 0) + GAP; }, 0); }
      var H, cx, cy, colW, cols;
      if (wide) {
        colW = (Wn - boxW) / 2 - 48;
        H = Math.max(blockHeight(outs), blockHeight(ins), 80) + 16;
        cx = Wn / 2; cy = H / 2;
        cols = [{ gs: ins, x0: 8, x1: 8 + colW, side: "left" }, { gs: outs, x0: Wn - 8 - colW, x1: Wn - 8, side: "right" }];
      } else {
        colW = Wn - 40;
        H = 56 + blockHeight(outs.concat(ins)) + 8;
        cx = Wn / 2; cy = 24;
        cols = [{ gs: outs.concat(ins), x0: 32, x1: Wn - 8, side: "below" }];
      }
      nearSvg.setAttribute("viewBox", "0 0 " + Wn + " " + H);
      nearSvg.setAttribute("width", Wn); nearSvg.setAttribute("height", H);
      nearSvg.setAttribute("role", "group");
      nearSvg.setAttribute("aria-label", "Neighbourhood of " + c.t + ": " + groups.map(function (g) { return g.label + " " + g.items.map(function (n) { return n.t; }).join(", "); }).join("; "));
      var edges = svgEl("g", { class: "atlas-near__edges" }), nodes = svgEl("g", {});
      cols.forEach(function (col) {
        var y = col.side === "below" ? 56 : (H - blockHeight(col.gs)) / 2 + 4;
        col.gs.forEach(function (g, gi) {
          var key = (g.out ? "out-" : "in-") + g.rel, hy = y + 16;
          var ax = col.side === "left" ? col.x1 : col.side === "right" ? col.x0 : col.x0;
          var d = col.side === "below" ? "M16 " + (cy + 12) + " V" + (hy - 5) + " H" + (ax - 4)
            : "M" + (col.side === "left" ? cx - boxW / 2 : cx + boxW / 2) + " " + cy + " C" + (col.side === "left" ? cx - boxW / 2 - 40 : cx + boxW / 2 + 40) + " " + cy + " " +
              (col.side === "left" ? ax + 40 : ax - 40) + " " + (hy - 5) + " " + ax + " " + (hy - 5);
          edges.appendChild(svgEl("path", { d: d, class: "atlas-near__edge" + (explains.has(g.rel) ? " atlas-near__edge--explains" : ""), "data-group": key }));
          var anchor = col.side === "left" ? "end" : "start", tx = col.side === "left" ? col.x1 - 6 : col.x0 + 6;
          nodes.appendChild(svgEl("text", { x: tx, y: hy, "text-anchor": anchor, class: "atlas-near__head", "data-group": key },
                                  fitText(g.label + " (" + g.items.length + ")", colW - 12)));
          y += HEAD;
          g.items.slice(0, GROUP_MAX).forEach(function (n) {
            var a = svgEl("a", { href: "?focus=" + encodeURIComponent(n.id), class: "atlas-near__item", "data-id": n.id, "data-group": key });
            var dotX = col.side === "left" ? col.x1 - 12 : col.x0 + 12;
            a.appendChild(svgEl("circle", { cx: dotX, cy: y + 9, r: 5, fill: COLOURS[n.k] || "#555" }));
            a.appendChild(svgEl("text", { x: col.side === "left" ? dotX - 10 : dotX + 10, y: y + 14, "text-anchor": anchor }, fitText(n.t, colW - 34)));
            a.appendChild(svgEl("title", {}, n.t + " \u2014 " + n.s));
            nodes.appendChild(a);
            y += ROW;
          });
          if (g.items.length > GROUP_MAX) {
            nodes.appendChild(svgEl("text", { x: col.side === "left" ? col.x1 - 22 : col.x0 + 22, y: y + 14, "text-anchor": anchor, class: "atlas-near__more" },
                                    "and " + (g.items.length - GROUP_MAX) + " more on its page"));
            y += ROW;
          }
          y += GAP;
        });
      });
      var box = svgEl("g", { class: "atlas-near__centre" });
      var bw = wide ? boxW : Wn - 16, bx = wide ? cx - boxW / 2 : 8;
      box.appendChild(svgEl("rect", { x: bx, y: cy - 16, width: bw, height: 32, rx: 6, fill: COLOURS[c.k] || "#555" }));
      box.appendChild(svgEl("text", { x: bx + bw / 2, y: cy + 5, "text-anchor": "middle" }, fitText(c.t, bw - 16)));
      nearSvg.replaceChildren(edges, box, nodes);
      root.dataset.centre = centre;
    }
    function remember(push) {
      var q = new URLSearchParams(location.search);
      q.set("focus", centre);
      if (mode === "all") q.set("view", "all"); else q.delete("view");
      var url = location.pathname + "?" + q.toString() + location.hash;
      if (push) history.pushState({ atlasGraph: 1 }, "", url); else history.replaceState({ atlasGraph: 1 }, "", url);
    }
    function setMode(m, push) {
      mode = m;
      near.hidden = m !== "near"; stage.hidden = m !== "all";
      nearBtn.setAttribute("aria-pressed", String(m === "near")); allBtn.setAttribute("aria-pressed", String(m === "all"));
      root.dataset.mode = m;
      if (m === "near") renderNear(); else resize();
      if (push !== undefined) remember(push);
    }
    nearSvg.addEventListener("click", function (ev) {
      var a = ev.target.closest && ev.target.closest("a.atlas-near__item");
      if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
      ev.preventDefault();
      centre = a.getAttribute("data-id"); renderNear(); remember(true);
      near.scrollIntoView({ block: "nearest" });
    });
    function hot(ev) {
      var t = ev.target.closest && ev.target.closest("[data-group]");
      nearSvg.classList.toggle("has-hot", !!t);
      Array.prototype.forEach.call(nearSvg.querySelectorAll(".is-hot"), function (x) { x.classList.remove("is-hot"); });
      if (!t) return;
      var key = t.getAttribute("data-group");
      Array.prototype.forEach.call(nearSvg.querySelectorAll("[data-group='" + key + "']"), function (x) {
        if (!x.classList.contains("atlas-near__item") || x === t.closest(".atlas-near__item") || !t.closest(".atlas-near__item")) x.classList.add("is-hot");
      });
    }
    nearSvg.addEventListener("mouseover", hot);
    nearSvg.addEventListener("focusin", hot);
    nearSvg.addEventListener("mouseleave", function () { nearSvg.classList.remove("has-hot"); });
    window.addEventListener("popstate", function () {
      var q = new URLSearchParams(location.search);
      if (byId[q.get("focus")]) centre = q.get("focus");
      setMode(q.get("view") === "all" ? "all" : "near");
    });
    window.addEventListener("resize", function () { if (mode === "all") resize(); else renderNear(); });
    setMode(mode);
    remember(false);
  }

  function uniq(xs) { return Array.from(new Set(xs)).sort(); }
  function set(xs) { return new Set(xs); }

  window.Atlas.onPage(mount);
})();
