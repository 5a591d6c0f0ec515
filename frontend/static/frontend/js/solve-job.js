// Design to target: follow a large search running on a worker, then reload to show its answers.
(function () {
  const box = document.getElementById("solve-job");
  async function poll() {
    const job = await (await fetch(box.dataset.url)).json();
    document.getElementById("solve-progress").value = job.progress;
    document.getElementById("solve-status").textContent = job.status === "queued" ? (job.waiting || "Queued: waiting for a worker…") : `Searching… ${job.progress}%`;
    if (job.status === "done" || job.status === "failed") { window.location.reload(); return; }
    setTimeout(poll, 1000);
  }
  poll();
})();
