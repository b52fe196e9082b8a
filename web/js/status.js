// SPDX-License-Identifier: MIT
// A GPU's status as `gpumeter list` shows it: the same words and the same colours (green
// free, blue in use or hosting vGPUs, red when the owner, the process list or the GPU itself
// is missing).

const STATUS = {
  free: {label: "free", tone: "free", marker: "[ ]"},
  in_use: {label: "in use", tone: "busy", marker: "[~]"},
  unknown_owner: {label: "owner unknown", tone: "alert", marker: "[!]"},
  unknown: {label: "unknown", tone: "alert", marker: "[?]"},
  lost: {label: "lost", tone: "alert", marker: "lost"},
  vgpu_host: {label: "vGPU host", tone: "busy", marker: "[v]"},
};

export function statusOf(gpu) {
  return STATUS[gpu.status] ?? {label: gpu.status ?? "N/A", tone: "alert", marker: "?"};
}
