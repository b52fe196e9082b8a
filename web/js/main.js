// SPDX-License-Identifier: MIT
// The dashboard: reads the gpumeter server's JSON API and refreshes itself: the status every
// 2 s, charts, processes' SM use, tasks and accounting records every 10 s, usage every minute. On `gpumeter
// master` (fleet mode, when GET /api/v1/fleet answers) it shows the fleet and the node the
// user picks.
import {refreshAccounting, renderAccountingTable} from "./accounting-table.js";
import {apiGet} from "./api.js";
import {ChartsView} from "./charts-view.js";
import {Connection} from "./connection.js";
import {renderFleetGrid} from "./fleet-grid.js";
import {renderFleetTable} from "./fleet-table.js";
import {renderBoard} from "./board-panel.js";
import {renderGpuTable} from "./gpu-table.js";
import {NodeLine} from "./node-line.js";
import {renderProcessTable} from "./process-table.js";
import {ProcessView} from "./process-view.js";
import {ProcessUsage} from "./process-usage.js";
import {every} from "./schedule.js";
import {TaskView} from "./task-view.js";
import {setUrlParam, urlParam} from "./url-state.js";
import {UsageView} from "./usage-view.js";
import {fetchVgpu, renderVgpu} from "./vgpu-table.js";
import {VgpuCharts} from "./vgpu-charts.js";

const byId = (id) => document.getElementById(id);

const page = {
  fleet: false,  // served by `gpumeter master`
  node: null,    // the chosen node's name, in fleet mode
  local: true,   // the shown node's history, usage and tasks are served here (not in fleet mode)
  shownNode: null,  // the node the sections below the fleet table were last set up for
  status: null,  // the shown node's status document
  why: "",       // why there is no status document
  lastFleet: null,  // the last fleet document, in fleet mode
  fleetUsage: false,  // the master reads a Prometheus and serves the fleet's usage itself
};

const connection = new Connection(byId("connection"));
const nodeLine = new NodeLine(byId("node-line"));
const charts = new ChartsView(byId("chart-grid"), byId("chart-gpu"), byId("charts-note"), byId("charts-hint"),
                              byId("chart-range"), byId("charts-title"));
const usage = new UsageView(byId("usage-body"), byId("usage-bucket"));
const processView = new ProcessView(byId("process-user"), byId("process-sort"), () => renderProcesses());
const processUsage = new ProcessUsage();
const tasks = new TaskView({
  table: byId("task-table"), totals: byId("task-totals"), range: byId("task-range"),
  older: byId("older-tasks"), newer: byId("newer-tasks"), names: byId("task-names"),
  inputs: {name: byId("task-name"), user: byId("task-user"), label: byId("task-label")},
});
let gotStatus;
const firstStatus = new Promise((resolve) => { gotStatus = resolve; });

async function refreshStatus() {
  try {
    page.status = page.fleet ? await fleetStatus() : await apiGet("status");
    connection.ok();
  } catch (error) {
    connection.failed(error);
    return;
  }
  showStatus();
  gotStatus();
}

function showStatus() {
  const {status} = page;
  nodeLine.show(status, page.fleet ? page.node : null);
  renderGpuTable(byId("gpu-table"), status, (index) => charts.pick(index), page.why);
  renderBoard(byId("board"), {rails: byId("board-rails"), temperatures: byId("board-temperatures"),
                              engines: byId("board-engines")}, status);
  renderProcesses();
  if (status) charts.setGpus(status.gpus);
}

function renderProcesses() {
  const figures = page.local ? processUsage.figures : new Error("kept by the node's own daemon");
  processView.setUsers(page.status);
  renderProcessTable(byId("process-table"), page.status, figures, processUsage.window, page.why || undefined, processView);
}

// In fleet mode: the fleet table, and the chosen node's status from the fleet document.
async function fleetStatus() {
  const fleet = await apiGet("fleet");
  const names = fleet.nodes.map((n) => n.name);
  if (!names.includes(page.node)) page.node = fleet.nodes.find((n) => n.state === "ok")?.name ?? names[0] ?? null;
  page.lastFleet = fleet;
  if (fleet.source === "prometheus" && !page.fleetUsage) {
    page.fleetUsage = true;
    byId("usage-title").textContent = "Usage of the fleet";
  }
  renderFleet();
  const node = fleet.nodes.find((n) => n.name === page.node);
  page.why = node ? `N/A: ${node.name} is ${node.state}${node.error ? ` (${node.error})` : ""}` : "no node configured";
  // The master keeps no history: every node's charts, usage and tasks are its own daemon's.
  if (page.local !== false || page.shownNode !== page.node) {
    page.local = false;
    page.shownNode = page.node;
    disableLocalViews(node);
  }
  return node?.status ?? null;
}

// The grid and the table of the last fleet document; "free now" is kept in the URL.
function renderFleet() {
  const fleet = page.lastFleet;
  if (!fleet) return;
  const freeOnly = byId("fleet-free-only").checked;
  renderFleetGrid(byId("fleet-grid"), byId("fleet-summary"), fleet, {chosen: page.node, freeOnly, onPick: pickNode});
  renderFleetTable(byId("fleet-table"), fleet, page.node, pickNode);
}

function setFreeOnly(on) {
  setUrlParam("free", on ? "1" : "");
  renderFleet();
}

function pickNode(name) {
  page.node = name;
  statusLoop.now();
}

function disableLocalViews(node) {
  const message = !node ? "" : node.url === "self" ?
    `History, usage and tasks of ${node.name} are kept by a gpumeter daemon on it; the master only reads its GPUs` :
    `History, usage and tasks of ${node.name} are served by its own daemon: open ${node.url}`;
  charts.disable(message);
  if (!page.fleetUsage) usage.disable(message);
  tasks.disable(message);
  renderAccountingTable(byId("accounting-table"), byId("accounting-note"), {gpus: []}, message);
}

// Fleet mode when the server answers /api/v1/fleet; a node's own server answers 404.
async function detectFleet() {
  try {
    await apiGet("fleet");
    page.fleet = true;
    byId("fleet").hidden = false;
    const freeOnly = byId("fleet-free-only");
    freeOnly.checked = urlParam("free") === "1";
    freeOnly.addEventListener("change", () => setFreeOnly(freeOnly.checked));
  } catch (error) {
    if (error.kind !== "not_found") connection.failed(error);
  }
}

// Views of the daemon that serves the page: they wait for the first status, and rest in fleet
// mode (the master keeps no history).
function localOnly(task) {
  return async () => {
    await firstStatus;
    if (page.local) await task();
  };
}

await detectFleet();
every(10000, localOnly(() => charts.refresh()));
every(10000, localOnly(async () => {
  await processUsage.refresh();
  showStatus();
}));
every(10000, localOnly(() => tasks.refresh()));
every(10000, localOnly(() => refreshAccounting(byId("accounting-table"), byId("accounting-note"))));
// The daemon's own usage, or on a master reading Prometheus the fleet's.
every(60000, async () => {
  await firstStatus;
  if (page.local || page.fleetUsage) await usage.refresh();
});
const vgpuCharts = new VgpuCharts(byId("vgpu-chart-grid"));
every(10000, localOnly(async () => {
  let hosts;
  try {
    hosts = await fetchVgpu();
    renderVgpu(byId("vgpu"), byId("vgpu-table"), byId("vgpu-process-table"), hosts);
  } catch {
    byId("vgpu").hidden = true;  // an older server without the route, or no snapshot yet
    return;
  }
  await vgpuCharts.refresh(hosts);
}));
const statusLoop = every(2000, refreshStatus);
