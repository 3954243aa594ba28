// Draws each figure the page carries as a JSON data block (dashboard/figures.py render()): a file, not an
// inline script, so the Content-Security-Policy can forbid inline scripts.
(function () {
  "use strict";
  function draw() {
    document.querySelectorAll(".plotly-graph-div[data-figure]").forEach(function (graph) {
      var spec = JSON.parse(document.getElementById(graph.dataset.figure).textContent);
      Plotly.newPlot(graph, spec.data, spec.layout, spec.config);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
  // Figures are drawn while the page is still being laid out; once it is, fit each one to its card.
  window.addEventListener("load", function () {
    document.querySelectorAll(".plotly-graph-div").forEach(function (graph) { Plotly.Plots.resize(graph); });
  });
})();
