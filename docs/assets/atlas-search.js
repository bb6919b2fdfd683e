/* Inference Atlas: entries first, forgiving misspellings, in Material's search box.
 *
 * On the first focus of the search field this loads MiniSearch (assets/vendor) and
 * search/entries.json (one short record per entry, comparison page and tool, written by
 * generator/exports/search_index.py), then the definitions (search/definitions.json), and
 * from then on answers every keystroke from them, above
 * Material's full-text results: titles and aliases within one or two edits ("pagedatention"),
 * "A vs B" to the comparison of A and B, and questions about choosing or sizing to the guide
 * or the calculator. Each result shows its title, its kind and its one-line definition once.
 * Nothing is fetched from outside the site; everything is inserted as text. */
(function () {
  "use strict";
  if (window.__atlasSearch) return;  // instant navigation may run the script again: one set of listeners
  window.__atlasSearch = true;
  var script = document.currentScript;
  var ROOT = script ? script.src.replace(/assets\/atlas-search\.js(\?.*)?$/, "") : "/";
  var STOP = {};
  ("a an and are can do does for how i in is it me my of on or should the to what which with " +
   "would you your").split(" ").forEach(function (w) { STOP[w] = true; });
  var FIRST = 1500;
  var mini = null, docs = null, exact = {}, loading = null, lastQuery = "";

  function processTerm(term) {
    term = term.toLowerCase();
    return STOP[term] ? null : term;
  }

  function fuzzy(term) {
    return term.length >= 8 ? 2 : term.length >= 5 ? 1 : 0;
  }

  function load() {
    if (loading) return loading;
    // MiniSearch and the records travel together (one round trip, not two, on a slow line);
    // the definitions follow once the records are indexed, and the full-text index after them.
    loading = Promise.all([new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = ROOT + "assets/vendor/minisearch.js";
      s.onload = resolve;
      s.onerror = reject;
      document.head.appendChild(s);
    }), fetch(ROOT + "search/entries.json").then(function (r) { return r.json(); })]).then(function (both) {
      var data = both[1];
      docs = {};
      data.forEach(function (d) {
        docs[d.id] = d;
        [d.title].concat(d.aliases ? d.aliases.split(" · ") : []).forEach(function (name) {
          var key = norm(name);
          if (!(key in exact)) exact[key] = d.id;
        });
      });
      mini = new window.MiniSearch({
        fields: ["title", "aliases", "phrases"],  // the definition is shown, not searched: indexing it tripled the cost at 10,000 entries
        storeFields: ["id"],
        processTerm: processTerm,
        searchOptions: { boost: { title: 5, aliases: 4, phrases: 2 }, fuzzy: fuzzy, prefix: true,
                         processTerm: processTerm }
      });
      // The first records (tools, then the best connected entries) at once, the rest in the
      // background: at 10,000 entries indexing everything took about 0.3 s before a first answer.
      mini.addAll(data.slice(0, FIRST));
      render(lastQuery);
      var defined = function () {
        render(lastQuery);
        document.dispatchEvent(new Event("atlas:entries"));  // search-on-demand.js lets the full-text index load now
      };
      fetch(ROOT + "search/definitions.json").then(function (r) { return r.json(); }).then(function (defs) {
        Object.keys(defs).forEach(function (id) { if (docs[id]) docs[id].short = defs[id]; });
      }).then(defined, defined);
      if (data.length > FIRST) {
        mini.addAllAsync(data.slice(FIRST), { chunkSize: 500 }).then(function () { render(lastQuery); });
      }
    });
    return loading;
  }

  function search(q) {
    var vs = /^\s*(.+?)\s+(?:vs\.?|versus|or|against)\s+(.+?)\s*$/i.exec(q);
    if (vs) {
      var sides = [vs[1], vs[2]].map(function (side) {
        var hit = mini.search(side).filter(function (r) { return docs[r.id].kind !== "Comparison" && docs[r.id].kind !== "Calculator"; })[0];
        return hit ? hit.id : null;
      });
      if (sides[0] && sides[1]) {
        var out = [];
        Object.keys(docs).forEach(function (id) {
          var p = docs[id].pair;
          if (p && p.indexOf(sides[0]) >= 0 && p.indexOf(sides[1]) >= 0) out.push(id);
        });
        if (!out.length) out.push("compare");
        return out.concat(sides);
      }
    }
    // A question about choosing or sizing ("which gpu should I buy") leads to a guide or the calculator.
    var question = /^\s*(which|what|how|should|do|does|can|will|is)\b|\?\s*$/i.test(q);
    var opts = question ? { boostDocument: function (id) {
      var kind = docs[id].kind;
      return kind === "Decision guide" || kind === "Calculator" ? 4 : 1;
    } } : {};
    // Words found as typed (or as the start of a word) come before words found only within
    // an edit or two: "iogpu" is the Mac's iogpu.wired_limit_mb, not an entry that says "iGPU".
    var asTyped = mini.search(q, Object.assign({ fuzzy: false }, opts)).map(function (r) { return r.id; });
    var seen = {};
    asTyped.forEach(function (id) { seen[id] = true; });
    var hits = asTyped.concat(mini.search(q, opts).map(function (r) { return r.id; }).filter(function (id) { return !seen[id]; }));
    // A near miss of a whole name counts only where no entry has every word exactly as typed.
    var allTyped = mini.search(q, Object.assign({ fuzzy: false, prefix: false, combineWith: "AND" }, opts)).length > 0;
    var same = exact[norm(q)] || (allTyped ? null : closest(norm(q)));  // a title or alias typed in full comes first: "kv cache",
    return same ? [same].concat(hits.filter(function (id) { return id !== same; })) : hits;  // or nearly: "kv cahce"
  }

  /* The entry whose whole title or alias is within the typo budget of the whole query (one
   * edit from 5 characters, two from 8; none for names with digits), nearest first: a misspelt "kv cahce" is the KV cache,
   * not an entry whose longer name merely contains a word near "cahce". Only names of about
   * the query's length are compared, so the cost stays small as the index grows. */
  function closest(q) {
    var budget = fuzzy(q), best = null, bestD = budget + 1;
    if (!budget || /\d/.test(q)) return null;  // H100 and A100 are one edit apart and two devices
    Object.keys(exact).forEach(function (name) {
      if (Math.abs(name.length - q.length) > budget) return;
      var d = distance(q, name, bestD);
      if (d < bestD || (d === bestD && best !== null && name < best)) { bestD = d; best = name; }
    });
    return best === null || bestD > budget ? null : exact[best];
  }

  function distance(a, b, stop) {  /* Levenshtein, abandoned once every cell of a row is past `stop` */
    var prev = [], cur, i, j;
    for (j = 0; j <= b.length; j++) prev[j] = j;
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      var low = i;
      for (j = 1; j <= b.length; j++) {
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (cur[j] < low) low = cur[j];
      }
      if (low > stop) return low;
      prev = cur;
    }
    return prev[b.length];
  }

  function norm(s) {
    return s.toLowerCase().replace(/[-_\s]+/g, " ").trim();
  }

  function item(d) {
    var li = document.createElement("li");
    li.className = "md-search-result__item atlas-search__item";
    var a = document.createElement("a");
    a.className = "md-search-result__link";
    a.href = ROOT + d.url.replace(/^\//, "");
    a.tabIndex = -1;
    var article = document.createElement("article");
    article.className = "md-search-result__article md-typeset";
    var h = document.createElement("h1");
    h.textContent = d.title;
    var kind = document.createElement("span");
    kind.className = "atlas-search__kind";
    kind.textContent = d.kind;
    h.appendChild(document.createTextNode(" "));
    h.appendChild(kind);
    article.appendChild(h);
    if (d.short) {  // the definitions arrive just after the records (search/definitions.json)
      var p = document.createElement("p");
      p.textContent = d.short;
      article.appendChild(p);
    }
    a.appendChild(article);
    li.appendChild(a);
    return li;
  }

  function render(q) {
    var result = document.querySelector(".md-search-result");
    if (!result) return;
    var list = result.querySelector(".atlas-search");
    if (!list) {
      list = document.createElement("ol");
      list.className = "md-search-result__list atlas-search";
      list.setAttribute("aria-label", "Entries");
      result.insertBefore(list, result.firstChild);
    }
    list.textContent = "";
    q = (q || "").trim();
    if (!mini) return;
    list.dataset.query = q;  // for tests and the benchmark: which query the list answers
    if (q.length < 2) return;
    var seen = {};
    search(q).forEach(function (id) {
      if (seen[id] || Object.keys(seen).length >= 5) return;
      seen[id] = true;
      list.appendChild(item(docs[id]));
    });
    dedupe(result);
  }

  /* Material's full-text list below ours: a page already shown above is not listed again
   * (Material fills its list from a worker, later, so this runs on each change of it too). */
  function dedupe(result) {
    var ours = {};
    Array.prototype.forEach.call(result.querySelectorAll(".atlas-search a"), function (a) { ours[a.pathname] = true; });
    Array.prototype.forEach.call(result.querySelectorAll(".md-search-result__list:not(.atlas-search) > li"), function (li) {
      var a = li.querySelector("a");
      li.hidden = !!(a && ours[a.pathname]);
    });
  }
  var watched = null;
  function watch() {
    var result = document.querySelector(".md-search-result");
    if (!result || result === watched || !window.MutationObserver) return;
    watched = result;
    new MutationObserver(function () { dedupe(result); }).observe(result, { childList: true, subtree: true });
  }

  document.addEventListener("focusin", function (e) {
    if (e.target && e.target.classList && e.target.classList.contains("md-search__input")) load();
  }, true);
  document.addEventListener("input", function (e) {
    if (!(e.target && e.target.classList && e.target.classList.contains("md-search__input"))) return;
    lastQuery = e.target.value;
    watch();
    if (mini) render(lastQuery); else load();
  }, true);
})();
