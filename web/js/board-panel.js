// SPDX-License-Identifier: MIT
// The board's own sensors, for GPUs that carry them (a Jetson: /api/v1/status gpus[].board):
// one table of its power rails, one of its thermal zones and one of its engines' clocks, as
// `gpumeter list` prints them under its table. The panel is hidden on servers.
import {fillTable} from "./dom.js";
import {absent, celsius, megahertz, NA, number} from "./format.js";

// A figure of a named sensor, or N/A with its reason.
function figure(sensor, key, render) {
  const value = sensor[key];
  return value === null || value === undefined ? absent(sensor.unavailable?.[key]) : render(value);
}

export function renderBoard(panel, tables, status) {
  const gpus = (status?.gpus ?? []).filter((g) => g.board);
  panel.hidden = gpus.length === 0;
  if (gpus.length === 0) return;
  const rows = (key) => gpus.flatMap((g) => (g.board[key] ?? []).map((sensor) => ({gpu: g.index, ...sensor})));
  const gpuColumn = {label: "GPU", class: "num", cell: (s) => String(s.gpu)};
  fillTable(tables.rails, [
    gpuColumn,
    {label: "Rail", cell: (s) => s.name},
    {label: "Power", class: "num", cell: (s) => figure(s, "watts", (w) => `${number(w)} W`)},
    {label: "Voltage", class: "num", cell: (s) => figure(s, "volts", (v) => `${number(v)} V`)},
    {label: "Current", class: "num", cell: (s) => figure(s, "amperes", (a) => `${number(a)} A`)},
  ], rows("rails"), {empty: "no power monitor found"});
  fillTable(tables.temperatures, [
    gpuColumn,
    {label: "Zone", cell: (s) => s.name},
    {label: "Temperature", class: "num", cell: (s) => figure(s, "celsius", celsius)},
  ], rows("temperatures"), {empty: "no thermal zone found"});
  const why = gpus.map((g) => g.board.unavailable?.engines).find(Boolean);
  fillTable(tables.engines, [
    gpuColumn,
    {label: "Engine", cell: (s) => s.name},
    {label: "State", cell: (s) => figure(s, "on", (on) => (on ? "on" : "off"))},
    {label: "Clock", class: "num", cell: (s) => (s.on === false ? NA : figure(s, "clock_mhz", megahertz))},
  ], rows("engines"), {empty: why ? `N/A: ${why.replaceAll("_", " ")} (the engines' clocks are in debugfs: root)` : "no engine found"});
}
