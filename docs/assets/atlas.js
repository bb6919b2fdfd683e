/* Inference Atlas hover cards.
 * A linked term (a.atlas-term) shows a card with its category, its one-line definition
 * and a link to the full entry: on hover, on keyboard focus, or on the first tap on a
 * touch screen (the second tap follows the link). Esc closes it. Without JavaScript the
 * links are ordinary links. Event delegation on the document keeps working across
 * Material's instant navigation, which swaps page content without reloading scripts. */
/* Shared by the other atlas-*.js files, which load after this one. */
window.Atlas = {
  /* Build an element; text is always set as textContent, never parsed as markup. */
  el: function (tag, attrs, kids) {
    var n = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") n.textContent = attrs[k];
      else if (k === "class") n.className = attrs[k];
      else n.setAttribute(k, attrs[k]);
    });
    (kids || []).forEach(function (c) { if (c) n.appendChild(c); });
    return n;
  },
  /* Run `mount` on every page, including pages reached by Material's instant navigation. */
  onPage: function (mount) {
    if (window.document$ && window.document$.subscribe) window.document$.subscribe(mount);
    else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
    else mount();
  }
};

/* Material's search overlay is a dialog without a name; give it one for screen readers. */
window.Atlas.onPage(function () {
  var search = document.querySelector(".md-search[role='dialog']");
  if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search the atlas");
});

(function () {
  "use strict";
  var card = null, current = null, hideTimer = null, tappedOnce = null;

  function ensureCard() {
    if (card) return card;
    card = document.createElement("div");
    card.id = "atlas-card";
    card.className = "atlas-card";
    card.setAttribute("role", "tooltip");
    card.hidden = true;
    card.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    card.addEventListener("mouseleave", function () { scheduleHide(); });
    document.body.appendChild(card);
    return card;
  }

  function text(tag, cls, value) {
    var el = document.createElement(tag);
    el.className = cls;
    el.textContent = value;  // never innerHTML: definitions are data, not markup
    return el;
  }

  function show(link) {
    clearTimeout(hideTimer);
    var c = ensureCard();
    c.replaceChildren(
      text("strong", "atlas-card__title", link.getAttribute("data-atlas-title") || link.textContent),
      text("span", "atlas-card__cat", link.getAttribute("data-atlas-cat") || ""),
      text("p", "atlas-card__short", link.getAttribute("data-atlas-short") || ""),
      (function () {
        var a = text("a", "atlas-card__open", "Open full entry \u2192");
        a.href = link.href;
        return a;
      })()
    );
    if (current && current !== link) current.removeAttribute("aria-describedby");
    current = link;
    link.setAttribute("aria-describedby", "atlas-card");
    c.hidden = false;
    place(link, c);
  }

  function place(link, c) {
    var r = link.getBoundingClientRect();
    var vw = document.documentElement.clientWidth, vh = window.innerHeight;
    if (vw < 600) {
      /* Small screens: a sheet on the half of the screen away from the link, so it never
       * covers the line being read. */
      c.classList.add("atlas-card--sheet");
      c.style.left = ""; c.style.top = "";
      c.classList.toggle("atlas-card--top", r.top > vh / 2);
      return;
    }
    c.classList.remove("atlas-card--sheet", "atlas-card--top");
    var w = c.offsetWidth, h = c.offsetHeight;
    var left = Math.min(Math.max(8, r.left), vw - w - 8);
    var top = r.bottom + 6;
    if (top + h > vh - 8 && r.top - h - 6 > 8) top = r.top - h - 6;  // flip above the line
    c.style.left = left + window.scrollX + "px";
    c.style.top = top + window.scrollY + "px";
  }

  function hide() {
    if (!card) return;
    card.hidden = true;
    if (current) current.removeAttribute("aria-describedby");
    current = null;
    tappedOnce = null;
  }

  function scheduleHide() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, 250);
  }

  function termOf(target) {
    return target && target.closest ? target.closest("a.atlas-term, article a[data-atlas-id]") : null;
  }

  document.addEventListener("mouseover", function (ev) {
    var link = termOf(ev.target);
    if (link) show(link);
  });
  document.addEventListener("mouseout", function (ev) {
    var link = termOf(ev.target);
    if (link && !(ev.relatedTarget && card && card.contains(ev.relatedTarget))) scheduleHide();
  });
  document.addEventListener("focusin", function (ev) {
    var link = termOf(ev.target);
    if (link) show(link);
    else if (!(card && card.contains(ev.target))) hide();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && card && !card.hidden) hide();
  });
  document.addEventListener("pointerdown", function (ev) {
    if (ev.pointerType !== "touch") return;
    var link = termOf(ev.target);
    if (!link && card && !card.contains(ev.target)) hide();
  });
  document.addEventListener("click", function (ev) {
    var link = termOf(ev.target);
    if (!link) return;
    /* A tap shows the card first; a second tap on the same term follows the link. */
    var touch = ev.pointerType === "touch" || (window.matchMedia && window.matchMedia("(hover: none)").matches);
    if (touch && tappedOnce !== link) {
      ev.preventDefault();
      show(link);
      tappedOnce = link;
    }
  });
  window.addEventListener("scroll", function () { if (current && card && !card.hidden) place(current, card); }, { passive: true });
})();

/* "Copy as Markdown" on entry pages (overrides/partials/actions.html): the link opens the
 * entry's Markdown; with a clipboard, a click copies that text instead and says so. */
(function () {
  "use strict";
  document.addEventListener("click", function (ev) {
    var link = ev.target && ev.target.closest ? ev.target.closest("a[data-atlas-copy]") : null;
    if (!link || !navigator.clipboard || !window.fetch) return;
    ev.preventDefault();
    var label = link.getAttribute("data-label") || link.textContent;
    link.setAttribute("data-label", label);
    fetch(link.href, { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
      .then(function (text) { return navigator.clipboard.writeText(text); })
      .then(function () { link.textContent = "Copied"; },
            function () { window.location.href = link.href; })  /* no clipboard: show the text */
      .then(function () { setTimeout(function () { link.textContent = label; }, 2000); });
  });
})();
