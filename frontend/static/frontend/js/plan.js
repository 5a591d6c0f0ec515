// The plan page: edit the plan (demand, phases of saved designs, settings), save it through the API
// (PATCH /api/v1/plans/<id>/ with its version; 409 when it changed elsewhere) and draw the timeline the
// API computes (GET /api/v1/plans/<id>/timeline/). No figure is computed here: the page lays them out.
(function () {
  "use strict";
  const initial = JSON.parse(document.getElementById("plan-initial").textContent);
  const csrf = (document.cookie.match(/(?:^|; )csrftoken=([^;]+)/) || [])[1] || "";
  const $ = (id) => document.getElementById(id);
  let plan = initial.plan;
  const designs = initial.designs;
  const SETTINGS = [
    ["price_trend_per_tb", "Disk price trend, % a year", "pct"],
    ["price_trend_per_server", "Other hardware price trend, % a year", "pct"],
    ["support_per_server_year", "Support per server-year", "num"],
    ["energy_price_per_kwh", "Energy price per kWh", "num"],
    ["pue", "PUE", "num"],
    ["rack_cost_per_u_year", "Rack space per U-year", "num"],
    ["end_of_support_years", "Years in service", "int"],
    ["proposal_covers_years", "Proposals cover, years", "int"],
  ];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c) node.append(c);
    return node;
  }
  const fmt = (v, digits) => (v === null || v === undefined ? "–" : Number(v).toLocaleString("en-GB", { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  const numOrNull = (v) => (v === "" || v === null || v === undefined ? null : Number(v));

  // ------------------------------------------------------------------ the editor

  function designOptions(selected) {
    const select = el("select", { class: "add-design", "aria-label": "Saved design" });
    select.append(el("option", { value: "", text: designs.length ? "choose a saved design" : "no saved designs yet" }));
    for (const d of designs) select.append(el("option", { value: d.id, text: `${d.name} (#${d.id})`, selected: d.id === selected }));
    return select;
  }

  function addRow(container, add) {
    const row = el("div", { class: "add-row" });
    const select = designOptions(add && add.design);
    if (add && add.spec) {  // an inline spec (from the API): kept as it is
      select.dataset.spec = JSON.stringify(add.spec);
      select.prepend(el("option", { value: "spec", text: "an inline design (from the API)", selected: true }));
    }
    row.append(select, el("input", { class: "add-label", placeholder: "label (optional)", maxlength: 100, value: (add && add.label) || "", "aria-label": "Label" }),
      el("button", { type: "button", class: "secondary remove-add", text: "×", "aria-label": "Remove this design" }));
    row.querySelector(".remove-add").addEventListener("click", () => row.remove());
    container.append(row);
  }

  function phaseCard(phase, index) {
    const card = el("div", { class: "phase" });
    const head = el("div", { class: "phase-head" }, el("strong", { text: `Phase ${index + 1}` }),
      el("button", { type: "button", class: "secondary remove-phase", text: "Remove phase" }));
    const year = el("input", { type: "number", class: "phase-year", min: 1900, max: 2200, step: 1, value: phase.year, "aria-label": `Phase ${index + 1} year` });
    const adds = el("div", { class: "adds" });
    (phase.add || []).forEach((a) => addRow(adds, a));
    const retire = el("input", { class: "phase-retire", value: (phase.retire || []).join(", "), placeholder: "labels or design ids, comma separated", "aria-label": `Phase ${index + 1} retires` });
    const eos = el("input", { type: "number", class: "phase-eos", min: 1, max: 30, step: 1, value: phase.end_of_support_years || "", placeholder: "default", "aria-label": `Phase ${index + 1} years in service` });
    const addButton = el("button", { type: "button", class: "secondary add-design-button", text: "Add a design" });
    addButton.addEventListener("click", () => addRow(adds, null));
    head.querySelector(".remove-phase").addEventListener("click", () => { card.remove(); renumber(); });
    card.append(head, el("p", {}, el("label", { text: "Year" }), year), adds, el("p", {}, el("span"), addButton),
      el("p", {}, el("label", { text: "Retires" }), retire), el("p", {}, el("label", { text: "Years in service" }), eos));
    return card;
  }

  function renumber() {
    document.querySelectorAll("#phases .phase").forEach((card, i) => { card.querySelector(".phase-head strong").textContent = `Phase ${i + 1}`; });
  }

  function showDemandMode() {
    $("demand-growth").hidden = $("demand-mode").value !== "growth";
    $("demand-table").hidden = $("demand-mode").value !== "table";
  }

  function showThroughputMode() {
    const mode = $("tp-mode").value;
    $("tp-fields").hidden = mode === "none";
    const jobs = mode === "jobs";
    $("tp-count-label").textContent = jobs ? "Job slots" : "Clients";
    $("tp-read-label").textContent = jobs ? "Read MB/s per job" : "Read GB/s per client";
    $("tp-write-label").textContent = jobs ? "Write MB/s per job" : "Write GB/s per client";
  }

  function fill() {
    const body = plan.body;
    $("plan-title").textContent = plan.name;
    $("plan-name").value = plan.name;
    $("start-year").value = body.start_year;
    const settings = body.settings || {};
    $("horizon").value = settings.horizon_years || initial.defaults.horizon_years;
    const demand = body.demand || {};
    $("demand-mode").value = demand.years && demand.years.length ? "table" : "growth";
    $("demand-pib").value = demand.usable_pib ?? "";
    $("demand-growth-pct").value = demand.growth_per_year !== undefined ? +(demand.growth_per_year * 100).toFixed(4) : 0;
    $("demand-years").value = (demand.years || []).map((r) => `${r.year} ${r.usable_pib}`).join("\n");
    const tp = demand.throughput || {};
    $("tp-mode").value = "job_slots" in tp ? "jobs" : "clients" in tp ? "clients" : "none";
    $("tp-count").value = tp.job_slots ?? tp.clients ?? "";
    $("tp-read").value = tp.read_mbps_per_job ?? tp.read_gbps_per_client ?? "";
    $("tp-write").value = tp.write_mbps_per_job ?? tp.write_gbps_per_client ?? "";
    $("tp-growth").value = tp.growth_per_year !== undefined ? +(tp.growth_per_year * 100).toFixed(4) : 0;
    showDemandMode();
    showThroughputMode();
    const phases = $("phases");
    phases.replaceChildren();
    (body.phases || []).forEach((p, i) => phases.append(phaseCard(p, i)));
    const box = $("settings");
    box.replaceChildren();
    for (const [key, label, kind] of SETTINGS) {
      const value = settings[key];
      const shown = value === undefined || value === null ? "" : kind === "pct" ? +(value * 100).toFixed(4) : value;
      const def = initial.defaults[key];
      const placeholder = def === null ? "from the price list" : kind === "pct" ? `${def * 100}` : `${def}`;
      box.append(el("p", {}, el("label", { for: `set-${key}`, text: label }),
        el("input", { id: `set-${key}`, type: "number", step: "any", value: shown, placeholder, title: initial.sources[key] })));
    }
    $("sheet-link").href = plan.sheet_url;
    $("read-only").hidden = plan.is_owner;
    $("save").disabled = !plan.is_owner;
    if (!plan.is_owner) $("save").title = "Shared with you read-only: only its owner can save it.";
  }

  function readBody() {
    const body = { start_year: Number($("start-year").value), demand: {}, phases: [], settings: { ...(plan.body.settings || {}) } };
    if ($("demand-mode").value === "table") {
      body.demand.years = $("demand-years").value.split("\n").map((line) => line.trim()).filter(Boolean).map((line) => {
        const [year, pib] = line.split(/[\s,;]+/);
        return { year: Number(year), usable_pib: Number(pib) };
      });
    } else {
      body.demand.usable_pib = Number($("demand-pib").value || 0);
      body.demand.growth_per_year = Number($("demand-growth-pct").value || 0) / 100;
    }
    const mode = $("tp-mode").value;
    if (mode !== "none") {
      const jobs = mode === "jobs";
      const tp = { [jobs ? "job_slots" : "clients"]: Number($("tp-count").value || 0) };
      const read = numOrNull($("tp-read").value), write = numOrNull($("tp-write").value);
      if (read !== null) tp[jobs ? "read_mbps_per_job" : "read_gbps_per_client"] = read;
      if (write !== null) tp[jobs ? "write_mbps_per_job" : "write_gbps_per_client"] = write;
      tp.growth_per_year = Number($("tp-growth").value || 0) / 100;
      body.demand.throughput = tp;
    }
    document.querySelectorAll("#phases .phase").forEach((card) => {
      const phase = { year: Number(card.querySelector(".phase-year").value), add: [], retire: [] };
      card.querySelectorAll(".add-row").forEach((row) => {
        const select = row.querySelector(".add-design");
        const label = row.querySelector(".add-label").value.trim();
        let add = null;
        if (select.value === "spec") add = { spec: JSON.parse(select.dataset.spec) };
        else if (select.value) add = { design: Number(select.value) };
        if (add) { if (label) add.label = label; phase.add.push(add); }
      });
      phase.retire = card.querySelector(".phase-retire").value.split(",").map((s) => s.trim()).filter(Boolean)
        .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      const eos = numOrNull(card.querySelector(".phase-eos").value);
      if (eos !== null) phase.end_of_support_years = eos;
      body.phases.push(phase);
    });
    body.settings.horizon_years = Number($("horizon").value || initial.defaults.horizon_years);
    for (const [key, , kind] of SETTINGS) {
      const value = numOrNull($(`set-${key}`).value);
      if (value === null) delete body.settings[key];
      else body.settings[key] = kind === "pct" ? value / 100 : value;
    }
    return body;
  }

  async function api(method, url, body) {
    const response = await fetch(url, {
      method, headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
    return { response, data };
  }

  function say(text, isError) {
    $("save-status").textContent = text;
    $("save-status").classList.toggle("error", !!isError);
  }

  function showErrors(data) {
    $("errors").hidden = !data;
    $("errors").textContent = data ? "Not saved; please correct:\n" + describeErrors(data).join("\n") : "";
  }

  function describeErrors(node, path) {
    path = path || [];
    if (Array.isArray(node) && node.every((x) => typeof x === "string")) return [`${path.join(" › ") || "plan"}: ${node.join("; ")}`];
    if (Array.isArray(node)) return node.flatMap((x, i) => (x && Object.keys(x).length ? describeErrors(x, path.concat(String(i))) : []));
    if (node && typeof node === "object") return Object.entries(node).flatMap(([k, v]) => describeErrors(v, k === "non_field_errors" || k === "body" ? path : path.concat(k)));
    return [`${path.join(" › ")}: ${node}`];
  }

  async function save(version) {
    $("conflict").hidden = true;
    say("Saving…");
    const { response, data } = await api("PATCH", `/api/v1/plans/${plan.id}/`, { version: version || plan.version, name: $("plan-name").value.trim() || "Untitled plan", body: readBody() });
    if (response.status === 409) {
      $("conflict-text").textContent = `Not saved: this plan was saved elsewhere since you loaded it; it is now at version ${data.current_version}. Your edits are still on this page.`;
      $("conflict").hidden = false;
      $("conflict").dataset.version = data.current_version;
      say("Not saved: the plan changed elsewhere.", true);
      return;
    }
    if (!response.ok) {
      showErrors(data);
      say(response.status === 400 ? "Not saved: see the messages below." : `Not saved (${response.status}).`, true);
      return;
    }
    showErrors(null);
    plan = data;
    fill();
    say(`Saved (version ${plan.version}).`);
    await loadTimeline();
  }

  // ------------------------------------------------------------------ the timeline

  function chart(id, traces, layout) {
    if (!window.Plotly) return;
    Plotly.react(id, traces, { margin: { t: 30, r: 20, b: 40, l: 60 }, height: 280, legend: { orientation: "h", y: -0.2 }, ...layout },
      { displaylogo: false, responsive: true });
  }

  function runOutShape(year) {
    return year === null ? [] : [{ type: "line", x0: year - 0.5, x1: year - 0.5, yref: "paper", y0: 0, y1: 1, line: { color: "#b00020", dash: "dash" } }];
  }

  function drawTimeline(t) {
    const years = t.rows.map((r) => r.year);
    const run = t.run_out;
    $("run-out").replaceChildren(...[["capacity", "Capacity runs out"], ["read", "Read runs out"], ["write", "Write runs out"]].map(([key, label]) =>
      el("div", { "data-run-out": key }, el("dt", { text: label }), el("dd", { class: run[key] === null ? "" : "short", text: run[key] === null ? `not by ${years[years.length - 1]}` : String(run[key]) }))),
      el("div", {}, el("dt", { text: "Total cost" }), el("dd", { text: `${fmt(t.totals.total, 0)} ${t.currency || ""}` })),
      el("div", {}, el("dt", { text: "Per usable PiB-year" }), el("dd", { text: `${fmt(t.totals.per_usable_pib_year, 0)} ${t.currency || ""}` })));
    $("timeline-warnings").textContent = t.warnings.join(" ");
    const shortColour = (flag) => (flag ? "#d62728" : "#9ecae9");
    chart("chart-capacity", [
      { type: "bar", name: "Supply (in service)", x: years, y: t.rows.map((r) => r.supply.usable_pib), marker: { color: t.rows.map((r) => shortColour(r.short.capacity)) } },
      { type: "scatter", mode: "lines+markers", name: "Demand", x: years, y: t.rows.map((r) => r.demand.usable_pib), line: { color: "#1d2430" } },
    ], { title: { text: "Capacity (usable PiB): supply against demand", font: { size: 13 } }, shapes: runOutShape(run.capacity), xaxis: { dtick: 1 } });
    const firstThroughput = [run.read, run.write].filter((y) => y !== null).sort()[0] ?? null;
    chart("chart-throughput", [
      { type: "scatter", mode: "lines+markers", name: "Read supply", x: years, y: t.rows.map((r) => r.supply.read_gbps), line: { color: "#4e79a7" } },
      { type: "scatter", mode: "lines", name: "Read demand", x: years, y: t.rows.map((r) => r.demand.read_gbps), line: { color: "#4e79a7", dash: "dot" } },
      { type: "scatter", mode: "lines+markers", name: "Write supply", x: years, y: t.rows.map((r) => r.supply.write_gbps), line: { color: "#f28e2b" } },
      { type: "scatter", mode: "lines", name: "Write demand", x: years, y: t.rows.map((r) => r.demand.write_gbps), line: { color: "#f28e2b", dash: "dot" } },
    ], { title: { text: "Throughput (GB/s): supply against demand", font: { size: 13 } }, shapes: runOutShape(firstThroughput), xaxis: { dtick: 1 }, yaxis: { rangemode: "tozero" } });
    chart("chart-cost", [["capex", "Capex", "#4e79a7"], ["support", "Support", "#f28e2b"], ["energy", "Energy", "#59a14f"], ["space", "Rack space", "#b07aa1"]].map(([key, name, color]) =>
      ({ type: "bar", name, x: years, y: t.rows.map((r) => r.costs[key]), marker: { color } })),
    { barmode: "stack", title: { text: `Cost per year (${t.currency || ""})`, font: { size: 13 } }, xaxis: { dtick: 1 } });

    const cell = (text, cls) => el("td", { class: cls, text });
    $("years-table").replaceChildren(
      el("thead", {}, el("tr", {}, ...["Year", "Demand PiB", "Supply PiB", "Read GB/s need", "have", "Write GB/s need", "have", "Added", "Retired", "Capex", "Support", "Energy", "Space", "Total"].map((h) => el("th", { text: h })))),
      el("tbody", {}, ...t.rows.map((r) => el("tr", { "data-year": r.year },
        cell(String(r.year)), cell(fmt(r.demand.usable_pib, 2), "num"), cell(fmt(r.supply.usable_pib, 2), "num" + (r.short.capacity ? " short" : "")),
        cell(fmt(r.demand.read_gbps, 1), "num"), cell(fmt(r.supply.read_gbps, 1), "num" + (r.short.read ? " short" : "")),
        cell(fmt(r.demand.write_gbps, 1), "num"), cell(fmt(r.supply.write_gbps, 1), "num" + (r.short.write ? " short" : "")),
        cell(r.added.join(", ")), cell(r.retired.join(", ")),
        ...["capex", "support", "energy", "space", "total"].map((k) => cell(fmt(r.costs[k], 0), "num"))))));
    $("purchases-table").replaceChildren(
      el("thead", {}, el("tr", {}, ...["Phase", "Label", "Design", "Added", "In service to", "Usable PiB", "Read GB/s", "Write GB/s", "Servers", "U", `Capex (${t.currency || ""})`].map((h) => el("th", { text: h })))),
      el("tbody", {}, ...(t.designs.length ? t.designs.map((d) => el("tr", {}, cell(String(d.phase + 1)), cell(d.label), cell(d.name), cell(String(d.added)), cell(String(d.in_service_until)),
        cell(fmt(d.usable_pib, 2), "num"), cell(fmt(d.read_gbps, 1), "num"), cell(fmt(d.write_gbps, 1), "num"), cell(String(d.servers), "num"), cell(String(d.units_used), "num"), cell(fmt(d.capex, 0), "num"))) :
        [el("tr", {}, el("td", { colspan: 11, class: "note", text: "No purchases yet: add a phase with a saved design." }))])));
    $("proposals-table").replaceChildren(
      el("thead", {}, el("tr", {}, ...["Year", "Shortfall left that year", "Sized to cover", "Cheapest purchase", "Usable PiB", "Read / write GB/s", `Capex (${t.currency || ""})`].map((h) => el("th", { text: h })))),
      el("tbody", {}, ...(t.proposals.length ? t.proposals.map((p) => el("tr", {}, cell(String(p.year)),
        cell(`${fmt(p.shortfall.capacity, 2)} PiB, ${fmt(p.shortfall.read, 1)} / ${fmt(p.shortfall.write, 1)} GB/s`),
        cell(`${fmt(p.covers.capacity, 2)} PiB, ${fmt(p.covers.read, 1)} / ${fmt(p.covers.write, 1)} GB/s` + (p.covers_through > p.year ? ` (to ${p.covers_through})` : "")),
        ...(p.feasible ? [cell(p.name), cell(fmt(p.usable_pib, 2), "num"), cell(`${fmt(p.read_gbps, 1)} / ${fmt(p.write_gbps, 1)}`, "num"), cell(fmt(p.capex, 0), "num")] :
          [el("td", { colspan: 4, class: "warn", text: "No catalogue design meets this shortfall within the search's limits." })]))) :
        [el("tr", {}, el("td", { colspan: 7, class: "note", text: "None needed: supply meets demand in every year shown (or proposals are switched off)." }))])));
    $("sources").replaceChildren(...Object.entries(t.settings_sources).map(([k, v]) => el("li", { text: `${k} = ${t.settings[k] === null ? "from the price list" : t.settings[k]}: ${v}` })),
      ...t.assumptions.map((a) => el("li", { text: a })));
    document.body.dataset.timeline = "ready";
  }

  async function loadTimeline() {
    document.body.dataset.timeline = "loading";
    const { response, data } = await api("GET", plan.timeline_url);
    if (!response.ok) {
      $("timeline-warnings").textContent = "The timeline cannot be computed: " + describeErrors(data).join("; ");
      document.body.dataset.timeline = "error";
      return;
    }
    drawTimeline(data);
  }

  $("demand-mode").addEventListener("change", showDemandMode);
  $("tp-mode").addEventListener("change", showThroughputMode);
  $("add-phase").addEventListener("click", () => {
    const cards = document.querySelectorAll("#phases .phase");
    const last = cards.length ? Number(cards[cards.length - 1].querySelector(".phase-year").value) + 1 : Number($("start-year").value);
    const card = phaseCard({ year: last, add: [{}] }, cards.length);
    $("phases").append(card);
  });
  $("plan-form").addEventListener("submit", (event) => { event.preventDefault(); save(); });
  $("conflict-load").addEventListener("click", async () => {
    const { data } = await api("GET", `/api/v1/plans/${plan.id}/`);
    plan = data; fill(); $("conflict").hidden = true; say(`Loaded version ${plan.version}.`); loadTimeline();
  });
  $("conflict-overwrite").addEventListener("click", () => save(Number($("conflict").dataset.version)));
  fill();
  loadTimeline();
})();
