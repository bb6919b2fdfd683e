/* Inference Atlas hover cards for any site: add
 *   <script src="https://<this site>/assets/atlas-embed.js" defer></script>
 * and the first mention of each term the atlas defines becomes a link to its entry, with
 * its one-line definition in a card on hover, keyboard focus or a first tap.
 *
 * It reads this site's glossary.json (cross-origin, without cookies or referrer; nothing
 * is sent anywhere else and nothing is stored). Code, preformatted text, links, headings,
 * buttons, form fields and anything inside [data-atlas-skip] are left alone. Options, as
 * attributes of the script tag: data-atlas-root="CSS selector" (where to look; the body
 * by default), data-atlas-max="N" (at most N terms linked; 50 by default).
 * The card lives in a shadow root, so the host page's styles do not reach it and its
 * styles do not reach the page; the links carry only an inline dotted underline. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || window.__atlasEmbed) return;
  window.__atlasEmbed = true;
  var site = new URL("../", script.src);  // this file is <site>/assets/atlas-embed.js
  var rootSelector = script.getAttribute("data-atlas-root");
  var max = parseInt(script.getAttribute("data-atlas-max") || "50", 10) || 50;
  var SKIP = "a, code, pre, kbd, samp, var, script, style, noscript, textarea, input, select, option, button, " +
    "h1, h2, h3, h4, h5, h6, svg, math, [contenteditable], [data-atlas-skip], atlas-card";
  var KINDS = { term: "Glossary", engine: "Engine", hardware: "Hardware", model: "Model", guide: "Decision guide" };

  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  /* A name written with capitals after its first letter (TTFT, vLLM, PagedAttention) is
   * matched as written; other names in any case. Two-letter names only as written. */
  function exact(name) { return /[A-Z]/.test(name.slice(1)) || name.length < 3; }

  function index(entries) {
    var names = {}, folded = {};
    entries.forEach(function (e) {
      [e.title].concat(e.aliases || []).forEach(function (n) {
        if (typeof n !== "string" || n.length < 2 || n.length > 80) return;
        if (exact(n)) { if (!names[n]) names[n] = e; }
        else if (!folded[n.toLowerCase()]) folded[n.toLowerCase()] = e;
      });
    });
    var all = Object.keys(names).concat(Object.keys(folded));
    if (!all.length) return null;
    all.sort(function (a, b) { return b.length - a.length; });  // the longest name wins
    var re = new RegExp("(^|[^\\w])(" + all.map(escapeRe).join("|") + ")(?![\\w])", "gi");
    return { re: re, find: function (text) { return names[text] || (exact(text) ? null : folded[text.toLowerCase()]); } };
  }

  function textNodes(root) {
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: function (n) {
        if (!n.nodeValue || n.nodeValue.trim().length < 2) return NodeFilter.FILTER_REJECT;
        var p = n.parentElement;
        return p && !p.closest(SKIP) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
      }
    });
    var out = [], n;
    while ((n = walker.nextNode())) out.push(n);
    return out;
  }

  function link(e, text) {
    var a = document.createElement("a");
    a.href = new URL(String(e.url).replace(/^\/+/, ""), site).href;
    a.textContent = text;
    a.className = "atlas-embed-term";
    a.setAttribute("data-atlas-embed", e.id);
    a.setAttribute("style", "text-decoration: underline dotted; text-underline-offset: 0.15em; cursor: help;");
    return a;
  }

  function linkTerms(root, idx) {
    var seen = {}, count = 0;
    textNodes(root).forEach(function (node) {
      if (count >= max) return;
      var text = node.nodeValue, parts = [], last = 0, m;
      idx.re.lastIndex = 0;
      while ((m = idx.re.exec(text)) && count < max) {
        var e = idx.find(m[2]);
        if (!e || seen[e.id]) continue;
        seen[e.id] = true; count++;
        var start = m.index + m[1].length;
        parts.push(document.createTextNode(text.slice(last, start)), link(e, m[2]));
        last = start + m[2].length;
      }
      if (!parts.length) return;
      parts.push(document.createTextNode(text.slice(last)));
      var frag = document.createDocumentFragment();
      parts.forEach(function (p) { frag.appendChild(p); });
      node.parentNode.replaceChild(frag, node);
    });
  }

  var CSS =
    ":host { all: initial; }" +
    ".card { box-sizing: border-box; max-width: 22rem; padding: 0.7rem 0.9rem; border-radius: 0.5rem;" +
    "  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1f2330; background: #fff;" +
    "  border: 1px solid #c9ccd6; box-shadow: 0 6px 24px rgba(0,0,0,0.18); }" +
    ".title { display: block; font-weight: 700; font-size: 15px; }" +
    ".kind { display: block; font-size: 12px; color: #4d5363; margin-top: 0.1rem; }" +
    ".short { margin: 0.4rem 0 0.5rem; }" +
    ".open { color: #3346a8; font-weight: 600; text-decoration: underline; }" +
    ".from { display: block; margin-top: 0.3rem; font-size: 12px; color: #4d5363; }" +
    "@media (prefers-color-scheme: dark) { .card { color: #e6e8ef; background: #1e2129; border-color: #444a5a; }" +
    "  .kind, .from { color: #b4b9c7; } .open { color: #9fb0ff; } }" +
    ".sheet { position: fixed; left: 0.5rem; right: 0.5rem; max-width: none; }";

  function Cards(byId) {
    var host = document.createElement("atlas-card");
    host.id = "atlas-embed-card";
    host.setAttribute("role", "tooltip");
    host.setAttribute("style", "position: absolute; z-index: 2147483000; display: none; top: 0; left: 0;");
    var shadow = host.attachShadow({ mode: "open" });
    var style = document.createElement("style");
    style.textContent = CSS;
    var card = document.createElement("div");
    card.className = "card";
    shadow.append(style, card);
    document.body.appendChild(host);
    var current = null, hideTimer = null, tapped = null;

    function el(tag, cls, text) { var n = document.createElement(tag); n.className = cls; n.textContent = text; return n; }

    function show(a) {
      clearTimeout(hideTimer);
      var e = byId[a.getAttribute("data-atlas-embed")];
      if (!e) return;
      var open = el("a", "open", "Open the full entry \u2192");
      open.href = a.href;
      card.replaceChildren(el("strong", "title", e.title), el("span", "kind", KINDS[e.kind] || ""),
        el("p", "short", e.short), open, el("span", "from", "From Inference Atlas"));
      if (current && current !== a) current.removeAttribute("aria-describedby");
      current = a;
      a.setAttribute("aria-describedby", host.id);
      host.style.display = "block";
      place(a);
    }

    function place(a) {
      var r = a.getBoundingClientRect(), vw = document.documentElement.clientWidth, vh = window.innerHeight;
      if (vw < 600) {  // a phone: a sheet across the half of the screen away from the term
        card.classList.add("sheet");
        card.style.top = r.top > vh / 2 ? "0.5rem" : "";
        card.style.bottom = r.top > vh / 2 ? "" : "0.5rem";
        host.style.left = "0"; host.style.top = "0";
        return;
      }
      card.classList.remove("sheet");
      card.style.top = card.style.bottom = "";
      var w = card.offsetWidth, h = card.offsetHeight;
      var left = Math.min(Math.max(8, r.left), vw - w - 8), top = r.bottom + 6;
      if (top + h > vh - 8 && r.top - h - 6 > 8) top = r.top - h - 6;
      host.style.left = left + window.scrollX + "px";
      host.style.top = top + window.scrollY + "px";
    }

    function hide() {
      host.style.display = "none";
      if (current) current.removeAttribute("aria-describedby");
      current = null; tapped = null;
    }

    function later() { clearTimeout(hideTimer); hideTimer = setTimeout(hide, 250); }
    function term(t) { return t && t.closest ? t.closest("a[data-atlas-embed]") : null; }

    host.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    host.addEventListener("mouseleave", later);
    document.addEventListener("mouseover", function (ev) { var a = term(ev.target); if (a) show(a); });
    document.addEventListener("mouseout", function (ev) { if (term(ev.target) && ev.relatedTarget !== host) later(); });
    document.addEventListener("focusin", function (ev) { var a = term(ev.target); if (a) show(a); else if (ev.target !== host) hide(); });
    document.addEventListener("focusout", function (ev) { if (term(ev.target)) later(); });
    document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && current) hide(); });
    document.addEventListener("click", function (ev) {
      var a = term(ev.target);
      if (!a) { if (current && ev.target !== host) hide(); return; }
      var touch = window.matchMedia && window.matchMedia("(hover: none)").matches;
      if (touch && tapped !== a) { ev.preventDefault(); show(a); tapped = a; }  // the second tap follows the link
    });
    window.addEventListener("scroll", function () { if (current) place(current); }, { passive: true });
  }

  function start(entries) {
    if (!Array.isArray(entries)) return;
    var idx = index(entries);
    var root = rootSelector ? document.querySelector(rootSelector) : document.body;
    if (!idx || !root) return;
    var byId = {};
    entries.forEach(function (e) { byId[e.id] = e; });
    linkTerms(root, idx);
    Cards(byId);
  }

  function run() {
    fetch(new URL("glossary.json", site).href, { credentials: "omit", referrerPolicy: "no-referrer", mode: "cors" })
      .then(function (r) { if (!r.ok) throw new Error("glossary.json: " + r.status); return r.json(); })
      .then(start)
      .catch(function (err) { if (window.console) console.warn("Inference Atlas cards:", err.message); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
