// The rack row: every rack of a design side by side (front or rear), a summary strip for long rows,
// a click on a rack to zoom it, and the legend. The drawings come from the server
// (planner/rendering/elevation.py); this only places them. Used by the designer and the shared page.
(function () {
  "use strict";

  function RackRow(panel) {
    this.panel = panel;
    this.row = panel.querySelector(".rack-row");
    this.zoom = panel.querySelector(".rack-zoom");
    this.legend = panel.querySelector(".rack-legend-box");
    this.buttons = panel.querySelectorAll(".view-toggle button[data-view]");
    this.view = "front";
    this.data = null;
    this.zoomed = null; // index of the zoomed rack
    this.buttons.forEach((b) => b.addEventListener("click", () => this.setView(b.dataset.view)));
    this.row.addEventListener("click", (e) => this.onPick(e));
    this.row.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); this.onPick(e); }
    });
    this.zoom.addEventListener("click", (e) => { if (e.target.closest(".zoom-close")) this.unzoom(); });
  }

  RackRow.prototype.views = function () {
    const d = this.data || {};
    return { front: d.front || [], rear: d.rear || [] };
  };

  RackRow.prototype.show = function (front, rackRow) {
    this.data = Object.assign({ front: front || [], rear: [], summary: "", legend: "" }, rackRow || {});
    if (!this.data.front || !this.data.front.length) this.data.front = front || [];
    if (this.zoomed !== null && this.zoomed >= this.data.front.length) this.zoomed = null;
    this.draw();
  };

  RackRow.prototype.clear = function () {
    this.data = null;
    this.zoomed = null;
    this.row.innerHTML = "";
    this.zoom.innerHTML = "";
    this.zoom.hidden = true;
    this.legend.innerHTML = "";
    this.panel.classList.add("empty");
  };

  RackRow.prototype.setView = function (view) {
    this.view = view;
    this.buttons.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.view === view)));
    if (this.data) this.draw();
  };

  RackRow.prototype.draw = function () {
    const d = this.data;
    const svgs = this.views()[this.view].length ? this.views()[this.view] : d.front;
    this.panel.classList.remove("empty");
    this.row.classList.toggle("summary", Boolean(d.summary));
    this.row.style.setProperty("--racks", String(Math.max(svgs.length, 1)));
    if (d.summary) {
      this.row.innerHTML = d.summary;
      this.row.querySelectorAll("g.rack-column").forEach((g) => {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", `Zoom rack ${g.dataset.rack}`);
      });
    } else {
      this.row.innerHTML = svgs.map((svg, i) =>
        `<button type="button" class="rack-button" data-position="${i}" aria-label="Zoom rack ${i + 1}">${svg}</button>`).join("");
    }
    this.legend.innerHTML = d.legend || "";
    this.drawZoom();
  };

  RackRow.prototype.onPick = function (e) {
    const hit = e.target.closest(".rack-button, g.rack-column");
    if (!hit) return;
    const i = Number(hit.dataset.position);
    this.zoomed = this.zoomed === i ? null : i;
    this.drawZoom();
    if (this.zoomed !== null) this.zoom.scrollIntoView({ block: "nearest", behavior: "smooth" });
  };

  RackRow.prototype.unzoom = function () {
    this.zoomed = null;
    this.drawZoom();
  };

  RackRow.prototype.drawZoom = function () {
    this.row.querySelectorAll(".rack-button, g.rack-column").forEach((el) =>
      el.classList.toggle("zoomed", Number(el.dataset.position) === this.zoomed));
    if (this.zoomed === null || !this.data) { this.zoom.hidden = true; this.zoom.innerHTML = ""; return; }
    const list = this.views()[this.view].length ? this.views()[this.view] : this.data.front;
    const svg = list[this.zoomed];
    if (!svg) { this.zoom.hidden = true; return; }
    this.zoom.innerHTML = `<div class="zoom-head"><span>Rack ${this.zoomed + 1}, ${this.view} view (hover a device for its details)</span>` +
      `<button type="button" class="secondary zoom-close">Close</button></div><div class="zoom-body">${svg}</div>`;
    this.zoom.hidden = false;
  };

  window.RackRow = RackRow;
})();
