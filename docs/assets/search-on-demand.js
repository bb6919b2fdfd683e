/* Inference Atlas search tweaks, loaded before Material's bundle (overrides/main.html).
 *
 * 1. Download the search index only when the reader starts a search.
 * Material for MkDocs requests search/search_index.json with XMLHttpRequest as soon as a
 * page loads. This script runs first (overrides/main.html) and defers that one request
 * until the search field gets focus: by click, tap, or Material's "/" and "s" shortcuts,
 * which all focus the field. Every other request passes through untouched. Where the page
 * has the entries search (atlas-search.js), the full-text index waits further, until the
 * entries file and its definitions have arrived: on a slow phone connection the small files
 * that answer titles and aliases are not made to share the line with the index of every
 * word (2.3 MB).
 *
 * 2. Exact words first. Material searches every word as a prefix (TP becomes TP*), so an
 * abbreviation also matches longer words (TPU, TPS, TPOT) and a page with several of them
 * outranks the entry whose alias is exactly TP. Each plain word of a query is sent to the
 * search worker twice: as typed, and once more as an exact, boosted term (TP^20), which
 * Material's query syntax leaves without a wildcard. What the reader sees is unchanged. */
(function () {
  "use strict";
  var INDEX = /\/search\/search_index\.json(\?|#|$)/;
  var wanted = false, waiting = [], focused = false;
  var open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;

  function want() {
    if (wanted) return;
    wanted = true;
    waiting.splice(0).forEach(function (go) { go(); });
  }

  XMLHttpRequest.prototype.open = function (method, url) {
    this.__atlasDeferred = INDEX.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var xhr = this, args = arguments;
    if (xhr.__atlasDeferred && !wanted) {
      waiting.push(function () { send.apply(xhr, args); });
      return undefined;
    }
    return send.apply(xhr, args);
  };

  var post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message) {
    // Material's search protocol: { type: 2, data: "query text" } asks for results.
    if (message && message.type === 2 && typeof message.data === "string") {
      var words = [], exact = [];
      message.data.split(/\s+/).forEach(function (w) {
        // KV-cache is searched as kv cache; llama.cpp and mistral.rs stay whole, as indexed.
        if (/^[A-Za-z0-9]+([.-][A-Za-z0-9]+)*$/.test(w)) {
          w.split("-").forEach(function (part) { words.push(part); exact.push(part + "^20"); });
        } else if (w) {
          words.push(w);
        }
      });
      if (exact.length) message = { type: message.type, data: words.concat(exact).join(" ") };
    }
    return post.apply(this, [message].concat(Array.prototype.slice.call(arguments, 1)));
  };

  document.addEventListener("focusin", function (e) {
    if (!(e.target && e.target.classList && e.target.classList.contains("md-search__input")) || focused) return;
    focused = true;
    if (!window.__atlasSearch) { want(); return; }  // no entries search on this page: nothing to wait for
    document.addEventListener("atlas:entries", want, { once: true });
    setTimeout(want, 4000);  // the entries file failed or is very slow: full text regardless
  }, true);
})();
