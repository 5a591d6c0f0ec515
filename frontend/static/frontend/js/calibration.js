// A calibration: fitted curves, predicted against measured, and its effect on a design (before and after).
(function () {
  const fits = JSON.parse(document.getElementById("fit-data").textContent) || {};
  const clients = JSON.parse(document.getElementById("clients-data").textContent) || {};
  const colours = { read: "#4e79a7", write: "#f28e2b" };
  const config = { displaylogo: false, responsive: true };
  const margin = { t: 10, r: 10, b: 50, l: 60 };
  const pm = [];
  let maxv = 0;
  function curveTraces(set, what) {
    const traces = [];
    for (const [op, f] of Object.entries(set)) {
      traces.push({ type: "scatter", mode: "markers", name: `${op} measured`, x: f.points.map((p) => p[0]), y: f.points.map((p) => p[1]), marker: { color: colours[op], size: 8 } });
      traces.push({ type: "scatter", mode: "lines", name: `${op} fit (USL)`, x: f.curve.map((p) => p[0]), y: f.curve.map((p) => p[1]), line: { color: colours[op] } });
      const predicted = f.points.map((p, i) => p[1] - f.residuals[i]);
      pm.push({ type: "scatter", mode: "markers", name: `${op} (${what})`, x: f.points.map((p) => p[1]), y: predicted, marker: { color: colours[op], size: 8, symbol: what === "threads" ? "circle" : "diamond" } });
      maxv = Math.max(maxv, ...f.points.map((p) => p[1]), ...predicted);
    }
    return traces;
  }
  if (window.Plotly && Object.keys(fits).length) {
    Plotly.newPlot("fit-chart", curveTraces(fits, "threads"), { height: 360, margin, xaxis: { title: { text: "obdfilter-survey threads" } }, yaxis: { title: { text: "GB/s (back end of one OSS)" }, rangemode: "tozero" } }, config);
  }
  if (window.Plotly && Object.keys(clients).length) {
    Plotly.newPlot("clients-chart", curveTraces(clients, "client nodes"), { height: 360, margin, xaxis: { title: { text: "IOR client nodes" } }, yaxis: { title: { text: "GB/s (all bricks IOR ran against)" }, rangemode: "tozero" } }, config);
  }
  if (window.Plotly && pm.length) {
    pm.push({ type: "scatter", mode: "lines", name: "predicted = measured", x: [0, maxv], y: [0, maxv], line: { dash: "dot", color: "#888" } });
    Plotly.newPlot("pm-chart", pm, { height: 340, margin, xaxis: { title: { text: "measured GB/s" } }, yaxis: { title: { text: "predicted GB/s" } } }, config);
  }

  const effectData = document.getElementById("effect-data");
  if (!effectData) return;
  const choices = JSON.parse(effectData.textContent);
  const calibration = Number(document.getElementById("effect").dataset.calibration);
  const csrf = (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
  const status = document.getElementById("effect-status");
  const table = document.getElementById("effect-table");
  const fmt = (v) => (v === null || v === undefined ? "–" : Number(v).toFixed(2));
  async function evaluate(spec) {
    const response = await fetch("/api/v1/evaluate/", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": csrf }, credentials: "same-origin", body: JSON.stringify(spec) });
    const body = await response.json();
    if (!response.ok) throw new Error(JSON.stringify(body));
    return body;
  }
  document.getElementById("effect-run").addEventListener("click", async () => {
    const choice = choices[Number(document.getElementById("effect-design").value)];
    const nodes = Number(document.getElementById("effect-clients").value) || 0;
    const spec = { ...choice.spec };
    delete spec.calibration;
    if (nodes > 0) spec.clients = { count: nodes, adapter: (spec.clients && spec.clients.adapter) || "ib-fdr" };
    status.textContent = "Evaluating…";
    try {
      const [before, after] = await Promise.all([evaluate(spec), evaluate({ ...spec, calibration })]);
      const rows = new Map();
      for (const [when, ev] of [["before", before], ["after", after]]) {
        for (const s of ev.stages) {
          const key = `${s.brick} · ${s.stage.replace(/_/g, " ")}`;
          const row = rows.get(key) || {};
          row[`read_${when}`] = s.read_gbps;
          row[`write_${when}`] = s.write_gbps;
          rows.set(key, row);
        }
      }
      const body = table.querySelector("tbody");
      body.replaceChildren();
      const add = (label, r, strong) => {
        const tr = document.createElement("tr");
        const cells = [label, fmt(r.read_before), fmt(r.read_after), fmt(r.write_before), fmt(r.write_after)];
        cells.forEach((text, i) => { const td = document.createElement("td"); td.textContent = text; if (i) td.className = "num"; if (strong) td.style.fontWeight = "bold"; tr.appendChild(td); });
        body.appendChild(tr);
      };
      for (const [key, r] of rows) add(key, r, false);
      add("Design total (GB/s)", { read_before: before.read_gbps, read_after: after.read_gbps, write_before: before.write_gbps, write_after: after.write_gbps }, true);
      table.hidden = false;
      const applied = after.sources.calibration && after.sources.calibration.applied_to.length;
      const name = (stage) => stage.replace(/_/g, " ");
      status.textContent = applied ? `With the calibration: read limited by ${after.bottleneck.read_label || name(after.bottleneck.read)}, write by ${after.bottleneck.write_label || name(after.bottleneck.write)}.` : (after.sources.calibration && (after.sources.calibration.not_applied || []).length
          ? "No line of this design has the parts the calibration measured (see the warnings): nothing changes."
          : "This design has no brick of the calibrated template: nothing changes.");
    } catch (err) {
      status.textContent = `Could not evaluate: ${err.message}`;
    }
  });
})();
