// SPDX-License-Identifier: MIT
// The vGPU section's charts: one per vGPU instance, its SM, frame-buffer, encoder, decoder,
// JPEG and OFA utilisation over the horizon the daemon keeps in memory, from
// GET /api/v1/vgpu/series. A figure the driver did not give is a gap, never 0.
import {apiGet} from "./api.js";
import {MetricChart, ZoomGroup} from "./chart.js";
import {el} from "./dom.js";

// The engines, in the order of the series in each chart, with the key that holds them.
export const VGPU_ENGINES = [
  {key: "sm_percent", label: "SM"},
  {key: "memory_percent", label: "Frame buffer"},
  {key: "encoder_percent", label: "Encoder"},
  {key: "decoder_percent", label: "Decoder"},
  {key: "jpeg_percent", label: "JPEG"},
  {key: "ofa_percent", label: "OFA"},
];

export class VgpuCharts {
  constructor(grid) {
    this.grid = grid;
    this.zoom = new ZoomGroup();
    this.charts = new Map();  // instance key -> MetricChart
  }

  // hosts: the GPUs of /api/v1/vgpu that run as vGPU hosts (null: none).
  async refresh(hosts) {
    const instances = (hosts ?? []).flatMap((gpu) => gpu.vgpu.instances.map((instance) => ({gpu, instance})));
    this.build(instances);
    await Promise.all(instances.map((entry) => this.load(entry)));
  }

  build(instances) {
    const wanted = new Set(instances.map(({gpu, instance}) => keyOf(gpu, instance)));
    for (const [key, chart] of this.charts) {
      if (wanted.has(key)) continue;
      chart.destroy();
      chart.figure.remove();
      this.charts.delete(key);
    }
    for (const {gpu, instance} of instances) {
      const key = keyOf(gpu, instance);
      if (this.charts.has(key)) continue;
      const body = el("div", {class: "chart-body"});
      const state = el("p", {class: "chart-state"});
      const figure = el("figure", {class: "chart", dataset: {metric: `vgpu/${key}`, vm: instance.vm_id ?? "", gpu: gpu.index}}, body, state);
      this.grid.append(figure);
      const metric = {
        key, title: `GPU ${gpu.index} · VM ${instance.vm_id ?? `instance ${instance.id}`}${instance.type_name ? ` · ${instance.type_name}` : ""}`,
        unit: "%", scale: (v) => v, digits: 0, range: () => [0, 100],
      };
      const chart = new MetricChart(body, metric, VGPU_ENGINES.map((e) => e.label), this.zoom);
      Object.assign(chart, {figure, state});
      this.charts.set(key, chart);
    }
  }

  async load({gpu, instance}) {
    const key = keyOf(gpu, instance);
    const doc = await apiGet("vgpu/series", {gpu: gpu.index, vgpu: instance.uuid ?? instance.id}).catch((e) => e);
    const chart = this.charts.get(key);
    if (!chart) return;  // the VM stopped meanwhile
    if (doc instanceof Error) {
      chart.state.textContent = doc.message;
      return;
    }
    const data = [doc.time, ...VGPU_ENGINES.map((e) => doc[e.key])];
    chart.update(data, [0, 100]);
    chart.state.textContent = describe(doc);
  }
}

function keyOf(gpu, instance) {
  return `${gpu.index}/${instance.uuid ?? instance.id}`;
}

// What the chart cannot show, in words: engines the driver does not report (N/A), or no
// reading at all yet.
function describe(doc) {
  if (doc.time.length === 0) return "N/A: no reading yet";
  const missing = VGPU_ENGINES.filter((e) => doc[e.key].every((v) => v === null)).map((e) => e.label);
  if (missing.length === VGPU_ENGINES.length) return "N/A: the driver has no utilisation sample for this instance yet";
  return missing.length > 0 ? `N/A: ${missing.join(", ")} (not reported by this driver)` : "";
}
