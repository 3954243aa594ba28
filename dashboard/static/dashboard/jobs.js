// Jobs page: refresh the progress of queued and running jobs from /jobs/progress.json every few seconds.
(function () {
  const section = document.getElementById("table-active");
  if (!section) return;
  const rows = () => [...section.querySelectorAll("tr[data-job]")];
  async function poll() {
    const ids = rows().map((row) => row.dataset.job);
    if (!ids.length) return;
    const query = ids.map((id) => "id=" + encodeURIComponent(id)).join("&");
    const response = await fetch(section.dataset.progressUrl + "?" + query, { credentials: "same-origin" });
    if (!response.ok) return;
    const data = await response.json();
    for (const job of data.jobs) {
      const row = section.querySelector(`tr[data-job="${job.id}"]`);
      if (!row) continue;
      const pct = Number(job.progress_pct).toFixed(1);
      row.querySelector('[data-field="state"]').textContent = job.state;
      row.querySelector('[data-field="progress_pct"]').textContent = pct;
      row.querySelector('[data-field="bar"]').style.width = pct + "%";
      row.querySelector('[data-field="current_point"]').textContent = job.current_point || "—";
    }
    setTimeout(poll, data.poll_ms || 3000);
  }
  setTimeout(poll, 1000);
})();
