// SPDX-License-Identifier: MIT
// What the processes of a `gpumeter run` used on the GPUs: the core sampler, running while the
// command runs, told of each process of the tree as it is found, and asked at the end for
// the usage of all of them over the run's window (core/attribution.h).
#pragma once

#include <chrono>
#include <expected>
#include <memory>
#include <set>

#include "cli/session.h"
#include "core/attribution.h"
#include "core/sampler.h"

namespace gpumeter::cli {

// How long samples are kept: the GPU figures of a longer run cover its last week only (their
// coverage says so). At a 1 s interval, samples cost about 3.5 MB per GPU and 1.5 MB per
// process busy on a GPU per day (docs/attribution.md has the record sizes).
inline constexpr std::chrono::hours kRunHorizon{24 * 7};

class GpuMeasure {
 public:
  // The session must outlive the measure.
  GpuMeasure(Session& session, std::chrono::milliseconds interval);
  GpuMeasure(const GpuMeasure&) = delete;
  GpuMeasure& operator=(const GpuMeasure&) = delete;
  ~GpuMeasure();

  // Starts sampling, and returns once the first round is in (or after a few intervals), so
  // that the run's window opens after a reading of every device.
  void start();

  // Counts a process of the tree from now on, and whatever the driver still reports for it.
  void follow(Pid pid);

  // After the window's end: waits for the round that completes it (the driver reports each
  // sample period at its end), stops sampling, and tells what the followed processes used.
  // Errors: as Sampler::usage (an empty window).
  std::expected<Usage, Error> finish(Window window);

  // The latest snapshot (device names and uuids); null before a round succeeded.
  std::shared_ptr<const Snapshot> snapshot() const { return sampler_.snapshot(); }

 private:
  Sampler sampler_;
  std::chrono::milliseconds interval_;
  std::set<ProcessKey> keys_;
};

}  // namespace gpumeter::cli
