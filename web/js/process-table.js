// The processes on the GPUs, from an /api/v1/status document, with each process's SM use
// over the last minutes from /api/v1/usage (by process) where the server records history.
import {el, fillTable} from "./dom.js";
import {absent, age, bytes, localTime, percent, reading} from "./format.js";
import {MIG_NO_PROCESS_UTILIZATION} from "./mig.js";

// smByProcess: Map from processKey() to SM percent while held, or null when the usage
// figures could not be read (the column then says N/A and why).
export function renderProcessTable(table, status, smByProcess, smWindow, empty = "no process is using a GPU") {
  const rows = [];
  for (const gpu of status?.gpus ?? []) {
    for (const process of gpu.processes ?? []) rows.push({gpu, process});
  }
  const columns = [
    {label: "GPU", class: "num", cell: (r) => String(r.gpu.index)},
    {label: "PID", class: "num", cell: (r) => String(r.process.pid)},
    {label: "User", cell: (r) => reading(r.process, "user", (v) => v)},
    {label: "Command", class: "command", cell: (r) => commandCell(r.process)},
    {label: "Since", class: "nowrap", cell: (r) => sinceCell(r.process, status?.time_us)},
    {label: `SM % (${smWindow})`, class: "num", cell: (r) => smCell(r.process, smByProcess)},
    {label: "Memory", class: "num", cell: (r) => reading(r.process, "used_memory_bytes", bytes)},
  ];
  fillTable(table, columns, rows, {
    rowProps: (r) => ({dataset: {pid: r.process.pid, gpu: r.gpu.index}}),
    empty,
  });
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

function smCell(process, smByProcess) {
  // Never a figure for a process on a MIG device: the driver has none.
  if (process.mig) return {text: "N/A", title: MIG_NO_PROCESS_UTILIZATION, class: "na"};
  if (smByProcess instanceof Error) return absent(smByProcess.message);
  const value = smByProcess.get(processKey(process.pid, process.start_time_us)) ??
                smByProcess.get(processKey(process.pid, null));
  if (value === undefined) return absent("not recorded yet");
  return value === null ? absent("held no memory") : percent(value, 0);
}
