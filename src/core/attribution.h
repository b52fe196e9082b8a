// Attribution: how much GPU, GPU memory, energy, CPU and host memory a set of processes used in
// a window of time, computed from the series (core/series.h). Pure arithmetic, no I/O. The
// model, its approximations and its limits are described in docs/attribution.md.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <span>
#include <vector>

#include "core/error.h"
#include "core/process_key.h"
#include "core/samples.h"
#include "core/series.h"

namespace gpumeter {

// [begin_us, end_us], µs since the Unix epoch.
struct Window {
  TimeUs begin_us = 0;
  TimeUs end_us = 0;
  TimeUs length_us() const noexcept { return end_us - begin_us; }
};

// Use of one engine by the set of processes.
struct EngineUse {
  Maybe<double> busy_seconds;     // Σ percent/100 × seconds: 1.0 is one second fully busy
  Maybe<double> average_percent;  // busy_seconds over the window's length, 0..100 per process
  // The highest percent of the set in any one driver sample period that overlaps the window:
  // the sum over the set's processes of their samples for that period (0..100 per process).
  // 0 when the set was idle throughout. Where the window reaches into the coarse tier, a
  // bucket counts as one period with, for SM, the sum of its records' highest raw percents (an
  // upper estimate) and, for the other engines, of their bucket averages (a lower one).
  Maybe<double> peak_percent;
};

// GPU memory the set holds on one device, in bytes. A caching allocator keeps freed blocks,
// so these are resident amounts, not an amount "used by the task" (docs/attribution.md).
struct GpuMemoryUse {
  Maybe<std::uint64_t> at_start_bytes;
  Maybe<std::uint64_t> at_end_bytes;
  Maybe<std::uint64_t> peak_bytes;  // the highest sampled total within the window
};

// The device's energy over the window, in joules, split by share of SM use:
// processes + other_processes + idle == device (up to floating-point rounding).
struct EnergyUse {
  Maybe<double> device_joules;           // the energy counter's rise over the window
  Maybe<double> processes_joules;        // the set's share
  Maybe<double> other_processes_joules;  // every other process's share
  Maybe<double> idle_joules;             // while no process used the SMs
};

// How far to trust the figures of one device.
struct Confidence {
  TimeUs sample_period_us = 0;  // the driver's sample period the figures were computed with
  // Fraction of the window, 0..1, during which the sampler was draining per-process samples.
  double coverage = 0.0;
  // The window is shorter than one driver sample period: the driver reports each period's
  // average, so use inside the window cannot be told from use just outside it.
  bool shorter_than_sample_period = false;
  // The coarse tier's bucket when the window begins before the fine horizon, where the series
  // keep per-process utilisation only as bucket averages (window edges there are at bucket
  // resolution); 0 otherwise.
  TimeUs coarse_bucket_us = 0;
  // Such a window is also shorter than one bucket: its use cannot be told from the rest of
  // its bucket's.
  bool shorter_than_coarse_bucket = false;

  bool low() const noexcept {
    return shorter_than_sample_period || shorter_than_coarse_bucket || coverage < 1.0;
  }
};

// What the set of processes used on one GPU.
struct GpuUsage {
  std::uint32_t device = 0;                     // DeviceIdentity::index
  std::array<EngineUse, kEngineCount> engines;  // indexed by Engine
  GpuMemoryUse memory;
  EnergyUse energy;
  Confidence confidence;

  const EngineUse& operator[](Engine engine) const noexcept {
    return engines[static_cast<std::size_t>(engine)];
  }
};

// What the set of processes used on the host.
struct HostUsage {
  Maybe<double> cpu_user_seconds;
  Maybe<double> cpu_system_seconds;
  Maybe<std::uint64_t> peak_rss_bytes;  // of the set's summed resident memory
  // Every process had host samples at or around both edges of the window; when false the
  // figures are lower bounds.
  bool complete = false;
};

struct Usage {
  Window window;
  std::vector<GpuUsage> gpus;  // each device any process of the set has GPU samples on, by index
  HostUsage host;
};

// What one process used on one GPU, as usage() gives it for a set of that process alone.
struct ProcessGpuShare {
  ProcessKey key;
  Maybe<double> sm_busy_seconds;           // EngineUse::busy_seconds of the SM
  Maybe<std::uint64_t> peak_memory_bytes;  // GpuMemoryUse::peak_bytes
  Maybe<double> energy_joules;             // EnergyUse::processes_joules
};

// The figures of every process the series of GPU `device` know (busy or holding memory), each
// as usage() would give it for that process alone (up to floating-point rounding), computed in
// one pass over the device's samples: usage() once per process would pass over every process's
// samples each time. For recorders that want every process's figures. By key; empty when the
// series hold nothing of that device.
// Errors: invalid_input when the window is empty (end_us <= begin_us).
std::expected<std::vector<ProcessGpuShare>, Error> usage_per_process(const Series& series,
                                                                     std::uint32_t device,
                                                                     Window window);

// What `processes` used, together, during `window`. Figures that cannot be computed are absent
// with a reason: no_data when no sample covers them, not_supported when the device does not
// offer the value (e.g. no energy counter), error when the energy counter went backwards
// (driver reload). Processes are matched by their exact key.
// Errors: invalid_input when the window is empty (end_us <= begin_us).
std::expected<Usage, Error> usage(const Series& series, std::span<const ProcessKey> processes,
                                  Window window);

}  // namespace gpumeter
