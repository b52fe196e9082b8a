// SPDX-License-Identifier: MIT
// The fleet table of `gpumeter master` (GET /api/v1/fleet): every node with its state and the
// age of its last good reading; choosing a node shows its GPUs below. Past LISTED_ALL nodes it
// lists only those that need a look (not ok, or naming the same host as another) and the
// chosen one: the grid above shows every node, and a thousand rows rebuilt at every refresh
// cost the page more than they tell.
import {el, fillTable} from "./dom.js";
import {absent, duration, isAbsent} from "./format.js";

const TONES = {ok: "free", stale: "warn", unreachable: "alert", garbage: "alert", unauthorized: "alert"};

const LISTED_ALL = 50;

export function renderFleetTable(table, fleet, chosen, onPick) {
  const needsLook = (n) => n.state !== "ok" || (n.same_host_as ?? []).length > 0 || n.name === chosen;
  const rows = fleet.nodes.length > LISTED_ALL ? fleet.nodes.filter(needsLook) : fleet.nodes;
  const columns = [
    {label: "Node", cell: (n) => el("span", {},
      el("button", {class: "link", type: "button", onclick: () => onPick(n.name)}, n.name),
      (n.same_host_as ?? []).length > 0 ? " " : "",
      (n.same_host_as ?? []).length > 0 ? el("span", {class: "badge tone-warn", title: "These nodes' readings give the same host name"}, `same host as ${n.same_host_as.join(", ")}`) : "")},
    {label: "State", cell: (n) => el("span", {class: `badge tone-${TONES[n.state] ?? "alert"}`, title: n.error ?? ""}, n.state)},
    {label: "Age", class: "num", cell: (n) => (isAbsent(n.age_seconds) ? absent("never read") : duration(n.age_seconds))},
    {label: "GPUs", class: "num", cell: (n) => count(n, () => true)},
    {label: "Free", class: "num", cell: (n) => count(n, (g) => g.status === "free")},
    {label: "In use", class: "num", cell: (n) => count(n, (g) => g.status !== "free")},
    {label: "Address", cell: (n) => (/^https?:\/\//.test(n.url) ? el("a", {href: n.url, rel: "noreferrer"}, n.url) : n.url)},
    {label: "Error", cell: (n) => n.error ?? ""},
  ];
  fillTable(table, columns, rows, {
    rowProps: (n) => ({class: n.name === chosen ? "chosen" : undefined, dataset: {node: n.name, state: n.state}}),
    empty: "no node configured",
  });
  // The fleet as a whole could not be read (the master's Prometheus, for one); nodes left out.
  const unlisted = fleet.nodes.length - rows.length;
  if (fleet.error || unlisted > 0) {
    table.prepend(el("caption", {},
      fleet.error ? el("div", {class: "error"}, `The fleet's readings are incomplete: ${fleet.error}`) : "",
      unlisted > 0 ? el("div", {class: "muted"}, `${unlisted} more nodes read normally: the grid above shows them`) : ""));
  }
}

function count(node, test) {
  if (!node.status) return absent(node.state);
  return String(node.status.gpus.filter(test).length);
}
