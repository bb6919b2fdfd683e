/* Sortable tables: click (or press Enter on) a column heading inside .atlas-sortable to
 * sort by it; numbers sort numerically, empty cells last. aria-sort reports the order. */
(function () {
  "use strict";
  function value(cell) {
    var t = cell.textContent.trim().replace(/,/g, "");
    var n = parseFloat(t);
    return t === "" ? null : (isNaN(n) ? t.toLowerCase() : n);
  }
  function mount() {
    document.querySelectorAll(".atlas-sortable table").forEach(function (table) {
      if (table.dataset.sortable) return;
      table.dataset.sortable = "1";
      var heads = table.querySelectorAll("thead th");
      heads.forEach(function (th, col) {
        th.tabIndex = 0;
        th.setAttribute("role", "columnheader");
        th.style.cursor = "pointer";
        function sort() {
          var asc = th.getAttribute("aria-sort") !== "ascending";
          heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
          th.setAttribute("aria-sort", asc ? "ascending" : "descending");
          var body = table.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows);
          rows.sort(function (a, b) {
            var x = value(a.cells[col]), y = value(b.cells[col]);
            if (x === null) return 1;
            if (y === null) return -1;
            if (x < y) return asc ? -1 : 1;
            if (x > y) return asc ? 1 : -1;
            return 0;
          });
          rows.forEach(function (r) { body.appendChild(r); });
        }
        th.addEventListener("click", sort);
        th.addEventListener("keydown", function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); sort(); } });
      });
    });
  }
  window.Atlas.onPage(mount);
})();
