// The designer page: edit a DesignSpec, see the evaluation as you go, save and share it.
// Every figure comes from the server (/designer/evaluate/ and the REST API); nothing is computed here.
(function () {
  "use strict";
  const options = JSON.parse(document.getElementById("designer-options").textContent);
  const initial = JSON.parse(document.getElementById("designer-initial").textContent);
  const $ = (id) => document.getElementById(id);
  const STAGE_LABELS = {
    disks: "Disks", expansion_link: "Expansion link", raid_controller: "RAID controllers", host_links: "Host links",
    server: "Server (HBAs)", network: "Network adapter", clients: "Clients",
  };
  const csrf = (document.cookie.match(/(?:^|; )csrftoken=([^;]+)/) || [])[1] || "";

  let spec = JSON.parse(JSON.stringify(initial.spec));
  let design = initial.design; // {id, version, name, is_owner, owner} or null
  let timer = null;
  let requestNo = 0;
  let dirty = false; // edits since the last save

  // ---------------------------------------------------------------- form <-> spec
  function fill(select, items, value) {
    select.innerHTML = "";
    for (const item of items) {
      const opt = document.createElement("option");
      opt.value = item.slug;
      opt.textContent = item.name;
      select.appendChild(opt);
    }
    if (value !== undefined && value !== null) select.value = value;
  }

  function template(slug) {
    return options.templates.find((t) => t.slug === slug);
  }

  function brickRow(entry, index) {
    const tr = document.createElement("tr");
    tr.dataset.index = index;
    const t = template(entry.template) || options.templates[0];
    tr.innerHTML =
      `<td><label class="sr-only" for="b${index}-template">Brick template, line ${index + 1}</label><select id="b${index}-template" class="template"></select>` +
      `<span class="field-error" data-error="bricks.${index}.template"></span></td>` +
      `<td><label class="sr-only" for="b${index}-count">Count, line ${index + 1}</label><input id="b${index}-count" class="count" type="number" min="1" max="500">` +
      `<span class="field-error" data-error="bricks.${index}.count"></span></td>` +
      `<td><label class="sr-only" for="b${index}-disk">Disk, line ${index + 1}</label><select id="b${index}-disk" class="disk"></select>` +
      `<span class="field-error" data-error="bricks.${index}.disk"></span></td>` +
      `<td><label class="sr-only" for="b${index}-expansions">Expansions, line ${index + 1}</label><input id="b${index}-expansions" class="expansions" type="number" min="0" max="16">` +
      `<span class="field-error" data-error="bricks.${index}.expansions"></span></td>` +
      `<td><label class="sr-only" for="b${index}-adapter">Network adapter, line ${index + 1}</label><select id="b${index}-adapter" class="adapter"></select>` +
      `<span class="field-error" data-error="bricks.${index}.adapter"></span></td>` +
      `<td><button type="button" class="remove danger" aria-label="Remove brick line ${index + 1}">Remove</button></td>`;
    fill(tr.querySelector(".template"), options.templates, t.slug);
    fill(tr.querySelector(".disk"), options.disks, entry.disk || t.disk);
    fill(tr.querySelector(".adapter"), options.adapters, entry.adapter || t.adapter);
    tr.querySelector(".count").value = entry.count;
    const exp = tr.querySelector(".expansions");
    exp.value = entry.expansions === undefined || entry.expansions === null ? t.expansions : entry.expansions;
    exp.max = t.max_expansions;
    exp.disabled = t.max_expansions === 0;
    tr.querySelector(".template").addEventListener("change", (e) => {
      const nt = template(e.target.value);
      spec.bricks[index] = { template: nt.slug, count: spec.bricks[index].count, disk: nt.disk, expansions: nt.expansions, adapter: nt.adapter };
      renderBricks();
      changed();
    });
    tr.querySelector(".count").addEventListener("input", (e) => { spec.bricks[index].count = intOr(e.target.value); changed(); });
    tr.querySelector(".disk").addEventListener("change", (e) => { spec.bricks[index].disk = e.target.value; changed(); });
    exp.addEventListener("input", (e) => { spec.bricks[index].expansions = intOr(e.target.value); changed(); });
    tr.querySelector(".adapter").addEventListener("change", (e) => { spec.bricks[index].adapter = e.target.value; changed(); });
    tr.querySelector(".remove").addEventListener("click", () => { spec.bricks.splice(index, 1); renderBricks(); changed(); });
    return tr;
  }

  function intOr(text) {
    const n = Number(text);
    return text === "" || !Number.isFinite(n) ? text : n;
  }

  function renderBricks() {
    const body = $("brick-lines");
    body.innerHTML = "";
    spec.bricks.forEach((entry, i) => body.appendChild(brickRow(entry, i)));
  }

  function renderForm() {
    $("design-name").value = (design && design.name) || spec.name || "";
    fill($("tuning"), options.tunings, spec.tuning);
    fill($("rack"), options.racks, spec.rack);
    fill($("price-list"), options.price_lists, spec.price_list);
    fill($("metadata-cell"), options.metadata_cells, (spec.metadata || {}).cell);
    fill($("clients-adapter"), options.adapters, spec.clients ? spec.clients.adapter : "ib-fdr");
    const cal = $("calibration");
    cal.length = 1;
    for (const c of options.calibrations || []) {
      const opt = document.createElement("option");
      opt.value = String(c.id);
      opt.textContent = c.name;
      cal.appendChild(opt);
    }
    cal.value = spec.calibration ? String(spec.calibration) : "";
    $("failover").value = spec.failover;
    $("placement").value = (spec.metadata || {}).placement || "in_rack";
    $("clients-on").checked = !!spec.clients;
    if (spec.clients) $("clients-count").value = spec.clients.count;
    toggleClients();
    renderBricks();
    renderMeta();
  }

  function toggleClients() {
    document.querySelector(".clients").hidden = !$("clients-on").checked;
  }

  function readOptions() {
    spec.name = $("design-name").value || "Untitled design";
    spec.tuning = $("tuning").value;
    spec.rack = $("rack").value;
    spec.price_list = $("price-list").value;
    spec.failover = $("failover").value;
    spec.metadata = { cell: $("metadata-cell").value, placement: $("placement").value };
    spec.calibration = $("calibration").value ? Number($("calibration").value) : null;
    spec.clients = $("clients-on").checked ? { count: intOr($("clients-count").value), adapter: $("clients-adapter").value } : null;
  }

  // ---------------------------------------------------------------- evaluation
  function changed() {
    dirty = true;
    readOptions();
    clearTimeout(timer);
    timer = setTimeout(evaluateNow, 250);
  }

  function showErrors(errors) {
    document.querySelectorAll(".field-error").forEach((el) => { el.textContent = ""; });
    const walk = (node, path) => {
      if (Array.isArray(node) && node.every((x) => typeof x === "string")) {
        const el = document.querySelector(`[data-error="${path}"]`) || document.querySelector('[data-error="bricks"]');
        if (el) el.textContent = (el.textContent ? el.textContent + " " : "") + node.join(" ");
        return;
      }
      if (Array.isArray(node)) node.forEach((child, i) => walk(child, `${path}.${i}`));
      else if (node && typeof node === "object") Object.entries(node).forEach(([k, v]) => walk(v, path ? `${path}.${k}` : k));
    };
    walk(errors || {}, "");
  }

  function fmt(n, digits) {
    return n === null || n === undefined ? "–" : Number(n).toLocaleString("en-GB", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  function money(n, currency) {
    return n === null || n === undefined ? "–" : `${fmt(n, 0)} ${currency}`;
  }

  function clearResults(message) {
    for (const id of ["usable-pib", "usable-tib", "raw-tb", "read-gbps", "write-gbps", "read-limit", "write-limit", "price-total",
      "price-per-pib", "price-per-gbps", "rack-count", "units-used", "power", "weight", "degraded"]) $(id).textContent = "–";
    $("warnings").innerHTML = "";
    $("elevations").innerHTML = "";
    if (window.Plotly) { Plotly.purge("stage-chart"); Plotly.purge("cost-chart"); }
    $("status").textContent = message;
  }

  async function evaluateNow() {
    if (!spec.bricks.length) {
      requestNo++;
      clearResults("Add a brick line to see the totals.");
      return;
    }
    const mine = ++requestNo;
    $("status").textContent = "Evaluating…";
    let response;
    try {
      response = await fetch("/designer/evaluate/", {
        method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify({ spec: spec, design: design ? design.id : null }),
      });
    } catch (err) {
      $("status").textContent = "The server cannot be reached; your edits are kept on this page.";
      return;
    }
    if (mine !== requestNo) return; // a newer edit is on its way
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      showErrors(body.spec || {});
      document.querySelector(".results").classList.add("stale");
      $("status").textContent = body.detail || "Fix the fields marked in red: the figures below are for the last valid design.";
      $("status").classList.add("error");
      return;
    }
    document.querySelector(".results").classList.remove("stale");
    $("status").classList.remove("error");
    showErrors({});
    showEvaluation(body.evaluation, body.svgs);
  }

  function showEvaluation(ev, svgs) {
    const cur = ev.price.currency;
    $("status").textContent = `${ev.counts.bricks} bricks, ${ev.counts.servers} servers, ${ev.counts.disks} disks, ${ev.counts.osts} OSTs` +
      (ev.price.illustrative ? " · prices are illustrative" : "") +
      (ev.sources.calibration ? ` · calibrated: ${ev.sources.calibration.from_calibration.join(", ").replaceAll("_", " ")} from '${ev.sources.calibration.name}'` : "");
    $("usable-pib").textContent = fmt(ev.usable_pib, 2);
    $("usable-tib").textContent = fmt(ev.usable_tib, 1);
    $("raw-tb").textContent = fmt(ev.raw_tb, 0);
    $("read-gbps").textContent = fmt(ev.read_gbps, 1);
    $("write-gbps").textContent = fmt(ev.write_gbps, 1);
    $("read-limit").textContent = STAGE_LABELS[ev.bottleneck.read] || ev.bottleneck.read;
    $("write-limit").textContent = STAGE_LABELS[ev.bottleneck.write] || ev.bottleneck.write;
    $("price-total").textContent = money(ev.price.total, cur);
    $("price-per-pib").textContent = money(ev.price.per_usable_pib, cur);
    $("price-per-gbps").textContent = money(ev.price.per_read_gbps, cur);
    $("rack-count").textContent = ev.rack_count;
    $("units-used").textContent = ev.units_used;
    $("power").textContent = fmt(ev.power_w / 1000, 1);
    $("weight").textContent = fmt(ev.weight_kg, 0);
    $("degraded").textContent = fmt(ev.degraded.read_gbps, 1);
    const list = $("warnings");
    list.innerHTML = "";
    for (const w of ev.warnings) {
      const li = document.createElement("li");
      li.textContent = w;
      list.appendChild(li);
    }
    $("elevations").innerHTML = svgs.join("");
    drawStageChart(ev);
    drawCostChart(ev);
  }

  function drawStageChart(ev) {
    if (!window.Plotly) return;
    const x = ev.stages.map((s) => (ev.bricks.length > 1 ? `${s.brick}<br>` : "") + (STAGE_LABELS[s.stage] || s.stage));
    const bar = (op, colour) => ({
      type: "bar", name: op === "read" ? "Read limit" : "Write limit", x: x,
      y: ev.stages.map((s) => s[`${op}_gbps`]),
      marker: { color: colour, line: { color: ev.stages.map((s) => (s.limiting[op] ? "#d62728" : colour)), width: ev.stages.map((s) => (s.limiting[op] ? 3 : 0)) } },
      hovertemplate: "%{x}: %{y:.2f} GB/s<extra>" + op + "</extra>",
    });
    Plotly.react("stage-chart", [bar("read", "#4e79a7"), bar("write", "#f28e2b")], {
      barmode: "group", margin: { t: 10, r: 10, b: 70, l: 55 }, height: 300,
      yaxis: { title: { text: "GB/s per brick (before Lustre efficiency)" }, rangemode: "tozero" },
      legend: { orientation: "h", y: 1.12 },
      annotations: [{ text: "red outline: the limiting stage", showarrow: false, xref: "paper", yref: "paper", x: 1, y: 1.12, xanchor: "right", font: { size: 11, color: "#d62728" } }],
    }, { displaylogo: false, responsive: true });
  }

  function drawCostChart(ev) {
    if (!window.Plotly) return;
    const byKind = {};
    for (const line of ev.price.lines) {
      const k = { disk: "Disks", server: "Servers", enclosure: "Enclosures", adapter: "Adapters", switch: "Switches", rack: "Racks", service: "Support" }[line.kind] || line.kind;
      byKind[k] = (byKind[k] || 0) + line.total;
    }
    byKind.Energy = ev.price.opex;
    const kinds = Object.keys(byKind);
    Plotly.react("cost-chart", [{
      type: "bar", orientation: "h", y: kinds, x: kinds.map((k) => byKind[k]), marker: { color: "#59a14f" },
      hovertemplate: "%{y}: %{x:,.0f} " + ev.price.currency + "<extra></extra>",
    }], {
      margin: { t: 10, r: 10, b: 45, l: 90 }, height: 280,
      xaxis: { title: { text: `${ev.price.currency} over ${ev.price.years} years (capex + energy)` } },
    }, { displaylogo: false, responsive: true });
  }

  // ---------------------------------------------------------------- saving
  function renderMeta() {
    const meta = $("design-meta");
    if (!meta) return;
    if (!design) {
      meta.textContent = "Not saved yet.";
      $("delete").disabled = true;
      $("copy").disabled = true;
      $("share-apply").disabled = true;
      $("export").disabled = true;
      $("export-status").textContent = "Save the design to export it.";
      return;
    }
    meta.textContent = `Saved design #${design.id}, version ${design.version}` + (design.is_owner ? "" : ` (owned by ${design.owner}, shared with you read-only)`);
    $("save").disabled = !design.is_owner;
    $("delete").disabled = !design.is_owner;
    $("share-apply").disabled = !design.is_owner;
    $("copy").disabled = false;
    $("export").disabled = false;
    $("export-status").textContent = "";
    if (initial.share_page_url && design.is_owner) $("share-link").checked = true;
  }

  async function api(method, url, body) {
    const response = await fetch(url, {
      method, headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
    return { response, data };
  }

  function say(text, isError) {
    $("save-status").textContent = text;
    $("save-status").classList.toggle("error", !!isError);
  }

  function specForSave() {
    readOptions();
    const copy = JSON.parse(JSON.stringify(spec));
    return copy;
  }

  async function save(version) {
    const name = $("design-name").value.trim() || "Untitled design";
    let result;
    if (!design) {
      result = await api("POST", "/api/v1/designs/", { name, spec: specForSave() });
    } else {
      result = await api("PATCH", `/api/v1/designs/${design.id}/`, { version: version || design.version, name, spec: specForSave() });
    }
    const { response, data } = result;
    if (response.status === 409) {
      $("conflict-text").textContent = `Not saved: this design was saved elsewhere since you loaded it (in another window, or by someone else); ` +
        `it is now at version ${data.current_version}. Your edits are still on this page: load the saved version (discarding yours) or save yours over it.`;
      $("conflict").hidden = false;
      $("conflict").dataset.version = data.current_version;
      say("Not saved: the design changed elsewhere.", true);
      return;
    }
    if (!response.ok) {
      showErrors(data.spec || {});
      say(data.detail || (data.name ? `Name: ${data.name.join(" ")}` : "Not saved: fix the fields marked in red."), true);
      return;
    }
    $("conflict").hidden = true;
    design = { id: data.id, version: data.version, name: data.name, is_owner: true, owner: data.owner };
    history.replaceState(null, "", `/designer/?design=${data.id}`);
    dirty = false;
    renderMeta();
    say(`Saved: version ${data.version}.`);
  }

  function wireSaving() {
    if (!$("save")) return;
    $("export").addEventListener("click", exportNow);
    $("save").addEventListener("click", () => save());
    $("overwrite").addEventListener("click", () => save(Number($("conflict").dataset.version)));
    $("load-theirs").addEventListener("click", () => { window.location.href = `/designer/?design=${design.id}`; });
    $("copy").addEventListener("click", async () => {
      // a copy of what is on the page now, unsaved edits included (for a reader, the way to keep their changes)
      const name = `Copy of ${$("design-name").value.trim() || "Untitled design"}`.slice(0, 200);
      const { response, data } = await api("POST", "/api/v1/designs/", { name, spec: specForSave() });
      if (response.ok) { dirty = false; window.location.href = `/designer/?design=${data.id}`; }
      else { showErrors(data.spec || {}); say(data.detail || "Could not copy the design: fix the fields marked in red.", true); }
    });
    $("delete").addEventListener("click", async () => {
      if (!window.confirm(`Delete "${design.name}"? This cannot be undone.`)) return;
      const { response, data } = await api("DELETE", `/api/v1/designs/${design.id}/`);
      if (response.ok) window.location.href = "/designs/";
      else say(data.detail || "Could not delete the design.", true);
    });
    $("share-apply").addEventListener("click", async () => {
      const users = $("share-users").value.split(",").map((u) => u.trim()).filter(Boolean);
      const { response, data } = await api("POST", `/api/v1/designs/${design.id}/share/`, { users, link: $("share-link").checked });
      if (!response.ok) { say((data.users || [data.detail || "Could not share."]).join(" "), true); return; }
      const link = $("share-url");
      link.innerHTML = "";
      if (data.share_page_url) {
        link.append("Read-only link for colleagues: ");
        const a = document.createElement("a");
        a.href = data.share_page_url;
        a.textContent = data.share_page_url;
        link.appendChild(a);
      }
      const people = data.shared_with.length ? `shared read-only with ${data.shared_with.join(", ")}` : "not shared with named users";
      say(`Sharing saved: ${people}; ${data.share_page_url ? "anyone with the link can read it" : "no secret link"}.`);
    });
  }

  // ---------------------------------------------------------------- exports
  async function exportNow() {
    const status = $("export-status");
    const bar = $("export-progress");
    const link = $("export-download");
    link.hidden = true;
    status.textContent = dirty ? `Exporting saved version ${design.version}; your unsaved edits are not in it.` : "Queued…";
    bar.hidden = false;
    bar.value = 0;
    let { response, data } = await api("POST", `/api/v1/designs/${design.id}/exports/`, { format: $("export-format").value, reference: $("export-reference").value });
    if (!response.ok) { status.textContent = data.detail || "The export could not be requested."; bar.hidden = true; return; }
    for (let i = 0; i < 600 && (data.status === "queued" || data.status === "running"); i++) {
      bar.value = data.progress;
      status.textContent = data.status === "queued" ? "Queued: waiting for a worker…" : `Rendering… ${data.progress}%`;
      await new Promise((r) => setTimeout(r, 800));
      ({ response, data } = await api("GET", data.status_url));
      if (!response.ok) { status.textContent = data.detail || "Lost track of the export."; return; }
    }
    bar.value = data.progress;
    if (data.status === "done") {
      bar.hidden = true;
      status.textContent = `Ready: ${data.filename} (${Math.max(1, Math.round(data.size_bytes / 1024))} KiB)` +
        (dirty ? `: saved version ${data.design_version}; your unsaved edits are not in it.` : ".");
      link.href = data.download_url;
      link.hidden = false;
    } else {
      status.textContent = data.status === "failed" ? `Failed: ${data.error}` : "Still waiting; check again later.";
    }
  }

  // ---------------------------------------------------------------- start
  function discardOk() {
    return !dirty || window.confirm("Discard the changes on this page that are not saved?");
  }
  window.addEventListener("beforeunload", (e) => {
    if (dirty && $("save")) { e.preventDefault(); e.returnValue = ""; }
  });

  $("start-blank").addEventListener("click", () => {
    if (!discardOk()) return;
    design = null;
    spec = { name: "Untitled design", bricks: [], metadata: { cell: "mds-cell", placement: "in_rack" }, rack: "rack-42u", tuning: "large-io", failover: "paired", clients: null, price_list: "illustrative", calibration: null };
    history.replaceState(null, "", "/designer/");
    renderForm();
    changed();
  });
  $("start-example").addEventListener("change", (e) => {
    if (!e.target.value) return;
    if (!discardOk()) { e.target.value = ""; return; }
    dirty = false;
    window.location.href = `/designer/?example=${e.target.value}`;
  });
  $("add-brick").addEventListener("click", () => {
    const t = options.templates.find((x) => x.slug === "md3460-performance") || options.templates[0];
    spec.bricks.push({ template: t.slug, count: 1, disk: t.disk, expansions: t.expansions, adapter: t.adapter });
    renderBricks();
    changed();
  });
  for (const id of ["tuning", "rack", "price-list", "failover", "placement", "metadata-cell", "clients-adapter", "calibration"]) $(id).addEventListener("change", changed);
  for (const id of ["clients-count", "design-name"]) $(id).addEventListener("input", changed);
  $("clients-on").addEventListener("change", () => { toggleClients(); changed(); });
  const params = new URLSearchParams(window.location.search);
  if (params.get("example")) $("start-example").value = params.get("example");
  renderForm();
  wireSaving();
  changed();
  dirty = false; // what was just loaded is not an edit
})();
