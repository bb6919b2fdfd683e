/* Inference Atlas global graph: a canvas view of the whole concept graph.
 * Positions and node sizes (PageRank) come precomputed from the build (graph-view.json),
 * so the browser only draws: a frame is a few batched canvas calls, measured at 5,000
 * nodes by tests/test_graph_scale.py.
 * Filters by kind, category and relation; type to find and focus a node; click to open
 * its entry; drag to pan, wheel or +/- to zoom. Also answers "how is X related to Y?"
 * with the shortest path over typed edges. No library, no network beyond the JSON. */
(function () {
  "use strict";
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
    var controls = el("div", { class: "atlas-graph__controls" }, [search, names, filters]);
    root.replaceChildren(controls, legend, el("div", { class: "atlas-graph__stage" }, [canvas, tip]));

    function filter(title, key, values, name) {
      var box = el("fieldset", { class: "atlas-graph__filter" }, [el("legend", { text: title })]);
      values.forEach(function (v) {
        var input = el("input", { type: "checkbox", "data-key": key, value: v });
        input.checked = on[key].has(v);
        input.addEventListener("change", function () { if (input.checked) on[key].add(v); else on[key].delete(v); draw(); });
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
    function sx(n) { return n.x * view.z + view.x; }
    function sy(n) { return n.y * view.z + view.y; }
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
      var near = focus ? neighbours(focus) : null;
      var plain = new Path2D(), lit = new Path2D();
      data.edges.forEach(function (e) {
        var a = byId[e[0]], b = byId[e[1]];
        if (!on.r.has(e[2]) || !visible(a) || !visible(b)) return;
        var p = near && (e[0] === focus || e[1] === focus) ? lit : plain;
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
      if (n) location.href = new URL(".." + n.u, location.href).href;
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
    search.addEventListener("input", function () {
      var n = search.value ? findNode(search.value) : null;
      focus = n && n.id;
      if (n) { view.z = Math.max(view.z, 1.5); view.x = W / 2 - n.x * view.z; view.y = H / 2 - n.y * view.z; }
      draw();
    });
    search.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { var n = findNode(search.value); if (n) location.href = new URL(".." + n.u, location.href).href; }
    });

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
        // The shortest path over typed relations; mentions in prose only where no typed path exists.
        function bfs(typedOnly) {
          var prev = {}; prev[a.id] = null; var queue = [a.id];
          while (queue.length && !(b.id in prev)) {
            var cur = queue.shift();
            adj[cur].forEach(function (x) {
              if (typedOnly && x[1] === "mentions") return;
              if (!(x[0] in prev)) { prev[x[0]] = [cur, x[1], x[2]]; queue.push(x[0]); }
            });
          }
          return prev;
        }
        var prev = bfs(true);
        if (!(b.id in prev)) prev = bfs(false);
        if (!(b.id in prev)) { out.appendChild(el("li", { text: "No path between them." })); path = []; draw(); return; }
        var ids = [b.id], steps = [];
        while (prev[ids[0]]) { steps.unshift(prev[ids[0]]); ids.unshift(prev[ids[0]][0]); }
        path = ids;
        out.appendChild(el("li", {}, [link(byId[ids[0]])]));
        steps.forEach(function (s, i) {
          out.appendChild(el("li", {}, [document.createTextNode(relLabel(s[1], s[2]) + " "), link(byId[ids[i + 1]])]));
        });
        draw();
      });
    }
    function link(n) { return el("a", { href: new URL(".." + n.u, location.href).href, text: n.t }); }

    window.addEventListener("resize", resize);
    resize();
  }

  function uniq(xs) { return Array.from(new Set(xs)).sort(); }
  function set(xs) { return new Set(xs); }

  window.Atlas.onPage(mount);
})();
