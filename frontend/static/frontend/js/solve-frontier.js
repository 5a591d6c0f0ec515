// Design to target: the frontier chart (price against usable PiB), from the page's JSON data.
(function () {
  const frontier = JSON.parse(document.getElementById("frontier-data").textContent);
  const line = JSON.parse(document.getElementById("frontier-line").textContent);
  const results = JSON.parse(document.getElementById("results-data").textContent);
  if (!window.Plotly) return;
  const label = (r) => `${r.name}<br>${r.read_gbps.toLocaleString("en-GB", { maximumFractionDigits: 1 })} GB/s read`;
  const hover = "%{text}<br>%{y:,.2f} PiB for %{x:,.0f} USD<extra></extra>";
  Plotly.newPlot("frontier-chart", [
    { type: "scatter", mode: "markers", name: "other frontier designs", x: frontier.map((r) => r.price), y: frontier.map((r) => r.usable_pib),
      text: frontier.map(label), marker: { size: 7, color: "#b8c2d3" }, hovertemplate: hover },
    { type: "scatter", mode: "lines+markers", name: "frontier", x: line.map((r) => r.price), y: line.map((r) => r.usable_pib), line: { shape: "hv", color: "#1f5fbf", width: 2 },
      text: line.map(label), marker: { size: 9, color: line.map((r) => r.read_gbps), colorscale: "Viridis", showscale: true, colorbar: { title: { text: "read GB/s" } } },
      hovertemplate: hover },
    { type: "scatter", mode: "markers+text", name: "cheapest meeting the targets", x: [results[0].price], y: [results[0].usable_pib], text: ["cheapest"], textposition: "top center",
      marker: { size: 18, symbol: "star", color: "#d62728" }, hovertemplate: label(results[0]) + "<extra></extra>" },
  ], { height: 420, margin: { t: 20, r: 20, b: 50, l: 60 }, legend: { orientation: "h", y: -0.2 },
       xaxis: { title: { text: "Price (USD, capex + energy)" }, tickformat: ",.0f" }, yaxis: { title: { text: "Usable capacity (PiB, binary)" }, rangemode: "tozero" } }, { displaylogo: false, responsive: true });
})();
