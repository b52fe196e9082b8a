// SPDX-License-Identifier: MIT
// The charts section: a chart per reading (utilization, memory, power, temperature, and GPM's
// SM activity, tensor activity and DRAM bandwidth where a GPU has GPM) for the chosen GPU or
// for all of them, over a chosen range from 15 minutes to 90 days, from /api/v1/history (the
// daemon answers from its samples, minutes or hours as the range needs, in at most 720 steps).
// The range and the GPU are kept in the page's URL. A refresh that fails keeps what the charts
// show, and says why under them.
import {apiGet} from "./api.js";
import {MetricChart, ZoomGroup} from "./chart.js";
import {CHART_METRICS, chartedGpus, hasGpm} from "./chart-metrics.js";
import {el} from "./dom.js";
import {alignSeries, hasPoints} from "./time-series.js";
import {setUrlParam, urlParam} from "./url-state.js";

export const RANGES = [
  {value: "15m", title: "Last 15 minutes"}, {value: "1h", title: "Last hour"},
  {value: "6h", title: "Last 6 hours"}, {value: "24h", title: "Last 24 hours"},
  {value: "7d", title: "Last 7 days"}, {value: "30d", title: "Last 30 days"},
  {value: "90d", title: "Last 90 days"},
];
const DEFAULT_RANGE = "1h";

const WHOLE_RANGE_HINT = "Drag across a chart to zoom; double-click to show the whole range again.";

export class ChartsView {
  constructor(grid, picker, note, hint, rangePicker, heading) {
    this.grid = grid;
    this.picker = picker;
    this.note = note;
    this.hint = hint;
    this.rangePicker = rangePicker;
    this.heading = heading;
    this.zoom = new ZoomGroup((window) => this.zoomed(window));
    this.charts = [];
    this.signature = "";
    this.gpus = [];
    rangePicker.replaceChildren(...RANGES.map((r) => el("option", {value: r.value}, r.value)));
    const wanted = urlParam("range");
    rangePicker.value = RANGES.some((r) => r.value === wanted) ? wanted : DEFAULT_RANGE;
    this.showRange();
    picker.addEventListener("change", () => {
      setUrlParam("gpu", picker.value, "all");
      this.refresh();
    });
    rangePicker.addEventListener("change", () => {
      setUrlParam("range", rangePicker.value, DEFAULT_RANGE);
      this.showRange();
      this.clear();  // other steps: new charts, and the zoom of the old range is void
      this.zoom.set(null, null);
      this.refresh();
    });
    // The axes' colours are read when a chart is made: a switch between light and dark
    // (the system's evening setting) makes the charts again.
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      if (this.charts.length === 0) return;
      this.clear();
      this.refresh();
    });
  }

  range() {
    return RANGES.find((r) => r.value === this.rangePicker.value) ?? RANGES[1];
  }

  showRange() {
    this.heading.textContent = this.range().title;
  }

  // The GPUs of the latest status document (for the picker, the axes' ranges and labels).
  setGpus(gpus) {
    this.gpus = gpus;
    const options = ["all", ...gpus.map((g) => String(g.index))];
    const current = [...this.picker.options].map((o) => o.value);
    if (options.join() !== current.join()) {
      const chosen = this.picker.value || urlParam("gpu") || "all";
      this.picker.replaceChildren(...options.map((v) => el("option", {value: v}, v === "all" ? "all" : `GPU ${v}`)));
      this.picker.value = options.includes(chosen) ? chosen : "all";
    }
  }

  zoomed(window) {
    this.grid.dataset.zoomed = window ? "true" : "false";
    const time = (s) => new Date(s * 1000).toLocaleTimeString([], {hour12: false});
    this.hint.textContent = window ?
      `Showing ${time(window.min)} to ${time(window.max)}; double-click a chart to show the whole range.` :
      WHOLE_RANGE_HINT;
  }

  pick(index) {
    this.picker.value = String(index);
    setUrlParam("gpu", this.picker.value, "all");
    this.refresh();
  }

  chosenGpus() {
    const value = this.picker.value || "all";
    return value === "all" ? this.gpus : this.gpus.filter((g) => String(g.index) === value);
  }

  // Charts are served by the node itself; in fleet mode a remote node has none here.
  disable(message) {
    this.note.textContent = message;
    this.note.hidden = false;
    this.picker.closest(".pickers").hidden = true;
    this.hint.hidden = true;
    this.clear();
  }

  async refresh() {
    const gpus = this.chosenGpus();
    this.note.hidden = true;
    this.picker.closest(".pickers").hidden = false;
    this.hint.hidden = false;
    this.build(gpus);
    await Promise.all(this.charts.map((chart) => this.load(chart.metric, chart.gpus, chart)));
  }

  // A chart per metric that has a GPU to show (GPM's only where a chosen GPU has GPM).
  build(gpus) {
    const signature = gpus.map((g) => `${g.index}${hasGpm(g) ? "+gpm" : ""}`).join();
    if (signature === this.signature && this.charts.length > 0) return;
    this.clear();
    this.signature = signature;
    for (const metric of CHART_METRICS) {
      const charted = chartedGpus(metric, gpus);
      if (charted.length === 0) continue;
      const body = el("div", {class: "chart-body"});
      const state = el("p", {class: "chart-state"});
      this.grid.append(el("figure", {class: "chart", dataset: {metric: metric.key}}, body, state));
      const chart = new MetricChart(body, metric, charted.map((g) => `GPU ${g.index}`), this.zoom);
      chart.state = state;
      chart.gpus = charted;
      this.charts.push(chart);
    }
  }

  clear() {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
    this.signature = "";
    this.grid.replaceChildren();
  }

  async load(metric, gpus, chart) {
    const range = this.range();
    // No step: the daemon picks one that cuts the range into at most 720 buckets.
    const docs = await Promise.all(gpus.map(async (g) => ({
      label: `GPU ${g.index}`,
      doc: await apiGet("history", {gpu: g.index, metric: metric.key, since: range.value}).catch((e) => e),
    })));
    if (!this.charts.includes(chart) || range !== this.range()) return;  // rebuilt meanwhile
    const failed = docs.filter(({doc}) => doc instanceof Error);
    // Every request failed (the daemon restarting, the network): what the chart shows stays.
    if (failed.length === docs.length && chart.hasData?.()) {
      chart.state.textContent = `${describeFailures(failed)}; the chart shows the last readings it got`;
      return;
    }
    const data = alignSeries(docs, metric.scale);
    chart.update(data, metric.range(gpus));
    chart.state.textContent = describe(failed, data, metric, range);
  }
}

function describeFailures(failed) {
  return failed.map(({label, doc}) => `${label}: ${doc.message}`).join("; ");
}

// What the chart cannot show, in words: failed requests, or no reading at all (N/A).
function describe(failed, data, metric, range) {
  if (failed.length > 0 && failed.every(({doc}) => doc.kind === "not_found")) {
    return "N/A: this server keeps no history (a node's own dashboard has its charts)";
  }
  if (failed.length > 0) return describeFailures(failed);
  if (hasPoints(data)) return "";
  const within = range.title.replace(/^Last/, "in the last").toLowerCase();
  // GPM figures come from the history database alone, written once per record interval.
  return metric.gpm ? `N/A: no GPM figure recorded ${within} yet (the daemon records them every record interval)` :
    `N/A: no reading ${within}`;
}
