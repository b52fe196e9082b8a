// SPDX-License-Identifier: MIT
// The header line that says which machine is shown: host, driver, CUDA, GPU source and when
// the reading was taken.
import {localTime} from "./format.js";

export class NodeLine {
  constructor(line) {
    this.line = line;
  }

  show(status, nodeName) {
    if (!status) {
      this.line.textContent = nodeName ? `${nodeName}: no reading` : "no reading yet";
      return;
    }
    const driver = status.driver ?? {};
    const parts = [
      nodeName && nodeName !== status.host ? `${nodeName} (${status.host})` : status.host,
      `driver ${driver.driver_version ?? "N/A"}`,
      `CUDA ${driver.cuda_driver_version ?? "N/A"}`,
      status.source,
      `read ${localTime(status.time_us)}`,
    ];
    this.line.textContent = parts.join("  ·  ");
    document.title = `gpumeter: ${status.host}`;
  }
}
