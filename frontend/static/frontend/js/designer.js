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
  const racks = new window.RackRow($("rack-panel")); // the rack row (racks.js)

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

  const PARITY = { raid5: 1, raid6: 2, raidz1: 1, raidz2: 2, raidz3: 3 };
  const GROUPS = { catalogue: "Catalogue presets", mine: "Your templates", shared: "Shared with you", design: "In this design (its owner's)" };

  function fillTemplates(select, value) {
    select.innerHTML = "";
    for (const [group, label] of Object.entries(GROUPS)) {
      const items = options.templates.filter((t) => (t.group || "catalogue") === group);
      if (!items.length) continue;
      const og = document.createElement("optgroup");
      og.label = label;
      for (const t of items) {
        const opt = document.createElement("option");
        opt.value = t.slug;
        opt.textContent = t.owner && group !== "mine" ? `${t.name} (${t.owner})` : t.name;
        og.appendChild(opt);
      }
      select.appendChild(og);
    }
    select.value = value;
  }

  function parityFor(level, data) {
    return level === "raid10" ? data : PARITY[level];
  }

  // The line's RAID layout as the editor shows it: the template's, with the line's `raid` over it.
  function lineRaid(entry, t) {
    const given = entry.raid || {};
    const level = given.level || t.raid.level;
    const data = given.data || t.raid.data;
    let parity = given.parity;
    if (parity === undefined || parity === null) parity = level === t.raid.level && !given.data ? t.raid.parity : parityFor(level, data);
    return {
      level, data, parity,
      groups: given.groups || t.raid.groups,
      spares: given.spares === undefined || given.spares === null ? t.raid.spares : given.spares,
    };
  }

  // Overrides are kept in the spec only when they differ from the template's own figures.
  function setOverride(index, key, value, templateValue) {
    if (value === templateValue || value === "" || value === null) delete spec.bricks[index][key];
    else spec.bricks[index][key] = value;
  }

  function setRaid(index, raid, t) {
    const same = ["level", "data", "parity", "groups", "spares"].every((k) => raid[k] === t.raid[k]);
    if (same) delete spec.bricks[index].raid;
    else spec.bricks[index].raid = raid;
  }

  function errorSpan(path) {
    return `<span class="field-error" data-error="${path}"></span>`;
  }

  function brickRow(entry, index) {
    const rows = document.createDocumentFragment();
    const tr = document.createElement("tr");
    tr.dataset.index = index;
    tr.className = "line-main";
    const t = template(entry.template) || options.templates[0];
    const p = `bricks.${index}`;
    tr.innerHTML =
      `<td><label class="sr-only" for="b${index}-template">Brick template, line ${index + 1}</label><select id="b${index}-template" class="template"></select>` +
      `${errorSpan(`${p}.template`)}</td>` +
      `<td><label class="sr-only" for="b${index}-count">Count, line ${index + 1}</label><input id="b${index}-count" class="count" type="number" min="1" max="500">` +
      `${errorSpan(`${p}.count`)}</td>` +
      `<td><label class="sr-only" for="b${index}-expansions">Expansions, line ${index + 1}</label><input id="b${index}-expansions" class="expansions" type="number" min="0" max="16">` +
      `${errorSpan(`${p}.expansions`)}</td>` +
      `<td><button type="button" class="remove danger" aria-label="Remove brick line ${index + 1}" title="Remove this line">✕</button></td>`;
    const more = document.createElement("tr");
    more.className = "line-more";
    more.dataset.index = index;
    const levels = options.raid_levels.map((l) => {
      const zfsOnController = l.slug.startsWith("raidz") && t.head_controllers > 0;
      return `<option value="${l.slug}"${zfsOnController ? ' disabled title="ZFS needs disks the server sees directly (a JBOD)"' : ""}>${l.name}</option>`;
    }).join("");
    more.innerHTML =
      `<td colspan="4"><div class="line-fields" role="group" aria-label="Disk, network adapter, storage ports and RAID layout, line ${index + 1}">` +
      `<span class="fld part"><label for="b${index}-disk">Disk</label><select id="b${index}-disk" class="disk"></select>${errorSpan(`${p}.disk`)}</span>` +
      `<span class="fld part"><label for="b${index}-adapter">Network adapter</label><select id="b${index}-adapter" class="adapter"></select>${errorSpan(`${p}.adapter`)}</span>` +
      `<span class="fld"><label for="b${index}-adapters">Adapters / server</label><input id="b${index}-adapters" class="adapters" type="number" min="1" max="8">${errorSpan(`${p}.adapters_per_server`)}</span>` +
      `<span class="fld"><label for="b${index}-ports">Storage ports / server</label><input id="b${index}-ports" class="ports" type="number" min="1" max="16">${errorSpan(`${p}.storage_ports`)}</span>` +
      `<span class="fld raid"><label for="b${index}-raid-level">RAID: level, groups × data + parity, spares</label><span class="raid-inputs">` +
      `<select id="b${index}-raid-level" class="raid-level">${levels}</select>` +
      `<label class="sr-only" for="b${index}-raid-groups">RAID groups, line ${index + 1}</label><input id="b${index}-raid-groups" class="raid-groups" type="number" min="1" max="60" title="groups (OSTs) per enclosure">` +
      `<span aria-hidden="true">×</span>` +
      `<label class="sr-only" for="b${index}-raid-data">Data disks per group, line ${index + 1}</label><input id="b${index}-raid-data" class="raid-data" type="number" min="1" max="120" title="data disks per group">` +
      `<span aria-hidden="true">+</span>` +
      `<label class="sr-only" for="b${index}-raid-parity">Parity disks per group, line ${index + 1}</label><input id="b${index}-raid-parity" class="raid-parity" type="number" min="0" max="120" title="parity disks per group">` +
      `<span aria-hidden="true">,</span>` +
      `<label class="sr-only" for="b${index}-raid-spares">Spares per enclosure, line ${index + 1}</label><input id="b${index}-raid-spares" class="raid-spares" type="number" min="0" max="120" title="hot spares per enclosure"></span>` +
      `${errorSpan(`${p}.raid`)}${errorSpan(`${p}.raid.level`)}${errorSpan(`${p}.raid.groups`)}${errorSpan(`${p}.raid.data`)}${errorSpan(`${p}.raid.parity`)}${errorSpan(`${p}.raid.spares`)}${errorSpan(`${p}.raid.segment_kib`)}</span>` +
      (options.username ? `<span class="fld action"><button type="button" id="b${index}-save-template" class="secondary save-template">Save line as template</button></span>` : "") +
      `</div></td>`;
    fillTemplates(tr.querySelector(".template"), t.slug);
    fill(more.querySelector(".disk"), options.disks, entry.disk || t.disk);
    fill(more.querySelector(".adapter"), options.adapters, entry.adapter || t.adapter);
    tr.querySelector(".count").value = entry.count;
    const exp = tr.querySelector(".expansions");
    exp.value = entry.expansions === undefined || entry.expansions === null ? t.expansions : entry.expansions;
    exp.max = t.max_expansions;
    exp.disabled = t.max_expansions === 0;
    if (exp.disabled) { exp.dataset.fixedOff = "1"; exp.dataset.title = `The ${t.name} takes no expansion enclosures`; }
    const adapters = more.querySelector(".adapters");
    adapters.value = entry.adapters_per_server || t.network_adapter_count;
    const ports = more.querySelector(".ports");
    ports.value = entry.storage_ports || t.host_ports;
    const raid = lineRaid(entry, t);
    const r = (name) => more.querySelector(`.raid-${name}`);
    r("level").value = raid.level;
    for (const k of ["data", "parity", "groups", "spares"]) r(k).value = raid[k];

    tr.querySelector(".template").addEventListener("change", (e) => {
      const nt = template(e.target.value);
      spec.bricks[index] = { template: nt.slug, count: spec.bricks[index].count, disk: nt.disk, expansions: nt.expansions, adapter: nt.adapter };
      renderBricks();
      changed();
    });
    tr.querySelector(".count").addEventListener("input", (e) => { spec.bricks[index].count = intOr(e.target.value); changed(); });
    more.querySelector(".disk").addEventListener("change", (e) => { spec.bricks[index].disk = e.target.value; changed(); });
    exp.addEventListener("input", (e) => { spec.bricks[index].expansions = intOr(e.target.value); changed(); });
    more.querySelector(".adapter").addEventListener("change", (e) => { spec.bricks[index].adapter = e.target.value; changed(); });
    tr.querySelector(".remove").addEventListener("click", () => { spec.bricks.splice(index, 1); renderBricks(); changed(); });
    adapters.addEventListener("input", (e) => { setOverride(index, "adapters_per_server", intOr(e.target.value), t.network_adapter_count); changed(); });
    ports.addEventListener("input", (e) => { setOverride(index, "storage_ports", intOr(e.target.value), t.host_ports); changed(); });
    const readRaid = () => ({
      level: r("level").value, data: intOr(r("data").value), parity: intOr(r("parity").value),
      groups: intOr(r("groups").value), spares: intOr(r("spares").value),
    });
    r("level").addEventListener("change", () => {
      // parity follows the level: raid5 1, raid6 2, raidz1-3 1-3, raid10 as many as data
      r("parity").value = parityFor(r("level").value, intOr(r("data").value));
      setRaid(index, readRaid(), t);
      changed();
    });
    r("data").addEventListener("input", () => {
      if (r("level").value === "raid10") r("parity").value = r("data").value;
      setRaid(index, readRaid(), t);
      changed();
    });
    for (const k of ["parity", "groups", "spares"]) r(k).addEventListener("input", () => { setRaid(index, readRaid(), t); changed(); });
    const saveTemplate = more.querySelector(".save-template");
    if (saveTemplate) saveTemplate.addEventListener("click", () => openTemplateDialog(index));
    rows.appendChild(tr);
    rows.appendChild(more);
    return rows;
  }

  // ---------------------------------------------------------------- save a line as a template of one's own
  let templateLine = null;

  function openTemplateDialog(index) {
    const dialog = $("template-dialog");
    if (!dialog) return;
    templateLine = index;
    const entry = spec.bricks[index];
    const t = template(entry.template);
    const disk = options.disks.find((d) => d.slug === (entry.disk || t.disk));
    const raid = lineRaid(entry, t);
    $("template-from").textContent = `From ${t.name} with this line's disk, adapters and RAID layout (${raid.level} ${raid.groups} × ${raid.data}+${raid.parity}).`;
    $("template-name").value = `${t.name}, ${disk ? disk.name : entry.disk}`.slice(0, 160);
    let base = `${options.username}-${t.slug}`;
    if (entry.disk && entry.disk !== t.disk) base += `-${entry.disk}`;
    let slug = base.slice(0, 76);
    for (let n = 2; template(slug); n++) slug = `${base.slice(0, 76)}-${n}`;
    $("template-slug").value = slug;
    dialog.querySelectorAll("[data-template-error]").forEach((el) => { el.textContent = ""; });
    dialog.showModal();
    $("template-name").focus();
  }

  async function saveLineAsTemplate(event) {
    event.preventDefault();
    const index = templateLine;
    const entry = spec.bricks[index];
    const body = { slug: $("template-slug").value.trim(), name: $("template-name").value.trim() };
    for (const key of ["disk", "expansions", "adapter", "adapters_per_server", "storage_ports", "raid"]) {
      if (entry[key] !== undefined && entry[key] !== null && entry[key] !== "") body[key] = entry[key];
    }
    const errors = $("template-dialog").querySelectorAll("[data-template-error]");
    errors.forEach((el) => { el.textContent = ""; });
    const { response, data } = await api("POST", `/api/v1/brick-templates/${encodeURIComponent(entry.template)}/copy/`, body);
    if (!response.ok) {
      const other = [];
      for (const [field, messages] of Object.entries(data)) {
        const el = $("template-dialog").querySelector(`[data-template-error="${field}"]`);
        const text = Array.isArray(messages) ? messages.join(" ") : typeof messages === "string" ? messages : JSON.stringify(messages);
        if (el) el.textContent = text;
        else other.push(field === "detail" ? text : `${field.replaceAll("_", " ")}: ${text}`);
      }
      $("template-dialog").querySelector('[data-template-error="other"]').textContent = other.join(" ");
      return;
    }
    const base = template(entry.template);
    options.templates.push({
      slug: data.slug, name: data.name, role: data.role, disk: data.disk, expansions: data.expansions,
      max_expansions: base.max_expansions, adapter: data.network_adapter, network_adapter_count: data.network_adapter_count,
      host_ports: data.host_ports, form_factor: base.form_factor, head_kind: data.head_kind, head_controllers: base.head_controllers,
      drive_slots: data.drive_slots, owner: data.owner, group: "mine",
      raid: { level: data.raid_level, data: data.raid_data_disks, parity: data.raid_parity_disks, groups: data.groups_per_enclosure, spares: data.spares_per_enclosure },
    });
    spec.bricks[index] = { template: data.slug, count: entry.count, disk: data.disk, expansions: data.expansions, adapter: data.network_adapter };
    $("template-dialog").close();
    renderBricks();
    changed();
    say(`Saved the template '${data.name}' (${data.slug}); line ${index + 1} now uses it.`);
  }

  function intOr(text) {
    const n = Number(text);
    return text === "" || !Number.isFinite(n) ? text : n;
  }

  function renderBricks() {
    const body = $("brick-lines");
    body.innerHTML = "";
    spec.bricks.forEach((entry, i) => body.appendChild(brickRow(entry, i)));
    applyReadOnly();
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
    $("failover").value = spec.failover || "";
    $("placement").value = (spec.metadata || {}).placement || "in_rack";
    $("clients-on").checked = !!spec.clients;
    if (spec.clients) {
      $("clients-count").value = spec.clients.count;
      $("clients-rtt").value = spec.clients.rpc_round_trip_ms ?? "";
      $("clients-streams").value = spec.clients.streams ?? "";
    }
    $("fabric-on").checked = !!spec.fabric;
    if (spec.fabric) {
      $("fabric-oversubscription").value = spec.fabric.oversubscription ?? 1;
      $("fabric-core").value = spec.fabric.core_gbps ?? "";
    }
    toggleClients();
    renderBricks();
    renderMeta();
  }

  function toggleClients() {
    document.querySelector(".clients").hidden = !$("clients-on").checked;
    document.querySelector(".fabric").hidden = !$("fabric-on").checked;
  }

  function numberOrNothing(id) {
    const text = $(id).value.trim();
    return text === "" ? undefined : intOr(text);
  }

  function readOptions() {
    spec.name = $("design-name").value || "Untitled design";
    spec.tuning = $("tuning").value;
    spec.rack = $("rack").value;
    spec.price_list = $("price-list").value;
    spec.failover = $("failover").value || null; // automatic: paired where the storage allows
    spec.metadata = { cell: $("metadata-cell").value, placement: $("placement").value };
    spec.calibration = $("calibration").value ? Number($("calibration").value) : null;
    spec.clients = null;
    if ($("clients-on").checked) {
      spec.clients = { count: intOr($("clients-count").value), adapter: $("clients-adapter").value };
      const rtt = numberOrNothing("clients-rtt");
      const streams = numberOrNothing("clients-streams");
      if (rtt !== undefined) spec.clients.rpc_round_trip_ms = rtt;
      if (streams !== undefined) spec.clients.streams = streams;
    }
    spec.fabric = null;
    if ($("fabric-on").checked) {
      spec.fabric = { oversubscription: numberOrNothing("fabric-oversubscription") ?? 1 };
      const core = numberOrNothing("fabric-core");
      if (core !== undefined) spec.fabric.core_gbps = core;
    }
  }

  // ---------------------------------------------------------------- evaluation
  // Each edit asks the server again after a short pause (EVALUATE_DEBOUNCE_MS: typing "120" sends
  // one request, not three, yet the totals follow within a frame or two of the last key). Answers
  // can arrive out of order: each request carries a number and an AbortController, a newer request
  // aborts the one in flight, and an answer is shown only while its number is still the newest.
  const EVALUATE_DEBOUNCE_MS = 60;
  let inFlight = null;

  function changed() {
    dirty = true;
    readOptions();
    clearTimeout(timer);
    timer = setTimeout(evaluateNow, EVALUATE_DEBOUNCE_MS);
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

  // an annual probability: 1.7e-4 (1 in 5,900)
  function lossText(p) {
    if (p === null || p === undefined) return "–";
    if (p <= 0) return "0";
    return `${Number(p).toExponential(1)} (1 in ${fmt(Number((1 / p).toPrecision(2)), 0)})`;
  }

  function money(n, currency) {
    return n === null || n === undefined ? "–" : `${fmt(n, 0)} ${currency}`;
  }

  function clearResults(message) {
    for (const id of ["usable-pib", "usable-tib", "raw-tb", "read-gbps", "write-gbps", "read-limit", "write-limit", "price-total",
      "price-per-pib", "price-per-gbps", "rack-count", "units-used", "power", "weight", "degraded", "rebuild-hours", "loss-probability"]) $(id).textContent = "–";
    $("warnings").innerHTML = "";
    $("relative-line").hidden = true;
    racks.clear();
    if (window.Plotly) { $("stage-chart").querySelectorAll(".stage-line").forEach((d) => Plotly.purge(d)); $("stage-chart").innerHTML = ""; Plotly.purge("cost-chart"); }
    $("status").textContent = message;
  }

  async function evaluateNow() {
    clearTimeout(timer);
    if (inFlight) inFlight.abort();
    inFlight = null;
    if (!spec.bricks.length) {
      requestNo++;
      clearResults("Add a brick line to see the totals.");
      return;
    }
    const mine = ++requestNo;
    const controller = new AbortController();
    inFlight = controller;
    $("status").textContent = "Evaluating…";
    let response;
    let body;
    try {
      response = await fetch("/designer/evaluate/", {
        method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify({ spec: spec, design: design ? design.id : null, reference: $("reference").value || null }),
        signal: controller.signal,
      });
      body = await response.json().catch(() => ({}));
    } catch (err) {
      if (mine !== requestNo) return; // aborted by a newer edit: that one answers
      $("status").textContent = "The server cannot be reached; your edits are kept on this page.";
      return;
    }
    if (mine !== requestNo) return; // a newer request was sent after this one: never show an older answer
    if (inFlight === controller) inFlight = null;
    if (!response.ok) {
      showErrors(body.spec || (body.reference ? { reference: body.reference } : {}));
      document.querySelector(".results").classList.add("stale");
      $("status").textContent = body.detail || "Fix the fields marked in red: the figures below are for the last valid design.";
      $("status").classList.add("error");
    } else {
      document.querySelector(".results").classList.remove("stale");
      $("status").classList.remove("error");
      showErrors({});
      showEvaluation(body.evaluation, body.svgs, body.rack_row);
      showRelative(body.relative);
    }
    document.body.dataset.evaluated = String(mine); // the number of the request whose answer is shown (tests, benchmark)
  }

  // The price relative to the chosen reference: the ratio comes from the server (planner.engine.cost).
  function showRelative(rel) {
    $("relative-line").hidden = !rel;
    if (!rel) return;
    $("relative-price").textContent = rel.relative_price === null ? "–" : `${fmt(rel.relative_price, 2)}×`;
    $("reference-name").textContent = `${rel.name} (${money(rel.price_total, rel.currency)})` +
      (rel.currency_differs ? ", priced in another currency" : "");
  }

  function showEvaluation(ev, svgs, rackRow) {
    const cur = ev.price.currency;
    $("status").textContent = `${ev.counts.bricks} bricks, ${ev.counts.servers} servers, ${ev.counts.disks} disks, ${ev.counts.osts} OSTs` +
      (ev.price.illustrative ? " · prices are illustrative" : "") +
      (ev.sources.calibration ? ` · calibrated: ${ev.sources.calibration.from_calibration.join(", ").replaceAll("_", " ")} from '${ev.sources.calibration.name}'` : "");
    $("usable-pib").textContent = fmt(ev.usable_pib, 2);
    $("usable-tib").textContent = fmt(ev.usable_tib, 1);
    $("raw-tb").textContent = fmt(ev.raw_tb, 0);
    $("read-gbps").textContent = fmt(ev.read_gbps, 1);
    $("write-gbps").textContent = fmt(ev.write_gbps, 1);
    $("read-limit").textContent = ev.bottleneck.read_label || STAGE_LABELS[ev.bottleneck.read] || ev.bottleneck.read;
    $("write-limit").textContent = ev.bottleneck.write_label || STAGE_LABELS[ev.bottleneck.write] || ev.bottleneck.write;
    $("price-total").textContent = money(ev.price.total, cur);
    $("price-per-pib").textContent = money(ev.price.per_usable_pib, cur);
    $("price-per-gbps").textContent = money(ev.price.per_read_gbps, cur);
    $("rack-count").textContent = ev.rack_count;
    $("units-used").textContent = ev.units_used;
    $("power").textContent = fmt(ev.power_w / 1000, 1);
    $("weight").textContent = fmt(ev.weight_kg, 0);
    $("degraded").textContent = fmt(ev.degraded.read_gbps, 1);
    const rel = ev.reliability;
    $("rebuild-hours").textContent = rel ? fmt(rel.rebuild_hours_max, 1) : "–";
    $("loss-probability").textContent = rel ? lossText(rel.annual_loss_probability) : "–";
    const list = $("warnings");
    list.innerHTML = "";
    for (const w of ev.warnings) {
      const li = document.createElement("li");
      li.textContent = w;
      list.appendChild(li);
    }
    racks.show(svgs, rackRow);
    drawStageChart(ev);
    drawCostChart(ev);
  }

  // The stage table per brick line: ev.stages lists each line's stages in order (a new line starts when
  // the brick changes or the stages start again).
  function stagesByLine(ev) {
    const order = Object.keys(STAGE_LABELS);
    const lines = [];
    let last = null;
    for (const s of ev.stages) {
      const at = order.indexOf(s.stage);
      if (!last || s.brick !== last.brick || at <= last.at) lines.push([]);
      lines[lines.length - 1].push(s);
      last = { brick: s.brick, at };
    }
    return lines;
  }

  const STAGE_SHORT = {
    disks: "Disks", expansion_link: "Expansion<br>link", raid_controller: "RAID<br>controllers", host_links: "Host<br>links",
    server: "Server<br>(HBAs)", network: "Network<br>adapter", clients: "Clients",
  };

  // One chart per brick line: each stage's read and write limit per brick (before Lustre's efficiency),
  // the limiting stage outlined and named, and what one brick delivers (after the efficiency) as a line.
  function drawStageChart(ev) {
    if (!window.Plotly) return;
    const box = $("stage-chart");
    for (const old of box.querySelectorAll(".stage-line")) Plotly.purge(old);
    box.innerHTML = "";
    stagesByLine(ev).forEach((stages, i) => {
      const brick = ev.bricks[i] || {};
      const div = document.createElement("div");
      div.className = "stage-line";
      div.id = `stage-chart-${i}`;
      box.appendChild(div);
      // the server names each stage for this brick (a JBOD's RAID stage is the servers' software RAID); two lines
      const x = stages.map((s) => (s.label && s.label !== STAGE_LABELS[s.stage] ? s.label.replace(" ", "<br>") : STAGE_SHORT[s.stage] || s.label || s.stage));
      const bar = (op, colour) => ({
        type: "bar", name: `${op === "read" ? "Read" : "Write"} limit of the stage`, x, y: stages.map((s) => s[`${op}_gbps`]),
        marker: { color: colour, line: { color: stages.map((s) => (s.limiting[op] ? "#d62728" : colour)), width: stages.map((s) => (s.limiting[op] ? 3 : 0)) } },
        text: stages.map((s) => (s.limiting[op] ? "limit" : "")), textposition: "outside", textfont: { color: "#d62728", size: 11 }, cliponaxis: false,
        hovertemplate: `%{x}: %{y:.2f} GB/s ${op} per brick<extra></extra>`,
      });
      const delivered = (op, colour, dash) => ({
        type: "scatter", mode: "lines", name: `Delivered ${op} per brick (after Lustre efficiency)`, x, y: x.map(() => brick[`${op}_gbps_per_brick`]),
        line: { color: colour, width: 2, dash }, hovertemplate: `delivered ${op}: %{y:.2f} GB/s per brick<extra></extra>`,
      });
      const title = `${brick.count} × ${brick.name || brick.template}: ${fmt(brick.read_gbps_per_brick, 2)} GB/s read, ${fmt(brick.write_gbps_per_brick, 2)} GB/s write per brick`;
      Plotly.react(div, [bar("read", "#4e79a7"), bar("write", "#f28e2b"), delivered("read", "#1b3f6b", "solid"), delivered("write", "#a3520b", "dash")], {
        barmode: "group", height: 270, margin: { t: 30, r: 10, b: 10, l: 55 }, showlegend: false,
        title: { text: title, font: { size: 12 }, x: 0, xanchor: "left", y: 0.96 },
        xaxis: { automargin: true, tickangle: 0, tickfont: { size: 11 } },
        yaxis: { title: { text: "GB/s per brick" }, rangemode: "tozero", automargin: true },
      }, { displaylogo: false, responsive: true });
    });
  }

  // Where the money goes: the server's price.by_kind (kinds of part and energy, largest first, each with
  // its label and share of the total), drawn top-down in the order given.
  function drawCostChart(ev) {
    if (!window.Plotly) return;
    const kinds = ev.price.by_kind || [];
    Plotly.react("cost-chart", [{
      type: "bar", orientation: "h", y: kinds.map((k) => k.label), x: kinds.map((k) => k.total), marker: { color: "#59a14f" },
      text: kinds.map((k) => `${fmt(k.share * 100, 1)} %`), textposition: "outside", cliponaxis: false,
      hovertemplate: "%{y}: %{x:,.0f} " + ev.price.currency + " (%{text})<extra></extra>",
    }], {
      margin: { t: 10, r: 50, b: 45, l: 90 }, height: 40 + 26 * kinds.length + 60,
      xaxis: { title: { text: `${ev.price.currency} over ${ev.price.years} years (capex + energy)` }, tickformat: ",.0f", automargin: true },
      yaxis: { automargin: true, autorange: "reversed" },
    }, { displaylogo: false, responsive: true });
  }

  // ---------------------------------------------------------------- saving
  // A control that cannot act is disabled, says why in its tooltip (title) and is skipped by the keyboard.
  function able(id, ok, why) {
    const el = $(id);
    if (!el) return;
    el.disabled = !ok;
    if (ok) { el.removeAttribute("title"); el.removeAttribute("aria-description"); }
    else { el.title = why; el.setAttribute("aria-description", why); }
    const label = el.closest("label");
    if (label) label.classList.toggle("disabled", !ok);
  }

  // A reader of a design shared with them sees it read-only: every field of the design is disabled.
  const ALWAYS_ON = new Set(["start-blank", "start-example", "reference"]);
  function applyReadOnly() {
    const readOnly = !!design && !design.is_owner;
    const why = readOnly ? `Read-only: ${design.owner} shared this design with you. Save a copy to change it.` : "";
    document.querySelector(".designer").classList.toggle("read-only", readOnly);
    $("read-only-note").hidden = !readOnly;
    $("read-only-note").textContent = why;
    document.querySelectorAll(".compose input, .compose select, .compose button").forEach((el) => {
      if (ALWAYS_ON.has(el.id) || el.closest("#save-panel")) return;
      if (el.dataset.title === undefined) el.dataset.title = el.getAttribute("title") || ""; // its own tooltip, if any
      el.disabled = readOnly || !!el.dataset.fixedOff;
      const title = readOnly ? why : el.dataset.title;
      if (title) el.title = title;
      else el.removeAttribute("title");
    });
  }

  function renderMeta() {
    applyReadOnly();
    const meta = $("design-meta");
    if (!meta) return;
    const unsaved = "Save the design first: there is nothing saved yet to ";
    if (!design) {
      meta.textContent = "Not saved yet.";
      able("save", true);
      able("copy", false, unsaved + "copy.");
      able("delete", false, unsaved + "delete.");
      for (const id of ["share-users", "share-link", "share-apply"]) able(id, false, unsaved + "share.");
      for (const id of ["export-format", "export-reference", "export"]) able(id, false, unsaved + "export.");
      $("export-status").textContent = "Save the design to export it.";
      return;
    }
    meta.textContent = `Saved design #${design.id}, version ${design.version}` + (design.is_owner ? "" : ` (owned by ${design.owner}, shared with you read-only)`);
    const owner = `Only ${design.owner}, who owns this design, can `;
    able("save", design.is_owner, `${owner}save it. Save a copy to keep your own.`);
    able("delete", design.is_owner, `${owner}delete it.`);
    for (const id of ["share-users", "share-link", "share-apply"]) able(id, design.is_owner, `${owner}share it.`);
    able("copy", true);
    for (const id of ["export-format", "export-reference", "export"]) able(id, true);
    $("export-status").textContent = "";
  }

  // The sharing box shows who can read the design now and its secret link, if on; "Apply sharing" sends
  // the whole list, so a name left in the box keeps its access and one removed loses it.
  function renderSharing(sharedWith, pageUrl) {
    $("share-users").value = sharedWith.join(", ");
    $("share-link").checked = !!pageUrl;
    $("share-link").dataset.on = pageUrl ? "1" : "";
    const box = $("share-url");
    box.innerHTML = "";
    const people = sharedWith.length ? `Read-only for ${sharedWith.join(", ")}` : "Not shared with named users";
    box.append(`${people}; ${pageUrl ? "anyone with this link can read it: " : "no secret link."}`);
    if (pageUrl) {
      const a = document.createElement("a");
      a.href = pageUrl;
      a.textContent = pageUrl;
      box.appendChild(a);
    }
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
    history.replaceState(null, "", `/designer/?design=${data.id}` + ($("reference").value ? `&ref=${encodeURIComponent($("reference").value)}` : ""));
    dirty = false;
    renderMeta();
    say(`Saved: version ${data.version}.`);
  }

  function wireSaving() {
    if (!$("save")) return;
    if (design && design.is_owner) renderSharing(design.shared_with || [], design.share_page_url);
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
      const link = $("share-link").checked;
      if (!link && $("share-link").dataset.on &&
          !window.confirm("Switch the secret link off? Anyone using it loses access, and switching it on again makes a new link.")) return;
      const { response, data } = await api("POST", `/api/v1/designs/${design.id}/share/`, { users, link });
      if (!response.ok) { say((data.users || [data.detail || "Could not share."]).join(" "), true); return; }
      renderSharing(data.shared_with, data.share_page_url);
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
    if (response.status === 503 && data.job) {
      data = { ...data.job, waiting: data.detail };  // the task queue is down: the job is kept; keep polling it
    } else if (!response.ok) { status.textContent = data.detail || "The export could not be requested."; bar.hidden = true; return; }
    for (let i = 0; i < 600 && (data.status === "queued" || data.status === "running"); i++) {
      bar.value = data.progress;
      status.textContent = data.status === "queued" ? (data.waiting || "Queued: waiting for a worker…") : `Rendering… ${data.progress}%`;
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
    spec = JSON.parse(JSON.stringify(options.spec_defaults));  // the documented defaults, from planner/spec.py
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
  for (const id of ["clients-count", "clients-rtt", "clients-streams", "fabric-oversubscription", "fabric-core", "design-name"]) $(id).addEventListener("input", changed);
  $("clients-on").addEventListener("change", () => { toggleClients(); changed(); });
  $("fabric-on").addEventListener("change", () => { toggleClients(); changed(); });
  if ($("template-form")) {
    $("template-form").addEventListener("submit", saveLineAsTemplate);
    $("template-cancel").addEventListener("click", () => $("template-dialog").close());
  }
  const params = new URLSearchParams(window.location.search);
  if (params.get("example")) $("start-example").value = params.get("example");
  $("reference").value = initial.reference || "";
  if ($("reference").value !== (initial.reference || "")) $("reference").value = "";
  if ($("export-reference")) $("export-reference").value = $("reference").value;
  $("reference").addEventListener("change", () => {
    // not an edit of the design: the figures are asked for again with the new reference
    const url = new URL(window.location.href);
    if ($("reference").value) url.searchParams.set("ref", $("reference").value);
    else url.searchParams.delete("ref");
    history.replaceState(null, "", url.pathname + url.search);
    if ($("export-reference")) $("export-reference").value = $("reference").value;
    evaluateNow();
  });
  renderForm();
  wireSaving();
  changed();
  dirty = false; // what was just loaded is not an edit
})();
