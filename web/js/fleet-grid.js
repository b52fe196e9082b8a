// SPDX-License-Identifier: MIT
// The fleet grid of `gpumeter master`: every GPU of every node on one screen, coloured by its
// status as `gpumeter list` colours it, with its users and memory; counts per node and for the
// whole fleet; "free now" hides everything that is not free. Choosing a node or a GPU shows
// the node below. Nodes whose readings name the same machine are marked, never merged.
import {el, replaceChildren} from "./dom.js";
import {bytes} from "./format.js";
import {statusOf} from "./status.js";

export function renderFleetGrid(grid, summary, fleet, {chosen, freeOnly, onPick}) {
  const totals = {nodes: fleet.nodes.length, fresh: 0, gpus: 0, free: 0, busy: 0, alert: 0};
  const groups = [];
  for (const node of fleet.nodes) {
    const gpus = node.status?.gpus ?? [];
    if (node.state === "ok") totals.fresh += 1;
    totals.gpus += gpus.length;
    for (const gpu of gpus) totals[toneCount(gpu)] += 1;
    const shown = freeOnly ? gpus.filter((g) => g.status === "free" && node.state === "ok") : gpus;
    if (freeOnly && shown.length === 0) continue;
    groups.push(nodeGroup(node, shown, gpus, node.name === chosen, onPick));
  }
  replaceChildren(grid, groups.length > 0 ? groups : el("p", {class: "empty"}, freeOnly ? "no free GPU in the fleet" : "no node configured"));
  replaceChildren(summary,
    `${totals.gpus} GPUs on ${totals.nodes} nodes: `,
    el("strong", {class: "ok-ink"}, `${totals.free} free`), `, ${totals.busy} in use`,
    totals.alert > 0 ? el("span", {class: "alert-ink"}, `, ${totals.alert} lost or unknown`) : "",
    totals.fresh < totals.nodes ? el("span", {class: "alert-ink"}, `; ${plural(totals.nodes - totals.fresh, "node")} without a fresh reading`) : "");
}

function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function toneCount(gpu) {
  const tone = statusOf(gpu).tone;
  return tone === "free" ? "free" : tone === "busy" ? "busy" : "alert";
}

function nodeGroup(node, shown, all, chosen, onPick) {
  const free = all.filter((g) => g.status === "free").length;
  const stateTone = node.state === "ok" ? "free" : node.state === "stale" ? "warn" : "alert";
  const twins = node.same_host_as ?? [];
  return el("div", {class: `grid-node${chosen ? " chosen" : ""}`, dataset: {node: node.name, state: node.state}},
    el("div", {class: "grid-node-head"},
      el("button", {class: "link", type: "button", onclick: () => onPick(node.name)}, node.name),
      node.state === "ok" ? "" : el("span", {class: `badge tone-${stateTone}`, title: node.error ?? ""}, node.state),
      el("span", {class: "muted"}, node.status ? `${free} of ${all.length} free` : "no reading"),
      twins.length > 0 ? el("span", {class: "badge tone-warn", title: "These nodes' readings give the same host name: one machine configured twice, or machines that call themselves the same"}, `same host as ${twins.join(", ")}`) : ""),
    el("div", {class: "grid-tiles"}, shown.map((gpu) => tile(node, gpu, onPick))));
}

function tile(node, gpu, onPick) {
  const status = statusOf(gpu);
  const users = gpu.users ?? [];
  const used = gpu.memory_used_bytes;
  const total = gpu.memory_total_bytes;
  const share = used != null && total ? Math.min(1, used / total) : 0;
  const who = gpu.status === "free" ? "free" : users.length > 0 ? users.join(", ") : status.label;
  return el("button", {type: "button", class: `gpu-tile tone-${status.tone}`, dataset: {gpu: gpu.index, status: gpu.status},
    title: `${node.name} GPU ${gpu.index}: ${gpu.name ?? ""}, ${status.label}${users.length ? ` (${users.join(", ")})` : ""}, ${bytes(used)} of ${bytes(total)}`,
    onclick: () => onPick(node.name)},
    el("span", {class: "tile-index"}, String(gpu.index)),
    el("span", {class: "tile-who"}, who),
    el("span", {class: "tile-meter"}, el("span", {style: {width: `${Math.round(share * 100)}%`}})));
}
