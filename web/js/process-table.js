// SPDX-License-Identifier: MIT
// The processes on the GPUs, from an /api/v1/status document, with each process's SM use
// over the last minutes from /api/v1/usage (by process) where the server records history.
import {el, fillTable} from "./dom.js";
import {absent, age, bytes, localTime, percent, reading} from "./format.js";
import {MIG_NO_PROCESS_UTILIZATION} from "./mig.js";

// Under this SM use over the window, a process that holds GPU memory is an idle holder.
const IDLE_SM_PERCENT = 1;

// smByProcess: Map from processKey() to SM percent while held, or null when the usage
// figures could not be read (the column then says N/A and why). view: a ProcessView (the
// user picked and the order), or none for every process by GPU.
export function renderProcessTable(table, status, smByProcess, smWindow, empty = "no process is using a GPU", view = null) {
  let rows = [];
  for (const gpu of status?.gpus ?? []) {
    for (const process of gpu.processes ?? []) rows.push({gpu, process, sm: smOf(process, smByProcess)});
  }
  if (view) rows = view.apply(rows);
  const columns = [
    {label: "GPU", class: "num", cell: (r) => String(r.gpu.index)},
    {label: "PID", class: "num", cell: (r) => String(r.process.pid)},
    {label: "User", cell: (r) => reading(r.process, "user", (v) => v)},
    {label: "Command", class: "command", cell: (r) => commandCell(r.process)},
    {label: "Since", class: "nowrap", cell: (r) => sinceCell(r.process, status?.time_us)},
    {label: `SM % (${smWindow})`, class: "num", cell: (r) => (idle(r) ? idleCell(r, smWindow) : smCell(r.process, smByProcess))},
    {label: "Memory", class: "num", cell: (r) => reading(r.process, "used_memory_bytes", bytes)},
  ];
  fillTable(table, columns, rows, {
    rowProps: (r) => ({class: idle(r) ? "idle" : undefined, dataset: {pid: r.process.pid, gpu: r.gpu.index}}),
    empty: view?.wantedUser && status ? `no process of ${view.wantedUser} on a GPU` : empty,
  });
}

// Holds memory and kept the GPU under 1 % busy over the whole window: someone is keeping a
// GPU from others without using it.
function idle(row) {
  return typeof row.sm === "number" && row.sm < IDLE_SM_PERCENT && (row.process.used_memory_bytes ?? 0) > 0;
}

function smOf(process, smByProcess) {
  if (process.mig || smByProcess instanceof Error) return undefined;
  return smByProcess.get(processKey(process.pid, process.start_time_us)) ??
         smByProcess.get(processKey(process.pid, null));
}

export function processKey(pid, startTimeUs) {
  // Start times are compared to the second: the history stores them as the host reported.
  return `${pid}@${startTimeUs === null || startTimeUs === undefined ? "?" : Math.floor(startTimeUs / 1e6)}`;
}

function commandCell(process) {
  if (process.command === null || process.command === undefined) return absent(process.unavailable?.command);
  return el("span", {title: process.command},
            el("strong", {}, process.short_command ?? process.command), " ",
            el("span", {class: "muted"}, process.command));
}

function sinceCell(process, nowUs) {
  if (process.start_time_us === null || process.start_time_us === undefined) {
    return absent(process.unavailable?.start_time_us);
  }
  return {text: age(process.start_time_us, nowUs), title: `started ${localTime(process.start_time_us)}`};
}

function idleCell(row, smWindow) {
  return el("span", {title: `holds ${bytes(row.process.used_memory_bytes)} of GPU memory and kept the GPU under ${IDLE_SM_PERCENT} % busy over the last ${smWindow}`},
            el("span", {class: "badge tone-warn"}, "idle"), " ", percent(row.sm, 0));
}

function smCell(process, smByProcess) {
  // Never a figure for a process on a MIG device: the driver has none.
  if (process.mig) return {text: "N/A", title: MIG_NO_PROCESS_UTILIZATION, class: "na"};
  if (smByProcess instanceof Error) return absent(smByProcess.message);
  const value = smByProcess.get(processKey(process.pid, process.start_time_us)) ??
                smByProcess.get(processKey(process.pid, null));
  if (value === undefined) return absent("not recorded yet");
  return value === null ? absent("held no memory") : percent(value, 0);
}
