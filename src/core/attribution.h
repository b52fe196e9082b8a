// SPDX-License-Identifier: MIT
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

// Use of one engine by the set of processes. busy_seconds is an estimate that lies between
// busy_seconds_lower and busy_seconds_upper, which hold the truth whatever the driver's samples
// hid inside their periods (up to the driver's rounding of each sample to a whole percent:
// ±0.5 % of each sample's period). The *_percent figures are the busy-seconds over the window's
// length. docs/attribution.md describes the estimate and the bounds.
struct EngineUse {
  Maybe<double> busy_seconds;     // Σ percent/100 × seconds: 1.0 is one second fully busy
  Maybe<double> average_percent;  // busy_seconds over the window's length, 0..100 per process
  // The highest percent of the set in any one driver sample period that overlaps the window:
  // the sum over the set's processes of their samples for that period (0..100 per process).
  // 0 when the set was idle throughout. Where the window reaches into the coarse tier, a
  // bucket counts as one period with, for SM, the sum of its records' highest raw percents (an
  // upper estimate) and, for the other engines, of their bucket averages (a lower one).
  Maybe<double> peak_percent;
  // The least and the most busy time the samples allow inside the window: a sample whose
  // period crosses an edge puts as much of its busy time outside the window as fits there
  // (lower) or as much inside as fits there (upper).
  Maybe<double> busy_seconds_lower;
  Maybe<double> busy_seconds_upper;
  Maybe<double> average_percent_lower;  // busy_seconds_lower over the window's length
  Maybe<double> average_percent_upper;
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

// Above this width of the SM bounds, in percentage points of the window's average, the figures
// are of low confidence (docs/attribution.md explains the choice).
inline constexpr double kLowConfidenceBoundsWidthPp = 15.0;

// How far to trust the figures of one device.
struct Confidence {
  TimeUs sample_period_us = 0;  // the driver's sample period the figures were computed with
  // Fraction of the window, 0..1, during which the sampler was draining per-process samples.
  double coverage = 0.0;
  // The window is shorter than one driver sample period. Informative only: how far such a
  // window's figures can be off is what sm_bounds_width_pp says.
  bool shorter_than_sample_period = false;
  // The coarse tier's bucket when the window begins before the fine horizon, where the series
  // keep per-process utilisation only as bucket averages (window edges there are at bucket
  // resolution); 0 otherwise.
  TimeUs coarse_bucket_us = 0;
  // Such a window is also shorter than one bucket: its use cannot be told from the rest of
  // its bucket's.
  bool shorter_than_coarse_bucket = false;
  // The SM's average_percent_upper minus average_percent_lower, percentage points: how far the
  // SM figures can be off because the driver reports whole periods. Absent with the SM figures.
  Maybe<double> sm_bounds_width_pp = std::unexpected(Unavailable::no_data);

  bool low() const noexcept {
    return sm_bounds_width_pp.value_or(0.0) > kLowConfidenceBoundsWidthPp ||
           shorter_than_coarse_bucket || coverage < 1.0;
  }
};

// Whose use a GpuUsage's engine figures and energy share are.
enum class AttributionLevel : std::uint8_t {
  process,  // the set's own, from the driver's per-process samples
  // The whole device's, from its own utilisation: the device keeps no per-process utilisation
  // (a Jetson's integrated GPU, a driver without per-process samples). The set's own only
  // while it was the device's only user (docs/attribution.md, "Device-level figures").
  device,
};

// What the set of processes used on one GPU.
struct GpuUsage {
  std::uint32_t device = 0;  // DeviceIdentity::index
  AttributionLevel level = AttributionLevel::process;
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
  // Each device any process of the set has GPU samples on, by index; and each device with
  // device-level figures only whose series hold no process's GPU memory (its process lists
  // could not be read: nvmap needs root on a Jetson), since the set may have used it.
  std::vector<GpuUsage> gpus;
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
// as usage() would give it for that process alone with EdgeRule::proportional (so that the
// figures of adjacent windows add up; up to floating-point rounding), computed in
// one pass over the device's samples: usage() once per process would pass over every process's
// samples each time. For recorders that want every process's figures. By key; empty when the
// series hold nothing of that device.
// Errors: invalid_input when the window is empty (end_us <= begin_us).
std::expected<std::vector<ProcessGpuShare>, Error> usage_per_process(const Series& series,
                                                                     std::uint32_t device,
                                                                     Window window);

// How usage() estimates the busy time of a sample whose period crosses a window edge.
enum class EdgeRule : std::uint8_t {
  // All of it counts inside the window where the process showed no use in the neighbouring
  // period beyond the edge (the window's markers tell when its work began or ended); elsewhere
  // as `proportional`. Not additive: two adjacent windows may both claim a straddling sample's
  // busy time (each within its bounds).
  markers,
  // The part inside in proportion to its length, as if use were uniform within the period.
  // Additive: adjacent windows share a straddling sample's busy time exactly.
  proportional,
};

// What `processes` used, together, during `window`. Figures that cannot be computed are absent
// with a reason: no_data when no sample covers them, not_supported when the device does not
// offer the value (e.g. no energy counter), error when the energy counter went backwards
// (driver reload). Processes are matched by their exact key. The energy split always follows
// the proportional rule, so that its parts add up to the device's energy.
// Errors: invalid_input when the window is empty (end_us <= begin_us).
std::expected<Usage, Error> usage(const Series& series, std::span<const ProcessKey> processes,
                                  Window window, EdgeRule rule = EdgeRule::markers);

}  // namespace gpumeter
