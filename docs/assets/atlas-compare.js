/* Inference Atlas: the engine comparison matrix as a compare view.
 *
 * On the matrix page (engines/compare/) the reader picks two to four engines, and every
 * table shows only their columns; "Differences only" hides the rows where the picked
 * engines all have the same answer; "Must support" keeps only the engines that support
 * every chosen row (yes, partial or via a plugin); "Licence" keeps the engines under one
 * licence; "I run on" hides the rows of other platforms (Metal, SYCL, MLX for a CUDA user).
 * The choice lives in the URL (?engines=vllm,sglang&diff=1&need=gguf&licence=MIT&platform=cuda),
 * so a comparison can be shared. Cells keep their
 * links to sources: columns and rows are hidden, never rebuilt. Without JavaScript the
 * full matrix shows. */
(function () {
  "use strict";
  var MAX = 4;

  function mount() {
    var tables = Array.prototype.slice.call(document.querySelectorAll(".atlas-matrix table"));
    if (!tables.length || document.querySelector(".atlas-compare")) return;
    var engines = {}, order = [], rows = {};
    var models = tables.map(function (table) {
      var cols = Array.prototype.map.call(table.tHead.rows[0].cells, function (th, i) {
        var a = th.querySelector("a[data-atlas-id]");
        if (!a || i === 0) return null;
        var id = a.getAttribute("data-atlas-id");
        if (!(id in engines)) { engines[id] = a.textContent.trim(); order.push(id); }
        return id;
      });
      Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
        var a = tr.cells[0].querySelector("a[data-atlas-id]");
        if (a) rows[a.getAttribute("data-atlas-id")] = a.textContent.trim();
      });
      return { table: table, cols: cols };
    });
    order.sort(function (a, b) { return engines[a].localeCompare(engines[b]); });
    var licences = {};  // engine id -> its licence, from the matrix's licence table
    var licTable = document.querySelector(".atlas-matrix--licence table");
    if (licTable && licTable.tBodies[0].rows[0]) {
      var licRow = licTable.tBodies[0].rows[0];
      Array.prototype.forEach.call(licTable.tHead.rows[0].cells, function (th, i) {
        var a = th.querySelector("a[data-atlas-id]");
        if (a && i > 0) licences[a.getAttribute("data-atlas-id")] = licRow.cells[i].textContent.trim();
      });
    }

    var params = new URLSearchParams(location.search);
    var picked = (params.get("engines") || "").split(",").filter(function (id) { return id in engines; }).slice(0, MAX);
    var diff = params.get("diff") === "1";
    var need = (params.get("need") || "").split(",").filter(function (id) { return id in rows; });
    var licenceValues = Object.keys(licences).map(function (id) { return licences[id]; })
      .filter(function (v, i, all) { return v && all.indexOf(v) === i; }).sort();
    var licence = licenceValues.indexOf(params.get("licence")) >= 0 ? params.get("licence") : "";
    var platformData = document.querySelector(".atlas-platforms");
    platformData = platformData ? JSON.parse(platformData.getAttribute("data-platforms")) : { labels: {}, rows: {} };
    var platform = params.get("platform") in platformData.labels ? params.get("platform") : "";
    function mattersOn(rowId) { var p = platformData.rows[rowId]; return !platform || !p || p.indexOf(platform) >= 0; }

    var box = document.createElement("form");
    box.className = "atlas-compare";
    box.setAttribute("aria-label", "Compare engines");
    var legend = document.createElement("p");
    legend.className = "atlas-compare__title";
    legend.textContent = "Compare up to " + MAX + " engines: pick them, then show only where they differ.";
    box.appendChild(legend);
    var list = document.createElement("div");
    list.className = "atlas-compare__engines";
    order.forEach(function (id) {
      var label = document.createElement("label");
      var input = document.createElement("input");
      input.type = "checkbox";
      input.value = id;
      input.checked = picked.indexOf(id) >= 0;
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + engines[id]));
      list.appendChild(label);
    });
    box.appendChild(list);
    var controls = document.createElement("div");
    controls.className = "atlas-compare__controls";
    var diffLabel = document.createElement("label");
    var diffBox = document.createElement("input");
    diffBox.type = "checkbox";
    diffBox.checked = diff;
    diffBox.className = "atlas-compare__diff";
    diffLabel.appendChild(diffBox);
    diffLabel.appendChild(document.createTextNode(" Differences only"));
    controls.appendChild(diffLabel);
    var needLabel = document.createElement("label");
    needLabel.appendChild(document.createTextNode("Must support "));
    var select = document.createElement("select");
    select.className = "atlas-compare__need";
    var none = document.createElement("option");
    none.value = "";
    none.textContent = "(add a requirement)";
    select.appendChild(none);
    Object.keys(rows).sort(function (a, b) { return rows[a].localeCompare(rows[b]); }).forEach(function (id) {
      var o = document.createElement("option");
      o.value = id;
      o.textContent = rows[id];
      select.appendChild(o);
    });
    needLabel.appendChild(select);
    controls.appendChild(needLabel);
    var platLabel = document.createElement("label");
    platLabel.appendChild(document.createTextNode("I run on "));
    var platSelect = document.createElement("select");
    platSelect.className = "atlas-compare__platform";
    [""].concat(Object.keys(platformData.labels)).forEach(function (v) {
      var o = document.createElement("option");
      o.value = v;
      o.textContent = v ? platformData.labels[v] : "any platform";
      platSelect.appendChild(o);
    });
    platSelect.value = platform;
    platLabel.appendChild(platSelect);
    if (Object.keys(platformData.labels).length) controls.appendChild(platLabel);
    var licLabel = document.createElement("label");
    licLabel.appendChild(document.createTextNode("Licence "));
    var licSelect = document.createElement("select");
    licSelect.className = "atlas-compare__licence";
    [""].concat(licenceValues).forEach(function (v) {
      var o = document.createElement("option");
      o.value = v;
      o.textContent = v || "any";
      licSelect.appendChild(o);
    });
    licSelect.value = licence;
    licLabel.appendChild(licSelect);
    if (licenceValues.length) controls.appendChild(licLabel);
    var chips = document.createElement("span");
    chips.className = "atlas-compare__chips";
    controls.appendChild(chips);
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "md-button atlas-compare__clear";
    clear.textContent = "Show all";
    controls.appendChild(clear);
    box.appendChild(controls);
    var status = document.createElement("p");
    status.className = "atlas-compare__status";
    status.setAttribute("aria-live", "polite");
    box.appendChild(status);
    var first = document.querySelector(".atlas-matrix");
    var heading = first.previousElementSibling;
    first.parentNode.insertBefore(box, heading && /^H[23]$/.test(heading.tagName) ? heading : first);

    function supports(model, id, tr) {
      var i = model.cols.indexOf(id);
      if (i < 0) return false;
      var cell = tr.cells[i].querySelector(".atlas-cell");
      return !!cell && !cell.classList.contains("atlas-cell--no") && !cell.classList.contains("atlas-cell--unknown");
    }

    function apply() {
      var show = picked.length >= 2 ? picked : null;
      var allowed = {};
      order.forEach(function (id) { allowed[id] = !licence || licences[id] === licence; });
      need.forEach(function (rowId) {
        models.forEach(function (m) {
          Array.prototype.forEach.call(m.table.tBodies[0].rows, function (tr) {
            var a = tr.cells[0].querySelector("a[data-atlas-id]");
            if (!a || a.getAttribute("data-atlas-id") !== rowId) return;
            m.cols.forEach(function (id) { if (id && !supports(m, id, tr)) allowed[id] = false; });
          });
        });
        order.forEach(function (id) {  // an engine without the row's table at all cannot support it
          var seen = models.some(function (m) {
            return m.cols.indexOf(id) >= 0 && Array.prototype.some.call(m.table.tBodies[0].rows, function (tr) {
              var a = tr.cells[0].querySelector("a[data-atlas-id]");
              return a && a.getAttribute("data-atlas-id") === rowId;
            });
          });
          if (!seen) allowed[id] = false;
        });
      });
      var visibleEngines = {};
      models.forEach(function (m) {
        var shown = m.cols.map(function (id) { return id && (!show || show.indexOf(id) >= 0) && allowed[id]; });
        shown.forEach(function (on, i) { if (on) visibleEngines[m.cols[i]] = true; });
        Array.prototype.forEach.call(m.table.rows, function (tr) {
          Array.prototype.forEach.call(tr.cells, function (td, i) { if (i > 0) td.hidden = !shown[i]; });
        });
        var anyRow = false;
        Array.prototype.forEach.call(m.table.tBodies[0].rows, function (tr) {
          var values = [];
          shown.forEach(function (on, i) {
            if (!on) return;
            var cell = tr.cells[i].querySelector(".atlas-cell");
            values.push(cell ? cell.textContent.trim() : "unknown");
          });
          var same = values.every(function (v) { return v === values[0]; });
          var rowLink = tr.cells[0].querySelector("a[data-atlas-id]");
          tr.hidden = !values.length || (diff && values.length >= 2 && same) || (rowLink && !mattersOn(rowLink.getAttribute("data-atlas-id")));
          if (!tr.hidden) anyRow = true;
        });
        var wrap = m.table.closest(".atlas-matrix");
        wrap.hidden = !anyRow;
        var h = wrap.previousElementSibling;
        if (h && /^H2$/.test(h.tagName)) h.hidden = !anyRow;
      });
      chips.textContent = "";
      need.forEach(function (rowId) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "atlas-compare__chip";
        b.textContent = rows[rowId] + " \u00d7";
        b.setAttribute("aria-label", "Remove requirement " + rows[rowId]);
        b.addEventListener("click", function () { need = need.filter(function (x) { return x !== rowId; }); update(); });
        chips.appendChild(b);
      });
      var n = Object.keys(visibleEngines).length;
      status.textContent = (show ? "Comparing " + show.filter(function (id) { return allowed[id]; }).map(function (id) { return engines[id]; }).join(", ")
                                 : n + " engines") + (diff ? "; rows where they differ" : "") +
                           (need.length ? "; supporting " + need.map(function (id) { return rows[id]; }).join(", ") : "") +
                           (licence ? "; licence " + licence : "") +
                           (platform ? "; rows that matter on " + platformData.labels[platform] : "") + ".";
    }

    function update() {
      var q = new URLSearchParams(location.search);
      ["engines", "diff", "need", "licence", "platform"].forEach(function (k) { q.delete(k); });
      if (platform) q.set("platform", platform);
      if (picked.length) q.set("engines", picked.join(","));
      if (licence) q.set("licence", licence);
      if (diff) q.set("diff", "1");
      if (need.length) q.set("need", need.join(","));
      var s = q.toString();
      history.replaceState(null, "", location.pathname + (s ? "?" + s : "") + location.hash);
      apply();
    }

    list.addEventListener("change", function (e) {
      var id = e.target.value;
      if (e.target.checked) {
        if (picked.length >= MAX) { e.target.checked = false; status.textContent = "At most " + MAX + " engines at once."; return; }
        picked.push(id);
      } else {
        picked = picked.filter(function (x) { return x !== id; });
      }
      update();
    });
    diffBox.addEventListener("change", function () { diff = diffBox.checked; update(); });
    select.addEventListener("change", function () {
      if (select.value && need.indexOf(select.value) < 0) need.push(select.value);
      select.value = "";
      update();
    });
    licSelect.addEventListener("change", function () { licence = licSelect.value; update(); });
    platSelect.addEventListener("change", function () { platform = platSelect.value; update(); });
    clear.addEventListener("click", function () {
      picked = []; need = []; diff = false; diffBox.checked = false; licence = ""; licSelect.value = ""; platform = ""; platSelect.value = "";
      Array.prototype.forEach.call(list.querySelectorAll("input"), function (i) { i.checked = false; });
      update();
    });
    box.addEventListener("submit", function (e) { e.preventDefault(); });
    apply();
  }

  if (window.document$ && window.document$.subscribe) window.document$.subscribe(mount);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
