// SPDX-License-Identifier: MIT
// A task's host figures from what was read at its edges (task.h's TaskEdge): exact where the
// sampler's once-a-round readings can only interpolate. docs/attribution.md ("A task's
// edges") describes the rules.
#pragma once

#include "task/task.h"

namespace gpumeter::task {

// Refines `figures` (computed from the series over the task's window) with the task's edges:
// - CPU seconds: from the client's own reports when both edges have one (source "client",
//   exact to the µs), else from the procfs readings at both edges ("procfs", exact to the
//   clock tick, 10 ms), else left as the series gave them ("series");
// - resident memory at start and at end: the procfs readings;
// - peak resident memory: the highest high-water mark read while the task was open, when the
//   mark was reset at its begin ("high_water_mark", exact to the page), else the series'
//   estimate ("series").
// - GPU memory at start and at end on each GPU of the figures: the process lists read at the
//   edges where both edges read that GPU's (gpu_memory_at_edges), else the series'; the peak
//   is at least both.
// `complete` becomes true when both CPU edges were read.
void apply_edges(const Task& task, TaskFigures& figures);

}  // namespace gpumeter::task
