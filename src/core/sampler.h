// The sampler: one thread that polls the GPU source and the host on a schedule, keeps the
// series (core/series.h) and publishes an immutable Snapshot after each round. Consumers
// (the task server, the HTTP server, the CLI's one-shot commands) read snapshots and ask for
// usage over windows; none of them calls a source, so a thousand readers cost no NVML call.
#pragma once

#include <chrono>
#include <expected>
#include <memory>
#include <optional>
#include <span>

#include "core/attribution.h"
#include "core/collect.h"
#include "core/error.h"
#include "core/model.h"
#include "core/process_key.h"
#include "core/series.h"
#include "core/source.h"

namespace gpumeter {

struct SamplerConfig {
  std::chrono::milliseconds interval{1000};  // device, process and host sampling; >= 100 ms
  SeriesConfig series;                       // horizon kept at full resolution
  CollectOptions collect;                    // hostname and source label of snapshots
};

class Sampler {
 public:
  // The sources must outlive the sampler.
  Sampler(GpuSource& gpus, ProcessSource& host, SamplerConfig config);
  ~Sampler();  // stops the thread
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // One round now, in the caller's thread (the CLI's one-shot commands and tests, which
  // step a simulated clock between rounds). Errors: the GPU source could not be read.
  std::expected<void, Error> sample_once(TimeUs now_us);

  // Starts / stops the background thread that calls sample_once every interval.
  void start();
  void stop();

  // The latest published snapshot; null before the first round.
  std::shared_ptr<const Snapshot> snapshot() const;

  // The key of a live process (pid plus start time), from the host source.
  std::optional<ProcessKey> key_for(Pid pid) const;

  // Keeps host samples (CPU time, RSS) for a process that has no GPU context yet, e.g. one
  // with an open task; unwatch when its last task ends.
  void watch(const ProcessKey& key);
  void unwatch(const ProcessKey& key);

  // What the processes used in the window (see core/attribution.h).
  std::expected<Usage, Error> usage(std::span<const ProcessKey> keys, Window window) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpumeter
