// SPDX-License-Identifier: MIT
// The "Usage" section: GPU-hours per user from /api/v1/usage (the `gpumeter report --json`
// document), over the whole period with each user's quota where the server has quotas, and
// per hour, day or month.
import {apiGetPages} from "./api.js";
import {el, fillTable, replaceChildren} from "./dom.js";
import {bytes, isAbsent, kilowattHours, localTime, NA, percent} from "./format.js";
import {smDerivedCell} from "./sm-unknown.js";

const PERIODS = {hour: "24h", day: "30d", month: "365d"};
// Every row: users times periods can pass a page (1,000 rows); 20 pages is far past a screen.
const USAGE_PAGES = {key: "rows", cursor: "after", pages: 20, join: (a, b) => a.concat(b)};
const UNKNOWN_USER = "(unknown user)";

export class UsageView {
  constructor(body, bucketPicker) {
    this.body = body;
    this.bucketPicker = bucketPicker;
    bucketPicker.addEventListener("change", () => this.refresh());
  }

  disable(message) {
    this.bucketPicker.parentElement.hidden = true;
    replaceChildren(this.body, el("p", {class: "note"}, message));
  }

  async refresh() {
    const bucket = this.bucketPicker.value;
    const since = PERIODS[bucket];
    this.bucketPicker.parentElement.hidden = false;
    try {
      const [totals, periods] = await Promise.all([
        apiGetPages("usage", {by: "user", since}, USAGE_PAGES),
        apiGetPages("usage", {by: "user", bucket, since}, USAGE_PAGES),
      ]);
      this.render(totals, periods, bucket);
    } catch (error) {
      replaceChildren(this.body, el("p", {class: "note error"}, `Usage: N/A (${error.message})`));
    }
  }

  render(totals, periods, bucket) {
    const summary = el("table", {class: "data cards", id: "usage-users"});
    const byPeriod = el("table", {class: "data", id: "usage-periods"});
    renderTotals(summary, totals);
    renderPeriods(byPeriod, periods, bucket);
    const cut = totals.truncated || periods.truncated ?
      el("p", {class: "note"}, "Only the first 20,000 rows are shown: gpumeter report reads them all.") : "";
    replaceChildren(this.body,
      el("p", {class: "hint"}, `From ${localTime(totals.since_time_us)} to ${localTime(totals.until_time_us)} (local time), ${origin(totals.database)}.`),
      cut,
      el("div", {class: "scroll"}, summary),
      el("h3", {}, `GPU-hours per ${bucket}`),
      el("div", {class: "scroll"}, byPeriod));
  }
}

// A daemon's history database, or on the master the fleet's Prometheus ("Prometheus at URL"),
// whose ledger counters know no processes (their columns are N/A).
function origin(database) {
  return database.startsWith("Prometheus at ") ?
    `across the fleet, from the ledger counters in ${database} (per-process figures are kept by each machine)` :
    `recorded in ${database}`;
}

function userName(row) {
  return isAbsent(row.user) ? UNKNOWN_USER : row.user;
}

function renderTotals(table, doc) {
  const most = Math.max(0, ...doc.rows.map((r) => r.gpu_hours));
  const columns = [
    {label: "User", cell: (r) => userName(r)},
    {label: "GPU-hours", class: "num", cell: (r) => bar(r.gpu_hours, most, hours(r.gpu_hours))},
    {label: "SM % while held", class: "num", cell: (r) => smDerivedCell(r, r.sm_percent_while_held, (v) => percent(v, 1))},
    {label: "Energy", class: "num", cell: (r) => smDerivedCell(r, r.energy_kwh, kilowattHours)},
    {label: "Peak memory", class: "num", cell: (r) => bytes(r.peak_memory_bytes)},
    {label: "Processes", class: "num", cell: (r) => (isAbsent(r.processes) ? NA : String(r.processes))},
  ];
  if (doc.quota) columns.push({label: "Quota", cell: (r) => quotaCell(r.quota)});
  fillTable(table, columns, doc.rows, {
    rowProps: (r) => ({dataset: {user: userName(r)}}),
    empty: "nothing recorded in this period",
  });
}

function quotaCell(quota) {
  if (!quota) return "no quota";
  const share = Math.min(100, quota.percent);
  return el("span", {class: `meter quota${quota.over ? " over" : ""}`,
                     title: `${quota.period} quota, ${quota.period_label}`},
            el("span", {class: "meter-fill", style: {width: `${share}%`}}),
            el("span", {class: "meter-text"},
               `${hours(quota.used_gpu_hours)} / ${quota.gpu_hours} h a ${quota.period} ` +
               `(${quota.percent.toFixed(0)}%)${quota.over ? ", over" : ""}`));
}

// Periods as rows (newest first), users as columns.
function renderPeriods(table, doc, bucket) {
  const users = [...new Set(doc.rows.map(userName))].sort();
  const periods = new Map();
  for (const row of doc.rows) {
    if (!periods.has(row.period)) periods.set(row.period, new Map());
    periods.get(row.period).set(userName(row), row.gpu_hours);
  }
  const most = Math.max(0, ...doc.rows.map((r) => r.gpu_hours));
  const rows = [...periods.entries()].sort(([a], [b]) => (a < b ? 1 : -1));
  const columns = [
    {label: bucket[0].toUpperCase() + bucket.slice(1), class: "nowrap", cell: ([period]) => periodLabel(period)},
    ...users.map((user) => ({
      label: user, class: "num",
      cell: ([, gpuHours]) => (gpuHours.has(user) ? bar(gpuHours.get(user), most, hours(gpuHours.get(user))) : ""),
    })),
  ];
  fillTable(table, columns, rows, {empty: "nothing recorded in this period"});
}

// "2026-11-22T13" (an hour) reads as "2026-11-22 13:00"; days and months as they are.
function periodLabel(period) {
  return period.length === 13 && period[10] === "T" ? `${period.slice(0, 10)} ${period.slice(11)}:00` : period;
}

// Small figures keep three decimals: a few minutes on one GPU are hundredths of an hour.
function hours(value) {
  if (isAbsent(value)) return NA;
  if (value > 0 && value < 0.001) return "< 0.001";
  return value.toFixed(value < 1 ? 3 : 2);
}

function bar(value, most, text) {
  const share = most > 0 ? (100 * value) / most : 0;
  return el("span", {class: "bar"}, el("span", {class: "bar-text"}, text),
            el("span", {class: "bar-fill", style: {width: `${share}%`}}));
}
