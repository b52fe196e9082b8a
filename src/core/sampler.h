// SPDX-License-Identifier: MIT
// The sampler: one thread that polls the GPU source and the host on a schedule, keeps the
// series (core/series.h) and publishes an immutable Snapshot after each round. Consumers
// (the task server, the HTTP server, the CLI's one-shot commands) read snapshots and ask for
// usage over windows; none of them calls a source, so a thousand readers cost no NVML call.
//
// Every member function may be called from any thread. Sources are only ever called from
// one thread at a time (the round's, or key_for's), so they need not be thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/attribution.h"
#include "core/collect.h"
#include "core/error.h"
#include "core/model.h"
#include "core/process_key.h"
#include "core/series.h"
#include "core/source.h"
#include "core/vgpu_series.h"

namespace gpumeter {

// The shortest interval the background thread samples at; shorter ones are raised to it.
inline constexpr std::chrono::milliseconds kMinSamplerInterval{100};

struct SamplerConfig {
  std::chrono::milliseconds interval{1000};  // device, process and host sampling; >= 100 ms
  // The horizons (all samples, and samples as read), the driver periods and the host bucket.
  // Its interval_us is replaced by `interval`, so that the buffers are sized for the rate
  // samples really arrive at.
  SeriesConfig series;
  CollectOptions collect;  // hostname and source label of snapshots
  // Called with each snapshot a round publishes, in the round's thread, after the round has
  // stored its samples and outside the sampler's locks (it may call any member function but
  // sample_once). Each round's snapshot reaches it, even when no consumer reads snapshot() in
  // time: the history recorder keeps every round's device readings this way. Keep it short:
  // the next round waits for it.
  std::function<void(const Snapshot&)> on_snapshot;
  // Each published snapshot carries, from the series the round just stored, every process's
  // recent engine use (GpuProcess::recent_use) and recent CPU use and resident memory
  // (HostProcess): no driver call of its own. The daemon and `top` ask for it.
  bool recent_figures = false;
};

// How calls to one kind of source have fared, for self-metrics. A failure is an answer that
// is neither a value nor an expected absence (an unsupported field, a lost GPU, an exited
// process, a hidden one).
struct SourceHealth {
  std::uint64_t calls = 0;
  std::uint64_t failures = 0;
  std::optional<TimeUs> last_success_us;  // round time of the last call that succeeded
  std::optional<TimeUs> last_failure_us;  // round time of the last failure
  std::string last_error;                 // one line about the last failure; empty before
};

struct SamplerStats {
  std::uint64_t rounds = 0;                          // rounds run (sample_once calls)
  std::optional<TimeUs> last_round_us;               // the time the last round sampled at
  std::chrono::microseconds last_round_duration{0};  // how long it took (steady clock)
  std::uint64_t skipped_ticks = 0;                   // scheduled rounds skipped because one overran
  SourceHealth gpu_read;                             // GpuSource::read: the whole GPU source
  SourceHealth utilization_drain;  // GpuSource::drain_process_utilization, per GPU
  SourceHealth host;               // ProcessSource::describe and usage, per process
  std::uint64_t pid_reuses = 0;    // pids seen again with a new start time
  // Series::allocated_bytes() plus VgpuSeries::allocated_bytes() after the last round.
  std::size_t series_bytes = 0;
};

class Sampler {
 public:
  // The sources must outlive the sampler.
  Sampler(GpuSource& gpus, ProcessSource& host, SamplerConfig config);
  ~Sampler();  // stops the thread
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // One round now, in the caller's thread (the CLI's one-shot commands and tests, which
  // step a simulated clock between rounds). `now_us` is the time the round's samples are
  // stamped with, µs since the Unix epoch (NVML's clock); rounds should move forward in time.
  // A round: one collect() and the snapshot it publishes; per GPU the device sample, the
  // drained per-process utilisation, the process list's GPU memory (0 once for a process
  // that left it); host samples for every process seen on a GPU and every watched one;
  // samples older than the fine horizon folded into coarse buckets, and those older than the
  // horizon dropped. A failing GPU or process only loses its own
  // samples (see stats()).
  // Errors: the GPU source could not be read at all (the watched processes' host samples
  // are still taken, and the previous snapshot stays published).
  std::expected<void, Error> sample_once(TimeUs now_us);

  // What the background thread does between two rounds, every drain_every(): drains the
  // per-process utilisation of the GPUs the last round could drain, so that each of the
  // driver's answers (a process's mean since the last call) covers about one driver period
  // (docs/attribution.md, "What the sampler records"). drain_every() is zero when the rounds
  // come at least once per driver period: then only rounds drain. Errors are recorded in
  // stats().utilization_drain, as a round's are.
  void drain_between_rounds(TimeUs now_us);
  std::chrono::microseconds drain_every() const;

  // Starts / stops the background thread that calls sample_once every interval, on a steady
  // schedule (a round that overruns skips the ticks it missed). stop() returns promptly,
  // after the round in progress, if any. Both are idempotent.
  void start();
  void stop();

  // The latest published snapshot; null before the first successful round.
  std::shared_ptr<const Snapshot> snapshot() const;

  // Blocks until a round stamped at or after `time_us` has stored its samples (even one in
  // which the GPU source failed), or `timeout` passes; true in the first case. A task server
  // answers "what did the task use" once the samples reach the task's end.
  bool wait_for_round(TimeUs time_us, std::chrono::milliseconds timeout) const;

  // The round time from which per-process utilisation and energy up to `time_us` are
  // complete: `time_us` plus the longest driver sample period of any GPU (1 s until one is
  // measured). The driver stamps a sample at the end of its period, so a round at `time_us`
  // itself may still miss the period that covers it; wait_for_round(complete_after(t1), ...)
  // before answering for a window that ends at t1. Once a round after `time_us` has read a
  // GPU's energy counter, and that GPU's power samples do not yet reach the reading, also
  // the reading plus the power sample period: the energy between the readings around
  // `time_us` takes its shape from them (docs/attribution.md). So the answer can grow by up
  // to one interval when asked again after the next round.
  TimeUs complete_after(TimeUs time_us) const;

  // The key of a live process (pid plus start time), from the host source; the start time
  // remembered from earlier rounds, else 0, when the host cannot tell it now. Absent when
  // the process does not exist.
  std::optional<ProcessKey> key_for(Pid pid) const;

  // The GPU memory the process holds now, by DeviceIdentity::index, read from the driver's
  // process lists at once (GpuSource::process_memory) on the GPUs the newest round listed it
  // on: for a task's edges, without waiting for a round or for the sampler's locks. A GPU it
  // was not listed on is not read (and not in the map): reading every GPU's lists at every
  // edge would cost a CPU-only worker on an 8-GPU machine 48 driver calls a request. Any
  // thread.
  Maybe<GpuMemoryHeld> gpu_memory_now(Pid pid) const;

  // Keeps host samples (CPU time, RSS) for a process that has no GPU context yet, e.g. one
  // with an open task; unwatch when its last task ends. A watched key whose pid now belongs
  // to another process (a new start time) gets no samples.
  void watch(const ProcessKey& key);
  void unwatch(const ProcessKey& key);

  // What the processes used in the window (see core/attribution.h).
  std::expected<Usage, Error> usage(std::span<const ProcessKey> keys, Window window) const;

  // Counters and the last error of each kind of source, as of the last round.
  SamplerStats stats() const;

  // Calls `reader` with the series while holding the sampler's lock on them (rounds wait
  // meanwhile, so keep it short): for exporters, benchmarks and tests.
  void inspect(const std::function<void(const Series&)>& reader) const;

  // The same for the series of vGPU instances (core/vgpu_series.h), one record per instance
  // and round, kept for the horizon.
  void inspect_vgpu(const std::function<void(const VgpuSeries&)>& reader) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpumeter
