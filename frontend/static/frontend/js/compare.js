// The compare page's chart: usable PiB against read GB/s, bubble area by price. Figures come from the server.
(function () {
  "use strict";
  const rows = JSON.parse(document.getElementById("compare-rows").textContent);
  if (!window.Plotly || !rows.length) return;
  const maxPrice = Math.max(...rows.map((r) => r.price_total));
  Plotly.newPlot("compare-chart", [{
    type: "scatter", mode: "markers+text", x: rows.map((r) => r.read_gbps), y: rows.map((r) => r.usable_pib),
    text: rows.map((r) => `${r.label} (${r.relative_price === null ? "–" : r.relative_price.toFixed(2)})`), textposition: "top center",
    marker: { size: rows.map((r) => 18 + 42 * Math.sqrt(r.price_total / maxPrice)), color: rows.map((r) => r.relative_price), colorscale: "Viridis",
              showscale: true, colorbar: { title: { text: "relative price" } }, line: { color: "#1d2430", width: 1 } },
    hovertemplate: "%{text}<br>%{x:.1f} GB/s read, %{y:.2f} PiB usable<extra></extra>",
  }], {
    margin: { t: 20, r: 20, b: 50, l: 60 }, height: 420,
    xaxis: { title: { text: "Read throughput (GB/s)" }, rangemode: "tozero" },
    yaxis: { title: { text: "Usable capacity (PiB, binary)" }, rangemode: "tozero" },
  }, { displaylogo: false, responsive: true });
})();
