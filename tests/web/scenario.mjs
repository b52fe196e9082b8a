// SPDX-License-Identifier: MIT
// What a scenario file says is on the GPUs at scenario time t: the users and the command
// lines the dashboard must show (tests/web derive their expectations from the file, not from
// copies of it).
import {readFileSync} from "node:fs";

export function scenarioAt(path, t) {
  const scenario = JSON.parse(readFileSync(path, "utf8"));
  const alive = scenario.processes.filter((p) => {
    const start = p.start_s ?? (typeof p.host === "object" ? p.host.started_s ?? 0 : 0);
    return start <= t && t < (p.end_s ?? Infinity);
  });
  const visible = alive.filter((p) => typeof p.host === "object");
  return {
    gpuCount: scenario.devices.length,
    users: [...new Set(visible.map((p) => p.host.user))].sort(),
    commands: visible.map((p) => p.host.command.join(" ")),
    hidden: alive.length - visible.length,
  };
}
