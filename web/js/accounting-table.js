// SPDX-License-Identifier: MIT
// The driver's accounting records from /api/v1/accounting: one row per process in each GPU's
// buffer, running or exited, with figures averaged over the process's life (docs/accounting.md).
import {apiGet} from "./api.js";
import {el, fillTable, replaceChildren} from "./dom.js";
import {bytes, duration, localTime, NA, percent, reading} from "./format.js";

export async function refreshAccounting(table, note) {
  try {
    renderAccountingTable(table, note, await apiGet("accounting"));
  } catch (error) {
    note.hidden = true;
    replaceChildren(table, el("caption", {class: "note error"}, `Accounting: N/A (${error.message})`));
  }
}

// note: where the GPUs without records are listed ("GPU 1: accounting mode is off").
export function renderAccountingTable(table, note, doc, empty = "no process in any GPU's accounting buffer") {
  const rows = [];
  const off = [];
  for (const gpu of doc.gpus ?? []) {
    if (gpu.records) rows.push(...gpu.records.map((r) => ({...r, gpu: gpu.index})));
    else off.push(`GPU ${gpu.index}: ${gpu.enabled === false ? "accounting mode is off" : `accounting ${NA} (${gpu.unavailable?.enabled ?? gpu.unavailable?.records ?? "unknown"})`}`);
  }
  const nowUs = doc.time_us;
  const columns = [
    {label: "GPU", class: "num", cell: (r) => String(r.gpu)},
    {label: "PID", class: "num", cell: (r) => String(r.pid)},
    {label: "User", cell: (r) => reading(r, "user", (v) => v)},
    {label: "GPU util (life)", class: "num", cell: (r) => reading(r, "gpu_utilization_percent", (v) => percent(v))},
    {label: "Mem util (life)", class: "num", cell: (r) => reading(r, "memory_utilization_percent", (v) => percent(v))},
    {label: "Peak memory", class: "num", cell: (r) => reading(r, "max_memory_bytes", bytes)},
    {label: "Run time", class: "num", cell: (r) => (r.running ? `${duration((nowUs - r.start_time_us) / 1e6)} so far` : duration(r.time_ms / 1000))},
    {label: "Started", cell: (r) => localTime(r.start_time_us)},
    {label: "State", cell: (r) => el("span", {class: `badge state-${r.running ? "open" : "ended"}`}, r.running ? "running" : "exited")},
    {label: "Command", class: "command", cell: (r) => reading(r, "command", (v) => v)},
  ];
  fillTable(table, columns, rows, {rowProps: (r) => ({dataset: {pid: r.pid, gpu: r.gpu}}), empty});
  note.hidden = off.length === 0;
  note.textContent = off.join("; ");
}
