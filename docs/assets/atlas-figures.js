/* Inference Atlas: the batching simulator (generator/diagrams.py writes its markup).
 * The reader adds requests and changes the number of slots; two timelines show the same
 * requests under static and continuous batching, with the same rules as diagrams.schedule
 * in Python (a browser test checks the counts agree). No dependency, nothing fetched.
 * The SVG is drawn at the column's own pixel width (viewBox = pixels), so its 14 px labels
 * stay 14 px on a phone and on a laptop. */
(function () {
  "use strict";

  var NS = "http://www.w3.org/2000/svg";
  var NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  var MAX_REQUESTS = 26;

  function schedule(lengths, slots, continuous) {
    var waiting = lengths.map(function (_, i) { return i; });
    var left = lengths.map(function () { return 0; });
    var slot = [], steps = [], i;
    for (i = 0; i < slots; i++) slot.push(null);
    function busy() { return slot.some(function (r) { return r !== null; }); }
    while ((waiting.length || busy()) && steps.length < 1000) {
      if (continuous || !busy()) {
        for (i = 0; i < slots; i++) {
          if (slot[i] === null && waiting.length) { var r = waiting.shift(); slot[i] = r; left[r] = lengths[r]; }
        }
      }
      steps.push(slot.slice());
      var worked = slot.map(function (r) { if (r !== null && left[r] > 0) { left[r]--; return r; } return null; });
      steps[steps.length - 1].work = worked;
      if (continuous) slot = slot.map(function (r) { return r !== null && left[r] === 0 ? null : r; });
      else if (slot.every(function (r) { return r === null || left[r] === 0; })) slot = slot.map(function () { return null; });
    }
    return steps;
  }

  function stats(steps, n) {
    var end = [], busy = 0, cells = 0;
    steps.forEach(function (row, t) {
      row.work.forEach(function (r) { cells++; if (r !== null) { busy++; end[r] = t + 1; } });
    });
    var sum = 0;
    for (var i = 0; i < n; i++) sum += end[i] || 0;
    return { steps: steps.length, mean: n ? sum / n : 0, busy: cells ? busy / cells : 0 };
  }

  function node(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function draw(out, lengths, slots) {
    var width = Math.max(280, Math.floor(out.clientWidth || 600));
    var plans = [["Static", schedule(lengths, slots, false)], ["Continuous", schedule(lengths, slots, true)]];
    var n = Math.max(plans[0][1].length, plans[1][1].length, 1);
    var left = 58, row = 24, cell = (width - left - 4) / n;
    var height = 2 * (30 + slots * row + 14) + 24;
    var svg = node("svg", { viewBox: "0 0 " + width + " " + height, width: width, height: height, role: "img",
                            class: "atlas-sim__svg", focusable: "false" });
    var y = 4, label = [];
    plans.forEach(function (p) {
      var st = stats(p[1], lengths.length);
      svg.appendChild(node("text", { x: 4, y: y + 16, class: "atlas-dg__strong" },
        p[0] + ": " + lengths.length + " done in " + st.steps + " steps"));
      label.push(p[0] + " batching finishes all " + lengths.length + " requests after " + st.steps + " steps");
      y += 28;
      for (var s = 0; s < slots; s++) {
        svg.appendChild(node("text", { x: left - 8, y: y + s * row + 16, "text-anchor": "end", class: "atlas-dg__small" }, "slot " + (s + 1)));
        for (var t = 0; t < n; t++) {
          var step = p[1][t], r = step ? step.work[s] : null, held = step && step[s] !== null;
          var x = left + t * cell;
          var cls = r !== null ? "atlas-dg__r" + (r % 8) : held ? "atlas-dg__idle" : "atlas-dg__free";
          svg.appendChild(node("rect", { x: x.toFixed(1), y: y + s * row, width: Math.max(1, cell - 2).toFixed(1), height: row - 3, rx: 2, class: cls }));
          if (r !== null && cell >= 16) {
            svg.appendChild(node("text", { x: (x + (cell - 2) / 2).toFixed(1), y: y + s * row + 16, "text-anchor": "middle", class: "atlas-dg__small" }, NAMES[r]));
          }
        }
      }
      y += slots * row + 14;
    });
    svg.appendChild(node("text", { x: left, y: y + 12, class: "atlas-dg__small" }, "one column = one forward pass →"));
    svg.setAttribute("aria-label", "Two timelines of " + slots + " slots for " + lengths.length + " requests of " +
      lengths.join(", ") + " tokens. " + label.join("; ") + ".");
    out.replaceChildren(svg);
    return plans.map(function (p) { return stats(p[1], lengths.length); });
  }

  function mount(fig) {
    if (fig.dataset.simMounted) return;
    fig.dataset.simMounted = "1";
    var initial = fig.dataset.lengths.split(",").map(Number);
    var state = { lengths: initial.slice(), slots: Number(fig.dataset.slots) || 4 };
    var controls = fig.querySelector(".atlas-sim__controls");
    var out = fig.querySelector(".atlas-sim__out");
    var summary = fig.querySelector(".atlas-sim__summary");
    var len = fig.querySelector('[data-sim="len"]'), slots = fig.querySelector('[data-sim="slots"]');
    var add = fig.querySelector('[data-sim="add"]');
    controls.hidden = false;

    function render() {
      var r = draw(out, state.lengths, state.slots);
      fig.querySelector(".atlas-sim__len").textContent = len.value;
      fig.querySelector(".atlas-sim__slots").textContent = state.slots;
      add.disabled = state.lengths.length >= MAX_REQUESTS;
      summary.textContent = state.lengths.length + " requests on " + state.slots + " slot" + (state.slots > 1 ? "s" : "") +
        ": continuous batching finishes them all in " + r[1].steps + " steps, static in " + r[0].steps +
        "; a request is done after " + r[1].mean.toFixed(1) + " steps on average against " + r[0].mean.toFixed(1) +
        "; slots do useful work " + Math.round(r[1].busy * 100) + "% of the time against " + Math.round(r[0].busy * 100) + "%.";
      fig.dataset.staticSteps = r[0].steps;
      fig.dataset.continuousSteps = r[1].steps;
    }

    add.addEventListener("click", function () {
      if (state.lengths.length < MAX_REQUESTS) state.lengths.push(Number(len.value));
      render();
    });
    len.addEventListener("input", function () { fig.querySelector(".atlas-sim__len").textContent = len.value; });
    slots.addEventListener("input", function () { state.slots = Number(slots.value); render(); });
    fig.querySelector('[data-sim="reset"]').addEventListener("click", function () {
      state.lengths = initial.slice();
      state.slots = Number(fig.dataset.slots) || 4;
      slots.value = state.slots;
      render();
    });
    var last = out.clientWidth;
    window.addEventListener("resize", function () {
      if (out.clientWidth !== last) { last = out.clientWidth; render(); }
    });
    render();
  }

  function mountAll() {
    document.querySelectorAll('[data-atlas-sim="batching"]').forEach(mount);
  }

  window.AtlasSim = { schedule: schedule };
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(mountAll);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
