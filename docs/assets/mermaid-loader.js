/* Loads the vendored Mermaid only when a page has a diagram.
 * Material for MkDocs fetches Mermaid from a CDN unless a global `mermaid` exists. This
 * stand-in is that global: Material calls initialize() once and render() per diagram;
 * the first render() loads assets/vendor/mermaid/mermaid.min.js from this site, hands it
 * the stored configuration, and delegates from then on. Pages without diagrams never
 * call render(), so they never load the 3.6 MB file. */
(function () {
  "use strict";
  var script = document.currentScript;
  var src = new URL("vendor/mermaid/mermaid.min.js", script ? script.src : location.href).href;
  var config = null, loading = null;
  function load() {
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = src;
        s.onload = function () {
          var real = window.mermaid;
          // Labels are escaped at build time; "loose" lets flowchart nodes be links.
          real.initialize(Object.assign({}, config || {}, { startOnLoad: false, securityLevel: "loose" }));
          resolve(real);
        };
        s.onerror = reject;
        document.head.appendChild(s);
      });
    }
    return loading;
  }
  window.mermaid = {
    initialize: function (c) { config = c; },
    render: function () {
      var args = arguments;
      return load().then(function (real) { return real.render.apply(real, args); });
    }
  };
})();
