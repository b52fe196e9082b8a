// SPDX-License-Identifier: MIT
// The vGPU section: on a vGPU host, each VM's vGPU instance (type, framebuffer, licence,
// utilisation) and the processes busy inside the VMs, from GET /api/v1/vgpu. The section
// stays hidden on a host whose GPUs all run bare metal.
import {apiGet} from "./api.js";
import {fillTable} from "./dom.js";
import {absent, bytes, percent, reading} from "./format.js";

// The instances and processes of every GPU that runs as a vGPU host; null when none does.
export async function fetchVgpu() {
  const document = await apiGet("vgpu");
  const hosts = (document.gpus ?? []).filter((gpu) => gpu.vgpu);
  return hosts.length > 0 ? hosts : null;
}

export function renderVgpu(section, instanceTable, processTable, hosts) {
  section.hidden = !hosts;
  if (!hosts) return;
  const instances = [];
  const processes = [];
  for (const gpu of hosts) {
    for (const instance of gpu.vgpu.instances) instances.push({gpu, instance});
    for (const process of gpu.vgpu.processes ?? []) processes.push({gpu, process});
  }
  fillTable(instanceTable, [
    {label: "GPU", class: "num", cell: (r) => String(r.gpu.index)},
    {label: "VM", cell: (r) => reading(r.instance, "vm_id", (v) => v)},
    {label: "Type", cell: (r) => reading(r.instance, "type_name", (v) => v)},
    {label: "Framebuffer", class: "num", cell: (r) => reading(r.instance, "fb_used_bytes", bytes)},
    {label: "Licence", cell: (r) => licenceCell(r.instance)},
    {label: "SM", class: "num", cell: (r) => useCell(r.instance, "sm_percent")},
    {label: "Memory", class: "num", cell: (r) => useCell(r.instance, "memory_percent")},
    {label: "Encoder", class: "num", cell: (r) => useCell(r.instance, "encoder_percent")},
    {label: "Decoder", class: "num", cell: (r) => useCell(r.instance, "decoder_percent")},
  ], instances, {
    rowProps: (r) => ({dataset: {vm: r.instance.vm_id ?? "", gpu: r.gpu.index}}),
    empty: "no VM is running",
  });
  const vmOf = (gpu, id) => gpu.vgpu.instances.find((i) => i.id === id)?.vm_id ?? `instance ${id}`;
  fillTable(processTable, [
    {label: "GPU", class: "num", cell: (r) => String(r.gpu.index)},
    {label: "VM", cell: (r) => vmOf(r.gpu, r.process.instance)},
    {label: "PID", class: "num", cell: (r) => String(r.process.pid)},
    {label: "Name", cell: (r) => r.process.name ?? absent("no name reported")},
    {label: "SM", class: "num", cell: (r) => percent(r.process.utilization.sm_percent)},
    {label: "Encoder", class: "num", cell: (r) => percent(r.process.utilization.encoder_percent)},
    {label: "Decoder", class: "num", cell: (r) => percent(r.process.utilization.decoder_percent)},
  ], processes, {
    rowProps: (r) => ({dataset: {pid: r.process.pid}}),
    empty: "no process inside a VM was busy",
  });
}

function licenceCell(instance) {
  const licence = instance.license;
  if (!licence) return absent(instance.unavailable?.license);
  const state = (licence.state ?? (licence.licensed ? "licensed" : "unlicensed")).replaceAll("_", " ");
  return licence.expiry ? {text: state, title: `expires ${licence.expiry}`} : state;
}

function useCell(instance, key) {
  if (!instance.utilization) return absent(instance.unavailable?.utilization);
  return percent(instance.utilization[key]);
}
