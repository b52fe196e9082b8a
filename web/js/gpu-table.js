// SPDX-License-Identifier: MIT
// The table of GPUs, from an /api/v1/status document (`gpumeter list --json`).
import {el, fillTable} from "./dom.js";
import {absent, age, bytes, celsius, isAbsent, megahertz, NA, percent, reading, watts} from "./format.js";
import {GPM_COLUMN, insertMigRows} from "./mig.js";
import {statusOf} from "./status.js";

// onPick(index): the user chose a GPU (its charts are shown). status null: no reading, and
// `empty` says why.
export function renderGpuTable(table, status, onPick, empty = "no GPU on this machine") {
  const columns = [
    {label: "GPU", class: "num", cell: (g) => el("button", {class: "link", type: "button", title: `charts of GPU ${g.index}`, onclick: () => onPick(g.index)}, String(g.index))},
    {label: "Status", cell: (g) => el("span", {class: "badges"}, statusBadge(g), ...healthBadges(g))},
    {label: "Name", class: "nowrap", cell: (g) => reading(g, "name", shortName)},
    {label: "Util", class: "num", cell: (g) => reading(g, "utilization_gpu_percent", percent)},
    {label: "Memory", class: "num", cell: (g) => memoryCell(g)},
    {label: "Temp", class: "num", cell: (g) => reading(g, "temperature_celsius", celsius)},
    {label: "Power", class: "num", cell: (g) => powerCell(g)},
    {label: "SM clock", class: "num", cell: (g) => reading(g, "clock_sm_mhz", megahertz)},
    {label: "Users", cell: (g) => listCell(g, g.users)},
    {label: "Since", class: "nowrap", cell: (g) => sinceCell(g, status?.time_us)},
    {label: "PIDs", cell: (g) => listCell(g, g.processes?.map((p) => p.pid))},
    {label: "Command", class: "command", cell: (g) => commandsCell(g)},
  ];
  // GPM (Hopper and newer): SM activity measured by the GPU's counters, also per MIG device.
  if ((status?.gpus ?? []).some((g) => !isAbsent(g.gpm_sm_activity_percent))) {
    columns.splice(4, 0, {label: GPM_COLUMN, class: "num", cell: (g) => reading(g, "gpm_sm_activity_percent", (v) => percent(v, 0))});
  }
  fillTable(table, columns, status?.gpus ?? [], {
    rowProps: (g) => ({class: `tone-${statusOf(g).tone}`, dataset: {gpu: g.index, status: g.status}}),
    empty,
  });
  insertMigRows(table, status?.gpus, columns);
}

// "NVIDIA A100-SXM4-80GB" reads as "A100-SXM4-80GB" (every GPU here is NVIDIA's); the full
// name is the tooltip.
function shortName(name) {
  return {text: name.replace(/^NVIDIA /, ""), title: name};
}

export function statusBadge(gpu) {
  const s = statusOf(gpu);
  return el("span", {class: `badge tone-${s.tone}`, title: s.marker}, s.label);
}

// What needs a person's look, beside the status: heat or power holding the clocks down, a
// memory row waiting for a reset or failing to remap, uncorrected ECC errors (the same signals
// as examples/prometheus/alerts.yml).
const HEAT = 32 | 64;
const POWER = 4 | 128;

export function healthBadges(gpu) {
  const badges = [];
  const warn = (text, title, tone = "warn") => badges.push(el("span", {class: `badge tone-${tone}`, title}, text));
  const reasons = gpu.clock_event_reasons;
  if (typeof reasons === "number" && (reasons & HEAT)) warn("hot", `the driver holds the clocks down for heat (clock event reasons ${reasons})`);
  if (typeof reasons === "number" && (reasons & POWER)) warn("power cap", `the clocks are held at the power limit (clock event reasons ${reasons})`);
  if (gpu.remap_failed === 1) warn("remap failed", "a memory row could not be remapped: the GPU needs service", "alert");
  else if (gpu.remap_pending === 1) warn("reset needed", "a memory row remapping waits for the GPU's next reset");
  if (gpu.retired_pages_pending === 1) warn("reload needed", "a memory page retirement waits for the driver's next reload");
  if (gpu.ecc_errors_uncorrected_total > 0) warn("ECC", `${gpu.ecc_errors_uncorrected_total} uncorrected ECC errors over the GPU's lifetime`, "alert");
  if (gpu.xid_errors_total > 0) {
    warn(`XID ${gpu.xid_last}`, `${gpu.xid_errors_total} XID error${gpu.xid_errors_total === 1 ? "" : "s"} reported since gpumeter began watching; the last: XID ${gpu.xid_last} (see the driver's log)`, "alert");
  }
  return badges;
}

function memoryCell(gpu) {
  const used = gpu.memory_used_bytes;
  const total = gpu.memory_total_bytes;
  if (used === null || used === undefined) return absent(gpu.unavailable?.memory_used_bytes);
  const text = `${bytes(used)} / ${bytes(total)}`;
  if (!total) return text;
  const share = Math.min(100, (100 * used) / total);
  return el("span", {class: "meter", title: `${share.toFixed(0)}% of memory in use`},
            el("span", {class: "meter-fill", style: {width: `${share}%`}}), el("span", {class: "meter-text"}, text));
}

function powerCell(gpu) {
  const draw = gpu.power_draw_watts;
  const limit = gpu.power_limit_watts;
  if ((draw === null || draw === undefined) && (limit === null || limit === undefined)) {
    return absent(gpu.unavailable?.power_draw_watts);
  }
  return `${watts(draw)} / ${watts(limit)}`;
}

// Users, pids, commands: absent when the process list could not be read.
function listCell(gpu, values) {
  if (gpu.processes === null || gpu.processes === undefined) return absent(gpu.unavailable?.processes);
  return values.join(", ");
}

function commandsCell(gpu) {
  const text = listCell(gpu, gpu.processes?.map((p) => p.short_command ?? NA));
  if (typeof text !== "string") return text;
  return {text, title: (gpu.processes ?? []).map((p) => p.command ?? NA).join("\n")};
}

function sinceCell(gpu, nowUs) {
  if (gpu.processes === null || gpu.processes === undefined) return absent(gpu.unavailable?.processes);
  if (gpu.processes.length === 0) return "";
  // As `gpumeter list`: the oldest start among the processes whose start is known.
  const starts = gpu.processes.map((p) => p.start_time_us).filter((t) => t !== null && t !== undefined);
  return starts.length === 0 ? NA : age(Math.min(...starts), nowUs);
}
