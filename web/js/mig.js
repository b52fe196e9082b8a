// SPDX-License-Identifier: MIT
// MIG devices in the GPU table: one indented row per MIG device under its GPU (as `gpumeter
// list` and nvidia-smi show them), from the "mig" member of an /api/v1/status GPU.
import {el} from "./dom.js";
import {absent, bytes, NA, percent, reading} from "./format.js";

// What the driver does not give under MIG; shown wherever a utilisation would be.
export const MIG_NO_PROCESS_UTILIZATION = "MIG: the driver reports no per-process utilisation";

// The GPU table's GPM column, shown when some GPU reports GPM.
export const GPM_COLUMN = "SM active (GPM)";

// Inserts the MIG rows after each GPU's row (tr[data-gpu]); `columns` are the table's.
export function insertMigRows(table, gpus, columns) {
  const body = table.querySelector("tbody");
  if (!body) return;
  for (const gpu of gpus ?? []) {
    if (!gpu.mig?.enabled) continue;
    let after = body.querySelector(`tr[data-gpu="${gpu.index}"]`);
    if (!after) continue;
    for (const mig of gpu.mig.devices) {
      const cells = columns.map((c) => cellElement(c, migCell(c.label, gpu, mig)));
      const row = el("tr", {class: "mig-row", dataset: {parentGpu: gpu.index, mig: mig.uuid ?? ""}}, cells);
      after.after(row);
      after = row;
    }
  }
}

function cellElement(column, content) {
  const props = {class: column.class, "data-label": column.label};
  if (content && typeof content === "object" && !(content instanceof Node) && "text" in content) {
    return el("td", {...props, title: content.title, class: [column.class, content.class].filter(Boolean).join(" ")}, content.text);
  }
  return el("td", props, content);
}

function processesOf(gpu, mig) {
  const pids = new Set(mig.pids ?? []);
  return (gpu.processes ?? []).filter((p) => pids.has(p.pid));
}

function migCell(label, gpu, mig) {
  switch (label) {
    case "Status": return el("span", {class: "badge", title: mig.uuid ?? ""}, "MIG");
    case "Name": return {text: `↳ ${mig.profile ?? NA} · GI ${mig.gpu_instance_id} CI ${mig.compute_instance_id}`, title: mig.uuid ?? "", class: "mig-name"};
    case "Util": return {text: NA, title: MIG_NO_PROCESS_UTILIZATION, class: "na"};
    case "Memory": return memory(mig);
    case GPM_COLUMN: return reading(mig, "gpm_sm_activity_percent", (v) => percent(v, 0));
    case "Users": return listOr(mig, () => [...new Set(processesOf(gpu, mig).map((p) => p.user ?? "?"))].join(", "));
    case "PIDs": return listOr(mig, () => mig.pids.join(", "));
    case "Command": return listOr(mig, () => processesOf(gpu, mig).map((p) => p.short_command ?? NA).join(", "));
    default: return "";
  }
}

function memory(mig) {
  if (mig.memory_used_bytes === null || mig.memory_used_bytes === undefined) return absent(mig.unavailable?.memory_used_bytes);
  return `${bytes(mig.memory_used_bytes)} / ${bytes(mig.memory_total_bytes)}`;
}

function listOr(mig, render) {
  if (mig.pids === null || mig.pids === undefined) return absent(mig.unavailable?.pids);
  return render();
}
