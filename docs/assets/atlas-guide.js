/* Inference Atlas decision guides: one question at a time, a back button, the answer with
 * "why this answer" (the path taken and the sources behind each step), alternatives, and
 * the state in the URL (?answers=a,b,c) so a result can be shared and reloaded. Reads the
 * guide from the JSON the generator puts in the widget's data-guide attribute; needs no server. Every text is set
 * with textContent: guide data is never treated as markup. */
(function () {
  "use strict";

  var el = window.Atlas.el;

  function readAnswers() {
    var raw = new URLSearchParams(location.search).get("answers");
    return raw ? raw.split(",").filter(Boolean) : [];
  }

  function readModel() { return new URLSearchParams(location.search).get("model") || ""; }

  function writeAnswers(answers, push, model) {
    var url = new URL(location.href);
    if (model === undefined) model = readModel();
    // Built by hand so the commas stay readable in a shared link (?answers=a,b,c).
    var parts = (model ? ["model=" + encodeURIComponent(model)] : []).concat(answers.length ? ["answers=" + answers.map(encodeURIComponent).join(",")] : []);
    url.search = parts.length ? "?" + parts.join("&") : "";
    url.hash = "walk";
    history[push ? "pushState" : "replaceState"]({ atlasAnswers: answers }, "", url.href);
  }

  /* Follow the answers from the start: the steps taken, the next question or the leaf. */
  function follow(guide, answers) {
    var steps = [], qid = guide.start;
    for (var i = 0; i < answers.length && qid; i++) {
      var q = guide.questions[qid];
      var opt = q.options.filter(function (o) {
        return o.id === answers[i] || (o.former_ids || []).indexOf(answers[i]) >= 0;  // renamed options keep old links
      })[0];
      if (!opt) return { steps: steps, leaf: null, qid: qid, stale: answers[i] };  // stop at the last valid answer, and say so
      steps.push({ qid: qid, q: q, opt: opt });
      if (opt.recommend) return { steps: steps, leaf: opt, qid: null, stale: i + 1 < answers.length ? answers[i + 1] : null };
      qid = opt.next;
    }
    return { steps: steps, leaf: null, qid: qid, stale: null };
  }

  /* knowledge.loads: the worst of the released format's cell and the platform's, the best over
   * the platforms the path allows; guides.for_model: what an answer keeps, drops and adds. */
  var RANK = { yes: 0, plugin: 1, partial: 1, unknown: 2, no: 3 };
  function rankOf(x) { return x in RANK ? RANK[x] : 2; }
  function cellOf(group, key) {
    var c = key ? group[key] : null;
    if (!c) return ["unknown", ""];
    return [c[0] === "plugin" ? "partial" : (c[0] || "unknown"), c[1] || ""];
  }
  function verdict(L, engine, model, platforms) {
    var e = L.engines[engine], m = L.models[model], parts = [];
    var plats = platforms.filter(function (p) { return L.platform_cells[p]; }).map(function (p) {
      var c = cellOf(e.backends, L.platform_cells[p]); return [L.platform_names[p] || p, c[0], c[1]];
    });
    if (plats.length) {
      var best = plats.reduce(function (a, b) { return rankOf(b[1]) < rankOf(a[1]) ? b : a; });
      parts.push([best[1], "on " + best[0] + (best[2] ? ": " + best[2] : "")]);
    }
    if (m.cell) parts.push(cellOf(e.formats, m.cell));
    if (!parts.length) return { status: "unknown", why: "" };
    var worst = parts.reduce(function (a, b) { return rankOf(b[0]) > rankOf(a[0]) ? b : a; });
    return { status: worst[0], why: parts.filter(function (p) { return p[0] !== "yes" && p[1]; }).map(function (p) { return p[1]; }).join("; ") };
  }
  function engineIds(guide) { return guide.loads.order; }  // every engine the guide names, in the order they first appear (guides.guide_engines)
  function forModel(guide, steps, leaf, model) {
    var L = guide.loads, plats = [];
    steps.forEach(function (s) { if (s.opt.platforms) plats = s.opt.platforms; });
    var named = leaf.recommend.map(function (r) { return r.id; }), out = { platforms: plats, keep: [], caveats: {}, dropped: {}, also: [] };
    named.forEach(function (id) {
      if (!L.engines[id]) { out.keep.push(id); return; }
      var v = verdict(L, id, model, plats);
      if (v.status === "no") { out.dropped[id] = v.why; return; }
      out.keep.push(id);
      if (v.status !== "yes") out.caveats[id] = v.status + (v.why ? ": " + v.why : "");
    });
    engineIds(guide).forEach(function (id) { if (named.indexOf(id) < 0 && verdict(L, id, model, plats).status === "yes") out.also.push(id); });
    // those that load it as released first, those with a caveat after, each group in the guide's order
    out.keep = out.keep.filter(function (id) { return !out.caveats[id]; }).concat(out.keep.filter(function (id) { return out.caveats[id]; }));
    return out;
  }
  function matches(rule, m) {  // guides.model_matches: total parameters in [from, to), and a mixture of experts where the rule says
    return m.params_b !== null && m.params_b !== undefined && rule.params_b[0] <= m.params_b && m.params_b < rule.params_b[1] &&
      (rule.moe === undefined || rule.moe === m.moe);
  }
  function optionFor(guide, qid, model) {
    var L = guide.loads, hit = guide.questions[qid].options.filter(function (o) { return o.models && matches(o.models, L.models[model]); })[0];
    return hit ? hit.id : null;
  }
  function onDevice(L, model, platform) {  // the engines the calculator writes commands for, by how they load the model there
    var out = { yes: [], caveat: [] };
    L.on_devices.forEach(function (id) {
      var v = verdict(L, id, model, [platform]);
      if (v.status === "yes") out.yes.push(id); else if (v.status === "partial") out.caveat.push(id);
    });
    return out;
  }
  window.Atlas.guideOptionFor = function (guide, qid, model) { return optionFor(guide, qid, model); };
  window.Atlas.guideOnDevice = function (guide, model, platform) { return onDevice(guide.loads, model, platform); };
  // for the test that holds every answer of every guide, for every model, to the engines' cells
  window.Atlas.guideForModel = function (guide, answers, model) { var st = follow(guide, answers); return forModel(guide, st.steps, st.leaf, model); };

  function citeList(guide, ids) {
    if (!ids || !ids.length) return null;
    var span = el("span", { class: "atlas-guide__cites" });
    ids.forEach(function (sid) {
      var s = guide.sources[sid];
      if (!s) return;
      var item = s.url ? el("a", { href: s.url, text: s.title, rel: "noopener" }) : el("span", { text: s.title });
      span.appendChild(document.createTextNode(span.childNodes.length ? "; " : "Sources: "));
      span.appendChild(item);
    });
    return span;
  }

  function adviceBox(guide, title, items) {
    var list = el("ul", { class: "atlas-guide__advice" });
    items.forEach(function (a) {
      list.appendChild(el("li", {}, [el("span", { text: a.text + " " }), citeList(guide, a.sources)]));
    });
    return el("div", { class: "admonition tip" }, [el("p", { class: "admonition-title", text: title }), list]);
  }

  function modelPicker(guide, model, onPick) {  // the guide's first question, optional: the reader's model
    var L = guide.loads, sel = el("select", { id: "guide-model" }, [el("option", { value: "", text: "Any model (not asked)" })]);
    Object.keys(L.models).forEach(function (id) {
      var m = L.models[id];
      sel.appendChild(el("option", { value: id, text: m.title + (m.format ? " (released as " + m.format + ")" : "") }));
    });
    sel.value = L.models[model] ? model : "";
    sel.addEventListener("change", function () { onPick(sel.value); });
    return el("p", { class: "atlas-guide__model" }, [el("label", { for: "guide-model", text: "Which model will you run? " }), sel,
      el("span", { class: "atlas-guide__model-help", text: " Optional: with it, each answer keeps only the engines that load the model\u2019s released weights on your hardware." })]);
  }

  function render(root, guide, answers) {
    var state = follow(guide, answers);
    var valid = state.steps.map(function (s) { return s.opt.id; });
    var model = guide.loads && guide.loads.models[readModel()] ? readModel() : "";
    root.replaceChildren();
    if (guide.loads) root.appendChild(modelPicker(guide, model, function (picked) {
      // at the start, a question that describes models is answered from the one picked
      var next = !valid.length && picked && optionFor(guide, guide.start, picked) ? [optionFor(guide, guide.start, picked)] : valid;
      writeAnswers(next, true, picked);
      render(root, guide, next).focus();
    }));
    if (state.stale) {
      // A shared link whose answers no longer exist (an option renamed or removed, a typo):
      // say where the walk stopped instead of silently showing something else.
      root.appendChild(el("p", { class: "atlas-guide__notice", role: "status",
        text: "This link's answer \u201c" + state.stale + "\u201d does not exist in the guide any more, so the walk stopped after " +
              state.steps.length + (state.steps.length === 1 ? " answer" : " answers") + ". Choose again below." }));
    }
    var heading;
    if (state.leaf) {
      heading = el("h3", { class: "atlas-guide__title", tabindex: "-1", text: "Our answer" });
      var recs = el("div", { class: "atlas-guide__answer" });
      var fm = model ? forModel(guide, state.steps, state.leaf, model) : null, L = guide.loads;
      var mt = model ? L.models[model] : null;
      function deviceLine(r) {  // a device answer: which engines load the model there, and the calculator on that device
        var o = onDevice(L, model, r.platform), name = function (id) { return L.engines[id].title; };
        var q = new URLSearchParams(state.leaf.calculator || "");
        q.set("model", model); q.delete("bits"); q.set("run_on", r.id);
        return el("p", { class: "atlas-guide__ondevice" }, [document.createTextNode(
          (o.yes.length ? "Loads " + mt.title + (mt.format ? " as released" : "") + " on it: " + o.yes.map(name).join(", ") + "." : "None of the engines with a command here loads " + mt.title + " as released on it.") +
          (o.caveat.length ? " With a caveat: " + o.caveat.map(name).join(", ") + "." : "") + " "),
          el("a", { href: guide.calculator + "?" + q.toString() + "#run-it", class: "atlas-guide__launch", text: "Size " + mt.title + " on it" })]);
      }
      function calcLink(id) {  // the calculator pre-filled with the model, and its Run it panel set to the engine
        var run = L.runs[id];
        return el("a", { href: guide.calculator + "?model=" + encodeURIComponent(model) + (run ? "&run_with=" + encodeURIComponent(run) + "#run-it" : ""),
          class: "atlas-guide__launch", text: run ? "Size it and get the command" : "Size it in the calculator" });
      }
      var engineRecs = fm && state.leaf.recommend.some(function (r) { return L.engines[r.id]; });
      if (fm && !engineRecs) recs.appendChild(el("p", { class: "atlas-guide__formodel", text: "For " + mt.title + (mt.format ? ", released as " + mt.format : ", whose released format is not on record") +
        ": under each answer, the engines that load it there and the calculator sized for it." }));
      if (engineRecs) {
        var where = fm.platforms.length ? fm.platforms.map(function (p) { return L.platform_names[p] || p; }).join(" or ") : "any hardware";
        recs.appendChild(el("p", { class: "atlas-guide__formodel", text: "For " + mt.title + (mt.format ? ", released as " + mt.format : ", whose released format is not on record") +
          ", on " + where + ": " + (!fm.keep.length ? "none of the engines this answer names loads it; see below." :
          "the engines below load it" + (Object.keys(fm.caveats).length ? ", the last " + (Object.keys(fm.caveats).length === 1 ? "one" : Object.keys(fm.caveats).length) + " only as noted." : mt.format ? " as released." : " on this hardware.")) }));
      }
      var shown = fm ? fm.keep.map(function (id) { return state.leaf.recommend.filter(function (r) { return r.id === id; })[0]; }) : state.leaf.recommend;
      shown.forEach(function (r) {
        recs.appendChild(el("div", { class: "atlas-guide__rec", "data-entry": r.id }, [
          el("p", {}, [el("a", { href: r.href, class: "atlas-guide__rec-title", text: r.title }),
                       r.setting ? el("strong", { class: "atlas-guide__setting", text: " " + r.setting }) : null,
                       r.when ? el("span", { class: "atlas-guide__when", text: " \u2014 " + r.when }) : null,
                       r.status ? el("strong", { class: "atlas-guide__status", text: " (" + r.status + ")" }) : null]),
          el("p", { text: r.why }),
          fm && fm.caveats[r.id] ? el("p", { class: "atlas-guide__caveat", text: "With " + mt.title + ": " + fm.caveats[r.id] + "." }) : null,
          fm && L.engines[r.id] ? el("p", {}, [calcLink(r.id)]) : null,
          fm && r.platform ? deviceLine(r) : null,
          citeList(guide, r.sources)
        ]));
      });
      if (fm && Object.keys(fm.dropped).length) {
        recs.appendChild(el("div", { class: "atlas-guide__dropped" }, [el("p", { text: "Not for " + mt.title + " here:" }),
          el("ul", {}, Object.keys(fm.dropped).map(function (id) {
            return el("li", { "data-entry": id }, [el("a", { href: L.engines[id].href, text: L.engines[id].title }),
              document.createTextNode(" does not load " + (mt.format || "it") + " on this hardware" + (fm.dropped[id] ? " (" + fm.dropped[id] + ")" : "") + ".")]);
          }))]));
      }
      if (fm && fm.also.length) {
        recs.appendChild(el("p", { class: "atlas-guide__also" }, [document.createTextNode("Other engines in this guide that load " + mt.title + (mt.format ? " as released" : "") + " there: ")].concat(
          fm.also.reduce(function (acc, id, i) {
            if (i) acc.push(document.createTextNode(", "));
            acc.push(el("a", { href: L.engines[id].href, "data-entry": id, text: L.engines[id].title }));
            return acc;
          }, []), [document.createTextNode(".")])));
      }
      if (state.leaf.calculator) {
        recs.appendChild(el("p", { class: "atlas-guide__calc" }, [
          el("a", { href: guide.calculator + (model ? "?" + (function () { var q = new URLSearchParams(state.leaf.calculator); q.set("model", model); q.delete("bits"); return q.toString(); })() : state.leaf.calculator),
                    class: "md-button", text: model ? "Check " + mt.title + " in the calculator" : "Check fit and speed in the calculator" })]));
      }
      var why = el("ol", { class: "atlas-guide__path" });
      state.steps.forEach(function (s) {
        why.appendChild(el("li", {}, [
          el("span", { text: s.q.text + " " }), el("strong", { text: s.opt.label }),
          s.opt.sources && s.opt.sources.length ? el("br") : null, citeList(guide, s.opt.sources)
        ]));
      });
      var last = state.steps[state.steps.length - 1];
      var alts = el("ul", { class: "atlas-guide__alts" });
      last.q.options.forEach(function (o) {
        if (o.id === last.opt.id) return;
        var target = o.recommend ? o.recommend.map(function (r) { return r.title; }).join(", ")
                                 : "another question: " + guide.questions[o.next].text;
        var link = el("a", { href: "?answers=" + valid.slice(0, -1).concat([o.id]).join(",") + "#walk", text: o.label });
        link.addEventListener("click", function (ev) { ev.preventDefault(); go(valid.slice(0, -1).concat([o.id])); });
        alts.appendChild(el("li", {}, [link, document.createTextNode(" \u2192 " + target)]));
      });
      root.append(heading, recs);
      if (state.leaf.note) root.appendChild(el("div", { class: "admonition warning" }, [
        el("p", { class: "admonition-title", text: "Sources disagree" }), el("p", { text: state.leaf.note })]));
      // Each disagreement with every side and that side's own sources, where the choice is made.
      (state.leaf.disputes || []).forEach(function (d) {
        var sides = el("ul", { class: "atlas-guide__sides" });
        d.positions.forEach(function (p) {
          sides.appendChild(el("li", {}, [el("span", { text: p.says + " " }), citeList(guide, p.sources)]));
        });
        root.appendChild(el("div", { class: "admonition warning atlas-guide__dispute" }, [
          el("p", { class: "admonition-title", text: "Sources disagree: " + d.claim }), sides,
          d.verdict ? el("p", {}, [el("strong", { text: "Our reading: " }), document.createTextNode(d.verdict)]) : null]));
      });
      if (state.leaf.advice) root.appendChild(adviceBox(guide, "Before you act on this", state.leaf.advice));
      var asked = state.steps[state.steps.length - 1].q;  // what was said where this choice was made still applies
      if (asked.advice) root.appendChild(adviceBox(guide, "Weighed at this question", asked.advice));
      root.append(el("h4", { text: "Why this answer" }), why);
      if (alts.childNodes.length) root.append(el("h4", { text: "Alternatives worth a look" }), alts);
      root.appendChild(el("p", { class: "atlas-guide__share" }, [
        el("a", { href: location.href, text: "Link to this answer", class: "atlas-guide__permalink" })]));
    } else {
      var q = guide.questions[state.qid];
      heading = el("h3", { class: "atlas-guide__title", tabindex: "-1", text: q.text });
      root.appendChild(el("p", { class: "atlas-guide__progress", text: "Step " + (state.steps.length + 1) + " of your walk" }));
      root.appendChild(heading);
      if (q.help) root.appendChild(el("p", { class: "atlas-guide__help", text: q.help }));
      if (q.advice) root.appendChild(adviceBox(guide, "Weigh this while you answer", q.advice));
      var list = el("div", { class: "atlas-guide__options", role: "group", "aria-label": q.text });
      q.options.forEach(function (o) {
        var hit = model && o.models && matches(o.models, guide.loads.models[model]);
        var b = el("button", { type: "button", class: "md-button atlas-guide__option" + (hit ? " md-button--primary atlas-guide__option--model" : ""), "data-option": o.id,
                               text: o.label + (hit ? " \u2014 " + guide.loads.models[model].title : "") });
        b.addEventListener("click", function () { go(valid.concat([o.id])); });
        list.appendChild(b);
      });
      root.appendChild(list);
    }
    var nav = el("div", { class: "atlas-guide__nav" });
    if (valid.length) {
      var back = el("button", { type: "button", class: "md-button atlas-guide__back", text: "\u2190 Back" });
      back.addEventListener("click", function () { go(valid.slice(0, -1)); });
      var restart = el("button", { type: "button", class: "md-button atlas-guide__restart", text: "Start over" });
      restart.addEventListener("click", function () { go([]); });
      nav.append(back, restart);
      root.appendChild(nav);
    }
    return heading;

    function go(next) {
      writeAnswers(next, true);
      var h = render(root, guide, next);
      h.focus();
    }
  }

  function mount() {
    var root = document.getElementById("atlas-guide");
    if (!root || !root.dataset.guide || root.dataset.mounted) return;
    root.dataset.mounted = "1";
    var guide = JSON.parse(root.dataset.guide);
    render(root, guide, readAnswers());
    window.addEventListener("popstate", function () {
      if (document.getElementById("atlas-guide") === root) render(root, guide, readAnswers());
    });
  }

  window.Atlas.onPage(mount);
})();
