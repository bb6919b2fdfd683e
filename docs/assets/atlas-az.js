/* A-Z glossary index: filter as you type (titles, aliases and abbreviations) and by
 * category. Without JavaScript the full list shows and the controls stay hidden. */
(function () {
  "use strict";
  function norm(s) { return s.toLowerCase().replace(/[\s\-_]+/g, " ").trim(); }
  function mount() {
    var root = document.getElementById("atlas-az");
    if (!root || root.dataset.mounted) return;
    root.dataset.mounted = "1";
    var controls = root.querySelector(".atlas-az__controls");
    var input = root.querySelector(".atlas-az__filter");
    var count = root.querySelector(".atlas-az__count");
    var buttons = Array.prototype.slice.call(root.querySelectorAll(".atlas-az__cat"));
    var items = Array.prototype.slice.call(root.querySelectorAll("li[data-names]")).map(function (li) {
      return { li: li, cat: li.getAttribute("data-cat"), names: li.getAttribute("data-names").split("|").map(norm) };
    });
    var cats = new Set();
    controls.hidden = false;
    function apply() {
      var q = norm(input.value), shown = 0;
      items.forEach(function (it) {
        var ok = (!cats.size || cats.has(it.cat)) && (!q || it.names.some(function (n) { return n.indexOf(q) !== -1; }));
        it.li.hidden = !ok;
        if (ok) shown++;
      });
      root.querySelectorAll(".atlas-az__list").forEach(function (ul) {
        var any = ul.querySelector("li:not([hidden])");
        ul.hidden = !any;
        var h = ul.previousElementSibling;
        if (h && h.classList.contains("atlas-az__letter")) h.hidden = !any;
      });
      count.textContent = shown === items.length ? items.length + " entries" : shown + " of " + items.length + " entries";
    }
    input.addEventListener("input", apply);
    buttons.forEach(function (b) {
      b.addEventListener("click", function () {
        var c = b.getAttribute("data-cat");
        if (cats.has(c)) cats.delete(c); else cats.add(c);
        b.setAttribute("aria-pressed", cats.has(c) ? "true" : "false");
        apply();
      });
    });
    apply();
  }
  window.Atlas.onPage(mount);
})();
