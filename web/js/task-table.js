// SPDX-License-Identifier: MIT
// Task results from /api/v1/tasks: ended tasks (newest first), then those still open
// (task-view.js asks for them, a page at a time).
import {el, fillTable} from "./dom.js";
import {bytes, duration, localTime, NA, reading} from "./format.js";

const NO_TASK = "no task in the last hour (workers mark tasks with the client library: docs/task-protocol.md)";

// empty: what an empty table says.
export function renderTaskTable(table, doc, empty = NO_TASK) {
  const ended = [...(doc.tasks ?? [])].reverse();
  const rows = [...(doc.open ?? []), ...ended];
  const columns = [
    {label: "Task", class: "num", cell: (t) => String(t.task)},
    {label: "Name", cell: (t) => t.name},
    {label: "Labels", cell: (t) => Object.entries(t.labels ?? {}).map(([k, v]) => `${k}=${v}`).join(", ")},
    {label: "PID", class: "num", cell: (t) => String(t.pid)},
    {label: "User", cell: (t) => reading(t, "user", (v) => v)},
    {label: "Started", cell: (t) => localTime(t.begin_time_us)},
    {label: "Duration", class: "num", cell: (t) => (t.state === "open" ? `${duration(Date.now() / 1000 - t.begin_time_us / 1e6)} so far` : duration(t.duration_seconds))},
    {label: "GPU", cell: (t) => perGpu(t, (g) => String(g.index))},
    {label: "SM", class: "num", cell: (t) => perGpu(t, (g) => (g.sm_percent === null ? NA : `${g.sm_percent.toFixed(0)}%`))},
    {label: "GPU mem peak", class: "num", cell: (t) => perGpu(t, (g) => bytes(g.memory_peak_bytes))},
    {label: "Energy", class: "num", cell: (t) => energy(t)},
    {label: "State", cell: (t) => el("span", {class: `badge state-${t.state}`}, flags(t))},
  ];
  fillTable(table, columns, rows, {
    rowProps: (t) => ({dataset: {task: t.task}}),
    empty,
  });
}

// "-" for a task that ran on the CPU only; N/A while its figures are not known.
function perGpu(task, render) {
  if (!task.usage) return {text: NA, title: task.usage_error ?? task.state, class: "na"};
  if (task.usage.gpus.length === 0) return "-";
  return task.usage.gpus.map(render).join(" / ");
}

function energy(task) {
  if (!task.usage) return {text: NA, title: task.usage_error ?? task.state, class: "na"};
  if (task.usage.gpus.length === 0) return "-";
  const joules = task.usage.gpus.map((g) => g.energy_joules).filter((j) => j !== null);
  return joules.length === 0 ? NA : `${joules.reduce((a, b) => a + b, 0).toFixed(1)} J`;
}

function flags(task) {
  const words = [task.state];
  if (task.abandoned) words.push("abandoned");
  if (task.usage?.gpus.some((g) => g.low_confidence)) words.push("low confidence");
  // A board without per-process utilisation (a Jetson): the whole GPU's figures.
  if (task.usage?.gpus.some((g) => g.attribution === "device")) words.push("whole GPU");
  return words.join(", ");
}
