// SPDX-License-Identifier: MIT
// The tasks section: a page of 50 tasks at a time from /api/v1/tasks (newest first, "Older"
// and "Newer" through the server's cursor), filtered on the server by name, user and label,
// and the totals per task name of every task that matches, whatever page is shown. The filters
// are kept in the page's URL (?task-name=decode&task-user=ada&task-label=camera%3D7).
import {apiGet} from "./api.js";
import {el, fillTable, replaceChildren} from "./dom.js";
import {duration, NA} from "./format.js";
import {renderTaskTable} from "./task-table.js";
import {setUrlParam, urlParam} from "./url-state.js";

const PAGE = 50;
const FILTERS = ["name", "user", "label"];

export class TaskView {
  constructor({table, totals, range, older, newer, inputs, names}) {
    Object.assign(this, {table, totals, range, older, newer, inputs, names});
    this.cursors = [];  // the "before" of each older page shown, newest page first (none)
    for (const key of FILTERS) {
      inputs[key].value = urlParam(`task-${key}`) ?? "";
      inputs[key].addEventListener("change", () => this.filterChanged());
    }
    older.addEventListener("click", () => {
      if (!this.next) return;
      this.cursors.push(this.next);
      this.refresh();
    });
    newer.addEventListener("click", () => {
      this.cursors.pop();
      this.refresh();
    });
  }

  // Tasks are kept by the node itself; in fleet mode a remote node has none here.
  disable(message) {
    renderTaskTable(this.table, {tasks: []}, message);
    this.renderTotals([]);
    this.range.textContent = "";
    this.older.disabled = true;
    this.newer.disabled = true;
  }

  filter() {
    const params = {};
    for (const key of FILTERS) {
      const value = this.inputs[key].value.trim();
      if (value) params[key] = value;
    }
    return params;
  }

  filterChanged() {
    for (const key of FILTERS) setUrlParam(`task-${key}`, this.inputs[key].value.trim());
    this.cursors = [];
    this.refresh();
  }

  pick(name) {
    this.inputs.name.value = name;
    this.filterChanged();
  }

  async refresh() {
    const before = this.cursors.at(-1);
    let doc;
    try {
      doc = await apiGet("tasks", {since: "1h", limit: PAGE, before, ...this.filter()});
    } catch (error) {
      // A filter the server refuses (a label without "="), or the server away.
      renderTaskTable(this.table, {tasks: []}, `Tasks: N/A (${error.message})`);
      this.range.textContent = "";
      return;
    }
    this.next = doc.truncated ? doc.next : null;
    const filtered = Object.keys(this.filter()).length > 0;
    renderTaskTable(this.table, doc, filtered ? "no task in the last hour matches the filter" : undefined);
    this.showRange(doc);
    this.renderTotals(doc.totals ?? []);
  }

  showRange(doc) {
    const shown = doc.tasks.length;
    const first = this.cursors.length * PAGE + 1;
    this.range.textContent = shown === 0 ? "" :
      `tasks ${first.toLocaleString()}–${(first + shown - 1).toLocaleString()} of ${doc.matched.toLocaleString()} that ended in the last hour, newest first`;
    this.older.disabled = !this.next;
    this.newer.disabled = this.cursors.length === 0;
  }

  renderTotals(totals) {
    replaceChildren(this.names, ...totals.map((t) => el("option", {value: t.name})));
    const rows = [...totals].sort((a, b) => b.tasks - a.tasks || a.name.localeCompare(b.name));
    fillTable(this.totals, [
      {label: "Name", cell: (t) => el("button", {class: "link", type: "button", onclick: () => this.pick(t.name)}, t.name)},
      {label: "Tasks", class: "num", cell: (t) => t.tasks.toLocaleString()},
      {label: "Time", class: "num", cell: (t) => duration(t.duration_seconds)},
      {label: "Mean", class: "num", cell: (t) => duration(t.duration_seconds / t.tasks)},
      {label: "SM busy", class: "num", cell: (t) => measured(t, `${t.sm_busy_seconds.toFixed(1)} GPU-s`)},
      {label: "Energy", class: "num", cell: (t) => measured(t, `${t.energy_joules.toFixed(1)} J`)},
    ], rows, {rowProps: (t) => ({dataset: {name: t.name}}), empty: "no task in the last hour"});
  }
}

// Over the tasks whose figures are known; N/A while none of them is measured yet.
function measured(totals, text) {
  if (totals.measured === 0) return {text: NA, title: "no task of this name measured yet", class: "na"};
  if (totals.measured < totals.tasks) return {text, title: `over the ${totals.measured} of ${totals.tasks} tasks measured so far`};
  return text;
}
