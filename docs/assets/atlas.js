/* Inference Atlas hover cards.
 * A linked term (a.atlas-term) shows a card with its category, its one-line definition
 * and a link to the full entry: on hover, on keyboard focus, or on a long press on a
 * touch screen, where a plain tap follows the link at once. Esc closes it. Without JavaScript the
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
  var card = null, current = null, hideTimer = null;
  /* Touch: a tap is a link like any other; holding a term for LONG_PRESS_MS shows its card
   * instead (and the release that ends the press does not navigate). The mouse events and
   * focus a browser synthesises for a tap are not a hover: they are ignored just after a touch. */
  var LONG_PRESS_MS = 450, lastTouch = 0, pressTimer = null, pressStart = null, pressedLink = null;

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
  }

  function scheduleHide() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, 250);
  }

  function termOf(target) {
    return target && target.closest ? target.closest("a.atlas-term, article a[data-atlas-id]") : null;
  }

  function justTouched() { return Date.now() - lastTouch < 800; }

  document.addEventListener("mouseover", function (ev) {
    if (justTouched()) return;
    var link = termOf(ev.target);
    if (link) show(link);
  });
  document.addEventListener("mouseout", function (ev) {
    if (justTouched()) return;
    var link = termOf(ev.target);
    if (link && !(ev.relatedTarget && card && card.contains(ev.relatedTarget))) scheduleHide();
  });
  document.addEventListener("focusin", function (ev) {
    if (justTouched()) return;
    var link = termOf(ev.target);
    if (link) show(link);
    else if (!(card && card.contains(ev.target))) hide();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && card && !card.hidden) hide();
  });
  function cancelPress() { clearTimeout(pressTimer); pressTimer = null; }
  document.addEventListener("pointerdown", function (ev) {
    if (ev.pointerType !== "touch") return;
    lastTouch = Date.now();
    pressedLink = null;
    var link = termOf(ev.target);
    if (!link && card && !card.contains(ev.target)) hide();
    cancelPress();
    if (!link) return;
    pressStart = [ev.clientX, ev.clientY];
    pressTimer = setTimeout(function () { pressTimer = null; pressedLink = link; show(link); }, LONG_PRESS_MS);
  });
  document.addEventListener("pointermove", function (ev) {
    if (pressTimer && pressStart && Math.abs(ev.clientX - pressStart[0]) + Math.abs(ev.clientY - pressStart[1]) > 10) cancelPress();
  });
  ["pointerup", "pointercancel"].forEach(function (type) {
    document.addEventListener(type, function (ev) { if (ev.pointerType === "touch") { lastTouch = Date.now(); cancelPress(); } });
  });
  /* The long press showed the card: no link menu over it, and its release is not a tap. */
  document.addEventListener("contextmenu", function (ev) {
    if (pressedLink && termOf(ev.target) === pressedLink) ev.preventDefault();
  });
  document.addEventListener("click", function (ev) {
    var link = termOf(ev.target);
    if (link && link === pressedLink) { ev.preventDefault(); pressedLink = null; return; }
    pressedLink = null;
    if (link && card && !card.hidden && justTouched()) hide();  // a tap navigates: no card left behind
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
