// The shared-design page: draw the rack row, and prepare downloads (moved out of the template for the CSP).
(function () {
  const row = JSON.parse(document.getElementById("rack-row-data").textContent);
  new window.RackRow(document.getElementById("rack-panel")).show(row.front, row);
})();
(function () {
  const button = document.getElementById("export"), status = document.getElementById("export-status"), link = document.getElementById("export-download");
  button.addEventListener("click", async () => {
    link.hidden = true; status.textContent = "Queued…";
    let r = await fetch(button.dataset.url, { method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": (document.cookie.match(/(?:^|; )csrftoken=([^;]+)/) || [])[1] || "" }, body: JSON.stringify({ format: document.getElementById("export-format").value, reference: button.dataset.reference }) });
    let job = await r.json();
    if (r.status === 503 && job.job) job = { ...job.job, waiting: job.detail };  // queue down: the job is kept
    for (let i = 0; i < 600 && (job.status === "queued" || job.status === "running"); i++) {
      status.textContent = job.status === "queued" ? (job.waiting || "Queued: waiting for a worker…") : `Rendering… ${job.progress}%`;
      await new Promise((res) => setTimeout(res, 800));
      job = await (await fetch(job.status_url)).json();
    }
    if (job.status === "done") { status.textContent = `Ready: ${job.filename}`; link.href = job.download_url; link.hidden = false; }
    else status.textContent = job.error ? `Failed: ${job.error}` : (job.detail || "Could not prepare the download.");
  });
})();
