// SPDX-License-Identifier: MIT
// One uPlot chart of one reading for one or more GPUs, with units on both axes, drag-to-zoom
// and double-click to reset (uPlot's own gestures), sized to its container.
import {SERIES_COLOURS} from "./chart-metrics.js";
import {NA} from "./format.js";

const HEIGHT = 190;

export class MetricChart {
  // metric: an entry of CHART_METRICS; zoom: the ZoomGroup the charts share.
  constructor(container, metric, labels, zoom) {
    this.metric = metric;
    this.labels = labels;
    this.zoom = zoom;
    this.programmatic = false;
    this.plot = new globalThis.uPlot(this.options(container), [[], ...labels.map(() => [])], container);
    this.resizer = new ResizeObserver(() => this.fit(container));
    this.resizer.observe(container);
    zoom.add(this);
  }

  // data: [times, ...one column per label]; yRange: [min, max] in the metric's unit.
  update(data, yRange) {
    this.yRange = yRange;
    this.quietly(() => {
      this.plot.setData(data, true);
      if (this.zoom.window) this.plot.setScale("x", this.zoom.window);
    });
  }

  hasData() {
    return this.plot.data[0].length > 0;
  }

  showWindow(window) {
    const [times] = this.plot.data;
    const whole = {min: times[0], max: times[times.length - 1]};
    this.quietly(() => this.plot.setScale("x", window ?? whole));
  }

  destroy() {
    this.zoom.remove(this);
    this.resizer.disconnect();
    this.plot.destroy();
  }

  fit(container) {
    const width = Math.floor(container.clientWidth);
    if (width > 0 && width !== this.plot.width) this.plot.setSize({width, height: HEIGHT});
  }

  quietly(action) {
    this.programmatic = true;
    try {
      action();
    } finally {
      this.programmatic = false;
    }
  }

  options(container) {
    const {metric} = this;
    const style = getComputedStyle(document.documentElement);
    const ink = style.getPropertyValue("--ink").trim();
    const grid = style.getPropertyValue("--grid").trim();
    const axis = {stroke: ink, grid: {stroke: grid, width: 1}, ticks: {stroke: grid, width: 1}};
    return {
      width: Math.max(200, Math.floor(container.clientWidth)),
      height: HEIGHT,
      title: `${metric.title} (${metric.unit})`,
      cursor: {drag: {x: true, y: false}, sync: {key: "gpumeter-charts"}},
      scales: {x: {time: true}, y: {range: (u, low, high) => this.range(low, high)}},
      axes: [
        // 24-hour times, as everywhere else on the page; the date too once the range spans days.
        {...axis, label: "local time", labelSize: 18, labelFont: "12px system-ui, sans-serif",
         values: (u, splits) => axisTimes(splits)},
        {...axis, size: 60, values: (u, splits) => splits.map((v) => `${+v.toFixed(metric.digits)} ${metric.unit}`)},
      ],
      series: [
        {label: "Time", value: (u, v, s, idx) => (idx === null ? "latest" : pointTime(u.data[0], v))},
        ...this.labels.map((label, i) => ({
          label,
          stroke: SERIES_COLOURS[i % SERIES_COLOURS.length],
          width: 2,
          spanGaps: false,
          points: {show: false},
          value: (u, v, s, idx) => this.legendValue(idx === null ? latest(u.data[s]) : v),
        })),
      ],
      hooks: {setScale: [(u, key) => this.scaled(u, key)]},
    };
  }

  legendValue(v) {
    const {metric} = this;
    return v === null || v === undefined ? NA : `${v.toFixed(metric.digits)} ${metric.unit}`;
  }

  // The metric's natural range (0 to the memory size, the power limit, 100 %), widened when a
  // reading lies outside it.
  range(low, high) {
    const [min, max] = this.yRange ?? this.metric.range([]);
    return [Math.min(min, low ?? min), Math.max(max, high ?? max)];
  }

  scaled(u, key) {
    if (key !== "x" || this.programmatic) return;
    const [times] = u.data;
    const {min, max} = u.scales.x;
    const whole = times.length === 0 || (min <= times[0] && max >= times[times.length - 1]);
    this.zoom.set(whole ? null : {min, max}, this);
  }
}

const DAY = 86400;
const pad = (n) => String(n).padStart(2, "0");
const hourMinute = (d) => `${pad(d.getHours())}:${pad(d.getMinutes())}`;
const monthDay = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

// Axis labels: HH:MM:SS over a few minutes, HH:MM within a day; with the date at midnight and
// on ranges of several days.
function axisTimes(splits) {
  const span = splits.length > 1 ? splits[splits.length - 1] - splits[0] : 0;
  return splits.map((v) => {
    const date = new Date(v * 1000);
    if (span > 2 * DAY) return monthDay(date);
    if (span < 600) return `${hourMinute(date)}:${pad(date.getSeconds())}`;
    const time = hourMinute(date);
    return span > DAY / 2 && date.getHours() === 0 && date.getMinutes() === 0 ? `${monthDay(date)}\n${time}` : time;
  });
}

// The legend's time of a point: with seconds within a day, with the date beyond.
function pointTime(times, v) {
  const date = new Date(v * 1000);
  const span = times.length > 1 ? times[times.length - 1] - times[0] : 0;
  const time = `${hourMinute(date)}:${pad(date.getSeconds())}`;
  return span > DAY ? `${monthDay(date)} ${time}` : time;
}

// The legend shows the newest reading while the cursor is off the chart.
function latest(column) {
  for (let i = column.length - 1; i >= 0; i--) if (column[i] !== null) return column[i];
  return null;
}

// The charts on the page zoom together: a drag on one shows the same minutes on all, and a
// double-click on one shows the whole range on all. The window outlives data refreshes.
export class ZoomGroup {
  // onChange(window): the shown window changed (null: the whole range).
  constructor(onChange = () => {}) {
    this.charts = new Set();
    this.window = null;
    this.onChange = onChange;
  }

  add(chart) { this.charts.add(chart); }

  remove(chart) { this.charts.delete(chart); }

  set(window, origin) {
    this.window = window;
    for (const chart of this.charts) if (chart !== origin) chart.showWindow(window);
    this.onChange(window);
  }
}
