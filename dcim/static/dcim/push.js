// "Send to DCIM" page: connections, dry run, push, progress polling and the per-object report,
// all through the public API (/api/v1/dcim/). No inline script (CSP).
(function () {
  "use strict";
  const root = document.getElementById("dcim-push");
  if (!root) return;
  const csrf = (document.cookie.match(/(?:^|; )csrftoken=([^;]+)/) || [])[1] || "";
  const $ = (id) => document.getElementById(id);
  const connectionsUrl = root.dataset.connectionsUrl;
  const pushesUrl = root.dataset.pushesUrl;
  let polling = null;
  let lastJob = null; // the report shown, drawn again when the unchanged filter changes

  async function call(method, url, body) {
    const options = { method, headers: { Accept: "application/json", "X-CSRFToken": csrf }, credentials: "same-origin" };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(url, options);
    let data = {};
    try { data = await response.json(); } catch (e) { data = { detail: "The server's answer was not JSON (" + response.status + ")." }; }
    return { status: response.status, data };
  }

  function messages(data) {
    if (!data || typeof data !== "object") return String(data);
    if (data.detail) return data.detail;
    return Object.entries(data).map(([k, v]) => k + ": " + (Array.isArray(v) ? v.join(" ") : v)).join("; ");
  }

  function showError(text) {
    const box = $("push-error");
    box.textContent = text || "";
    box.hidden = !text;
  }

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  // A device type's interface and power-port templates ("PowerVault MD3460: ctrl0-host0", ...) with the
  // same outcome and nothing to say are one row: "PowerVault MD3460: 14 (ctrl0-host0 … ctrl1-mgmt)".
  function grouped(report) {
    const out = [];
    for (const entry of report) {
      const at = entry.name.indexOf(": ");
      const plain = entry.kind.endsWith("-template") && at > 0 && !entry.changes && !entry.detail && !entry.status;
      const owner = plain ? entry.name.slice(0, at) : null;
      const last = out[out.length - 1];
      if (plain && last && last.owner === owner && last.kind === entry.kind && last.action === entry.action) {
        last.count += 1;
        last.lastPart = entry.name.slice(at + 2);
        last.name = owner + ": " + last.count + " (" + last.firstPart + " … " + last.lastPart + ")";
        continue;
      }
      out.push(plain ? { ...entry, owner, count: 1, firstPart: entry.name.slice(at + 2) } : entry);
    }
    return out;
  }

  function describe(entry) {
    const parts = [];
    if (entry.changes) {
      for (const [field, pair] of Object.entries(entry.changes)) {
        parts.push(field + ": " + JSON.stringify(pair[0]) + " → " + JSON.stringify(pair[1]));
      }
    }
    if (entry.detail) parts.push(entry.detail);
    if (entry.status) parts.push("(HTTP " + entry.status + ")");
    return parts.join("; ");
  }

  function render(job) {
    const progress = $("push-progress");
    const total = job.progress.total || 0;
    progress.hidden = job.status === "done" || job.status === "failed";
    progress.max = Math.max(total, 1);
    progress.value = job.progress.done || 0;
    const what = job.dry_run ? "Dry run" : "Push";
    let status = what + " " + job.status;
    if (job.status === "running" && total) status += ": " + job.progress.done + " of " + total + " (" + job.progress.step + ")";
    if (job.status === "queued" && job.waiting) status += ": " + job.waiting;
    $("push-status").textContent = status;
    showError(job.error);
    const counts = Object.entries(job.summary || {}).map(([k, v]) => v + " " + k).join(", ");
    $("push-summary").textContent = counts ? what + " of design version " + job.design_version + " to " + job.connection_name + ": " + counts + "." : "";
    lastJob = job;
    const body = $("push-report").querySelector("tbody");
    body.replaceChildren();
    const showUnchanged = $("push-show-unchanged").checked;
    let hidden = 0;
    for (const entry of grouped(job.report || [])) {
      if (entry.action === "unchanged" && !showUnchanged) { hidden += entry.count || 1; continue; }
      const row = document.createElement("tr");
      row.dataset.action = entry.action;
      if (entry.count) row.dataset.count = entry.count;
      cell(row, entry.kind);
      cell(row, entry.name);
      cell(row, entry.action).className = "action-" + entry.action;
      cell(row, describe(entry));
      body.appendChild(row);
    }
    // an unchanged object is most of a second push's report: listed only on request
    $("push-hidden").textContent = hidden ? "(" + hidden + " unchanged not listed)" : "";
  }

  $("push-show-unchanged").addEventListener("change", () => { if (lastJob) render(lastJob); });

  async function follow(url) {
    if (polling) clearTimeout(polling);
    const { status, data } = await call("GET", url);
    if (status !== 200) { showError(messages(data)); return; }
    render(data);
    if (data.status === "queued" || data.status === "running") polling = setTimeout(() => follow(url), 1000);
  }

  async function start(dryRun) {
    showError("");
    const design = $("push-design").value;
    const connection = $("push-connection").value;
    if (!design || !connection) { showError("Choose a design and a connection first."); return; }
    $("push-status").textContent = (dryRun ? "Dry run" : "Push") + " requested…";
    const { status, data } = await call("POST", pushesUrl, { design: Number(design), connection: Number(connection), dry_run: dryRun });
    if (status === 202) { render(data); follow(data.status_url); return; }
    if (status === 503 && data.job) { showError(data.detail); follow(data.job.status_url); return; }
    showError(messages(data));
    $("push-status").textContent = "";
  }

  $("push-dry-run").addEventListener("click", () => start(true));
  $("push-apply").addEventListener("click", () => {
    if (window.confirm("Write this design into the DCIM now?")) start(false);
  });

  $("push-test").addEventListener("click", async () => {
    const id = $("push-connection").value;
    const out = $("push-test-result");
    if (!id) { out.textContent = "Add a connection first."; return; }
    out.textContent = "Asking the DCIM…";
    const { status, data } = await call("POST", connectionsUrl + id + "/test/");
    if (status !== 200) { out.textContent = messages(data); return; }
    out.textContent = data.ok ? data.product + " " + data.version + " answers; the token works." :
      "Not working: " + data.detail + (data.status ? " (HTTP " + data.status + ")" : "");
  });

  $("connection-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    form.querySelectorAll(".field-error").forEach((el) => { el.textContent = ""; });
    const body = {
      name: $("conn-name").value, kind: $("conn-kind").value, base_url: $("conn-url").value, token: $("conn-token").value,
      token_version: $("conn-token-version").value, site: $("conn-site").value, tenant: $("conn-tenant").value,
      verify_tls: $("conn-verify").checked,
    };
    const { status, data } = await call("POST", connectionsUrl, body);
    if (status === 201) {
      $("conn-token").value = "";
      const select = $("push-connection");
      if (select.options.length === 1 && !select.options[0].value) select.remove(0);
      const option = new Option(data.name + " (" + data.kind + ", " + data.base_url + ", " + data.site + ")", data.id, true, true);
      select.add(option);
      $("connection-status").textContent = "";
      $("push-test-result").textContent = "Connection saved (token …" + data.token_hint.slice(-4) + "): test it.";
      $("connection-add").open = false;
      return;
    }
    for (const [field, problems] of Object.entries(data)) {
      const slot = form.querySelector('[data-error="' + field + '"]');
      const text = Array.isArray(problems) ? problems.join(" ") : String(problems);
      if (slot) slot.textContent = text; else $("connection-status").textContent = text;
    }
  });

  document.querySelectorAll("#push-recent [data-push]").forEach((button) => {
    button.addEventListener("click", () => follow(pushesUrl + button.dataset.push + "/"));
  });
})();
