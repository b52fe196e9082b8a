// SPDX-License-Identifier: MIT
// Usage figures derived from SM use (SM % while held, energy) where the history knows only
// part of it: processes on a GPU in MIG mode, whose driver keeps no per-process utilisation,
// have their held time recorded as "SM use unknown" (sm_unknown_gpu_hours), never as idle.
import {MIG_NO_PROCESS_UTILIZATION} from "./mig.js";
import {NA, isAbsent} from "./format.js";

export function smUnknownText(reason) {
  return reason === "mig" ? MIG_NO_PROCESS_UTILIZATION : "the driver reported no per-process utilisation";
}

// A cell for an SM-derived figure of a usage row: as `format` gives it when all of the row's
// SM use is known; N/A with the reason when none is; else the figure of the known part, marked,
// with how much is unknown and why as its tooltip.
export function smDerivedCell(row, value, format) {
  const unknown = row.sm_unknown_gpu_hours ?? 0;
  if (!(unknown > 0)) return format(value);
  const why = smUnknownText(row.sm_unknown_reason);
  if (isAbsent(value)) return {text: NA, title: why, class: "na"};
  return {
    text: `${format(value)} *`,
    title: `over the known part only: ${unknown.toFixed(2)} of ${row.gpu_hours.toFixed(2)} GPU-hours unknown (${why})`,
    class: "partial",
  };
}
