// The fleet table of `gpumeter master` (GET /api/v1/fleet): every node with its state and the
// age of its last good reading; choosing a node shows its GPUs below.
import {el, fillTable} from "./dom.js";
import {absent, duration, isAbsent} from "./format.js";

const TONES = {ok: "free", stale: "warn", unreachable: "alert", garbage: "alert", unauthorized: "alert"};

export function renderFleetTable(table, fleet, chosen, onPick) {
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
  fillTable(table, columns, fleet.nodes, {
    rowProps: (n) => ({class: n.name === chosen ? "chosen" : undefined, dataset: {node: n.name, state: n.state}}),
    empty: "no node configured",
  });
  // The fleet as a whole could not be read (the master's Prometheus, for one).
  if (fleet.error) table.prepend(el("caption", {class: "error"}, `The fleet's readings are incomplete: ${fleet.error}`));
}

function count(node, test) {
  if (!node.status) return absent(node.state);
  return String(node.status.gpus.filter(test).length);
}
