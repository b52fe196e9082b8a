// SPDX-License-Identifier: MIT
// The readings the charts show: the store's gauge names that /api/v1/history serves, each with
// its title, the unit on its axis, and how a value is scaled and printed.

const GIB = 1024 ** 3;

export const CHART_METRICS = [
  {
    key: "utilization_gpu_percent", title: "GPU utilization", unit: "%",
    scale: (v) => v, digits: 0, range: () => [0, 100],
  },
  {
    key: "memory_used_bytes", title: "Memory used", unit: "GiB",
    scale: (v) => v / GIB, digits: 1,
    range: (gpus) => [0, Math.max(1, ...gpus.map((g) => (g.memory_total_bytes ?? 0) / GIB))],
  },
  {
    key: "power_draw_watts", title: "Power draw", unit: "W",
    scale: (v) => v, digits: 0,
    range: (gpus) => [0, Math.max(1, ...gpus.map((g) => g.power_limit_watts ?? 0))],
  },
  {
    key: "temperature_celsius", title: "Temperature", unit: "°C",
    scale: (v) => v, digits: 0, range: () => [0, 100],
  },
  // GPM (Hopper and newer): charted only for the GPUs that have it (hasGpm); the history
  // database alone keeps these, up to the daemon's last record.
  {
    key: "gpm_sm_activity_percent", title: "GPM SM activity", unit: "%", gpm: true,
    scale: (v) => v, digits: 0, range: () => [0, 100],
  },
  {
    key: "gpm_tensor_activity_percent", title: "GPM tensor activity", unit: "%", gpm: true,
    scale: (v) => v, digits: 0, range: () => [0, 100],
  },
  {
    key: "gpm_dram_bandwidth_percent", title: "GPM DRAM bandwidth", unit: "%", gpm: true,
    scale: (v) => v, digits: 0, range: () => [0, 100],
  },
];

// A GPU of the status document with GPM: a figure, or none yet because its first GPM window
// has not closed ("no_data"); "not_supported" and other reasons mean none to chart.
export function hasGpm(gpu) {
  const value = gpu.gpm_sm_activity_percent;
  return (value !== null && value !== undefined) || gpu.unavailable?.gpm_sm_activity_percent === "no_data";
}

// The GPUs a metric's chart shows: every chosen GPU, or for a GPM metric those with GPM.
export function chartedGpus(metric, gpus) {
  return metric.gpm ? gpus.filter(hasGpm) : gpus;
}

// Distinct on light and dark backgrounds alike (checked for contrast against both).
export const SERIES_COLOURS = [
  "#2f7fd1", "#d1452f", "#2c9a4a", "#9b59d0", "#d98a00", "#159aa8", "#b0568a", "#7c7f1a",
];
