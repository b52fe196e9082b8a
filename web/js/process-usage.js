// SPDX-License-Identifier: MIT
// Each process's SM use over the last minutes, from /api/v1/usage grouped by process (the
// daemon's recorded history): the status document has no per-process utilization.
import {apiGetPages} from "./api.js";
import {processKey} from "./process-table.js";

const USAGE_PAGES = {key: "rows", cursor: "after", pages: 20, join: (a, b) => a.concat(b)};

export class ProcessUsage {
  constructor(window = "10m") {
    this.window = window;
    this.figures = new Map();  // processKey -> SM percent while held (null: held nothing)
  }

  async refresh() {
    try {
      // A busy machine's churn can give more processes than a page holds.
      const doc = await apiGetPages("usage", {by: "process", since: this.window}, USAGE_PAGES);
      const figures = new Map();
      for (const row of doc.rows) {
        figures.set(processKey(row.pid, row.process_start_time_us), row.sm_percent_while_held);
        if (!figures.has(processKey(row.pid, null))) figures.set(processKey(row.pid, null), row.sm_percent_while_held);
      }
      this.figures = figures;
    } catch (error) {
      this.figures = error;
    }
  }
}
