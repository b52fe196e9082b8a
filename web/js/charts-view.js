// The "Last hour" section: a chart per reading (utilization, memory, power, temperature, and
// GPM's SM activity, tensor activity and DRAM bandwidth where a GPU has GPM) for the chosen GPU
// or for all of them, from /api/v1/history.
import {apiGet} from "./api.js";
import {MetricChart, ZoomGroup} from "./chart.js";
import {CHART_METRICS, chartedGpus, hasGpm} from "./chart-metrics.js";
import {el} from "./dom.js";
import {alignSeries, hasPoints} from "./time-series.js";

const WINDOW = "1h";
const STEP = "10s";

const WHOLE_HOUR_HINT = "Drag across a chart to zoom; double-click to show the whole hour again.";

export class ChartsView {
  constructor(grid, picker, note, hint) {
    this.grid = grid;
    this.picker = picker;
    this.note = note;
    this.hint = hint;
    this.zoom = new ZoomGroup((window) => this.zoomed(window));
    this.charts = [];
    this.signature = "";
    this.gpus = [];
    picker.addEventListener("change", () => this.refresh());
    // The axes' colours are read when a chart is made: a switch between light and dark
    // (the system's evening setting) makes the charts again.
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      if (this.charts.length === 0) return;
      this.clear();
      this.refresh();
    });
  }

  // The GPUs of the latest status document (for the picker, the axes' ranges and labels).
  setGpus(gpus) {
    this.gpus = gpus;
    const options = ["all", ...gpus.map((g) => String(g.index))];
    const current = [...this.picker.options].map((o) => o.value);
    if (options.join() !== current.join()) {
      const chosen = this.picker.value || "all";
      this.picker.replaceChildren(...options.map((v) => el("option", {value: v}, v === "all" ? "all" : `GPU ${v}`)));
      this.picker.value = options.includes(chosen) ? chosen : "all";
    }
  }

  zoomed(window) {
    this.grid.dataset.zoomed = window ? "true" : "false";
    const time = (s) => new Date(s * 1000).toLocaleTimeString([], {hour12: false});
    this.hint.textContent = window ?
      `Showing ${time(window.min)} to ${time(window.max)}; double-click a chart to show the whole hour.` :
      WHOLE_HOUR_HINT;
  }

  pick(index) {
    this.picker.value = String(index);
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
    this.picker.parentElement.hidden = true;
    this.hint.hidden = true;
    this.clear();
  }

  async refresh() {
    const gpus = this.chosenGpus();
    this.note.hidden = true;
    this.picker.parentElement.hidden = false;
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
    const docs = await Promise.all(gpus.map(async (g) => ({
      label: `GPU ${g.index}`,
      doc: await apiGet("history", {gpu: g.index, metric: metric.key, since: WINDOW, step: STEP}).catch((e) => e),
    })));
    if (!this.charts.includes(chart)) return;  // rebuilt meanwhile
    const data = alignSeries(docs, metric.scale);
    chart.update(data, metric.range(gpus));
    chart.state.textContent = describe(docs, data, metric);
  }
}

// What the chart cannot show, in words: failed requests, or no reading at all (N/A).
function describe(docs, data, metric) {
  const failed = docs.filter(({doc}) => doc instanceof Error);
  if (failed.length > 0 && failed.every(({doc}) => doc.kind === "not_found")) {
    return "N/A: this server keeps no history (a node's own dashboard has its charts)";
  }
  if (failed.length > 0) return failed.map(({label, doc}) => `${label}: ${doc.message}`).join("; ");
  if (hasPoints(data)) return "";
  // GPM figures come from the history database alone, written once per record interval.
  return metric.gpm ? "N/A: no GPM figure recorded in the last hour yet (the daemon records them every record interval)" :
    "N/A: no reading in the last hour";
}
