// SPDX-License-Identifier: MIT
// What each process did on each GPU within one record window, from the sampler's series: the
// figures of one store::ProcessInterval before it is told who the process is. Pure arithmetic
// over core's attribution (docs/attribution.md); no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/attribution.h"
#include "core/process_key.h"
#include "core/series.h"

namespace gpumeter::recorder {

struct ProcessFigures {
  std::uint32_t device = 0;  // DeviceIdentity::index
  ProcessKey key;
  // The part of the window the process was on the GPU: from its first to its last instant of
  // holding memory there, or the whole window when it held none (a busy process whose memory
  // the driver does not report).
  Window span;
  double held_seconds = 0;              // core/held_time.h
  double sm_busy_seconds = 0;           // Σ SM percent / 100 × seconds
  std::uint64_t peak_memory_bytes = 0;  // the most it held in the window
  double energy_joules = 0;             // its share of the GPU's energy in the window
  // Set (to mig) when the driver gives no per-process utilisation for the GPU (MIG mode): the
  // SM busy seconds and the energy share above are then unknown, not 0.
  std::optional<Unavailable> sm_unknown;
  // It left the GPU's process list within the window (its last stored amount is 0, stored in
  // (begin, end]): it may have exited.
  bool left = false;
};

// One entry per process and GPU that held memory or used the SMs in `window`, by device, then
// key. A figure that cannot be computed (no energy counter, a window not covered by drained
// samples) counts as 0, except on a GPU in MIG mode, whose SM figures are marked unknown
// (sm_unknown). Precondition: window.end_us > window.begin_us.
std::vector<ProcessFigures> process_figures(const Series& series, Window window);

}  // namespace gpumeter::recorder
