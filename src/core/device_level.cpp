// SPDX-License-Identifier: MIT
// Device-level figures: what a set used on a device that keeps no per-process utilisation (a
// Jetson's integrated GPU, a driver without per-process samples), from the device's own
// utilisation over the window (docs/attribution.md, "Device-level figures").
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/attribution_parts.h"

namespace gpumeter {
namespace {

// One reading's stretch: the reading at end_us stands for the device's use over
// (begin_us, end_us], the time since the reading before it.
struct Stretch {
  TimeUs begin_us = 0;
  TimeUs end_us = 0;
  double percent = 0.0;
};

using Reading = Maybe<double> (DeviceRecord::*)() const noexcept;

// The stretches of the readings that have the figure around the window, oldest first: those
// that overlap it and one more on each side (the edge rule looks at the neighbours). A task's
// window holds a few readings of an hour's ring; only those are visited.
std::vector<Stretch> stretches_of(const RingBuffer<DeviceRecord>& samples, Reading reading,
                                  Window window) {
  const std::size_t first = samples.upper_bound(window.begin_us);
  const std::size_t begin = first > 2 ? first - 2 : 0;
  const std::size_t end = std::min(samples.size(), samples.lower_bound(window.end_us) + 2);
  std::vector<Stretch> stretches;
  std::optional<TimeUs> previous;
  for (std::size_t i = begin; i < end; ++i) {
    const Maybe<double> value = (samples[i].*reading)();
    if (!value) {
      previous.reset();  // a gap: the next reading does not speak for it
      continue;
    }
    if (previous)
      stretches.push_back({*previous, samples[i].time_us, std::clamp(*value, 0.0, 100.0)});
    previous = samples[i].time_us;
  }
  return stretches;
}

bool idle(const std::vector<Stretch>& stretches, std::size_t i) {
  return i < stretches.size() && stretches[i].percent <= 0.0;
}

// Sums the busy time of the stretches that overlap the window, in seconds, with the bounds and
// the estimate of docs/attribution.md's "Window edges", the device standing for the set.
struct DeviceBusy {
  double lower_s = 0.0;
  double estimate_s = 0.0;
  double upper_s = 0.0;
  double peak_percent = 0.0;
  TimeUs covered_us = 0;
  TimeUs longest_us = 0;  // the longest stretch: the figures' resolution in time
};

DeviceBusy busy_of(const std::vector<Stretch>& stretches, Window window, EdgeRule rule) {
  DeviceBusy busy;
  for (std::size_t i = 0; i < stretches.size(); ++i) {
    const Stretch& s = stretches[i];
    const TimeUs inside_us =
        std::min(s.end_us, window.end_us) - std::max(s.begin_us, window.begin_us);
    if (inside_us <= 0) continue;
    const double length_s = static_cast<double>(s.end_us - s.begin_us) / kUsPerSecond;
    const double inside_s = static_cast<double>(inside_us) / kUsPerSecond;
    const double outside_s = length_s - inside_s;
    const double busy_s = s.percent / 100.0 * length_s;
    busy.covered_us += inside_us;
    busy.longest_us = std::max(busy.longest_us, s.end_us - s.begin_us);
    busy.peak_percent = std::max(busy.peak_percent, s.percent);
    busy.lower_s += std::max(0.0, busy_s - outside_s);
    busy.upper_s += std::min(busy_s, inside_s);
    // The estimate spreads the busy time evenly over the part inside and the parts outside
    // that it may have used: with the markers rule, a side beyond an edge where the device was
    // idle in the next stretch is left out (all of it belongs inside, as far as it fits).
    const bool markers = rule == EdgeRule::markers;
    const bool idle_before =
        markers && i > 0 && idle(stretches, i - 1) && stretches[i - 1].end_us == s.begin_us;
    const bool idle_after =
        markers && idle(stretches, i + 1) && stretches[i + 1].begin_us == s.end_us;
    const TimeUs kept_us = (idle_before ? 0 : std::max<TimeUs>(0, window.begin_us - s.begin_us)) +
                           (idle_after ? 0 : std::max<TimeUs>(0, s.end_us - window.end_us));
    const double kept_s = static_cast<double>(kept_us) / kUsPerSecond;
    busy.estimate_s += std::min(inside_s, busy_s * inside_s / (inside_s + kept_s));
  }
  return busy;
}

EngineUse engine_use(const RingBuffer<DeviceRecord>& samples, Reading reading, Window window,
                     EdgeRule rule, DeviceBusy* out = nullptr) {
  const std::vector<Stretch> stretches = stretches_of(samples, reading, window);
  const DeviceBusy busy = busy_of(stretches, window, rule);
  if (out != nullptr) *out = busy;
  if (busy.covered_us == 0) {
    // No reading speaks for the window: why the device has none, else no data.
    Unavailable reason = Unavailable::no_data;
    const std::size_t i = samples.lower_bound(window.begin_us);
    if (i < samples.size() && !(samples[i].*reading)()) reason = (samples[i].*reading)().error();
    const auto absent = std::unexpected(reason);
    return {absent, absent, absent, absent, absent, absent, absent};
  }
  const double window_s = static_cast<double>(window.length_us()) / kUsPerSecond;
  return {.busy_seconds = busy.estimate_s,
          .average_percent = 100.0 * busy.estimate_s / window_s,
          .peak_percent = busy.peak_percent,
          .busy_seconds_lower = busy.lower_s,
          .busy_seconds_upper = busy.upper_s,
          .average_percent_lower = 100.0 * busy.lower_s / window_s,
          .average_percent_upper = 100.0 * busy.upper_s / window_s};
}

// The SM stretches as segments of the set, so that the energy split (energy_split.cpp) puts the
// energy of the busy stretches to the set and the rest to idle.
std::vector<Segment> segments_of(const RingBuffer<DeviceRecord>& samples, Window window) {
  std::vector<Segment> segments;
  for (const Stretch& s : stretches_of(samples, &DeviceRecord::utilization_gpu_percent, window)) {
    const TimeUs begin = std::max(s.begin_us, window.begin_us);
    const TimeUs end = std::min(s.end_us, window.end_us);
    if (begin >= end) continue;
    Segment segment{.begin_us = begin, .end_us = end, .in_set = true};
    // At least 1 % while busy at all: a load under half a percent is still use, not idle.
    const double percent = s.percent > 0.0 ? std::max(1.0, std::round(s.percent)) : 0.0;
    segment.record.percent[static_cast<std::size_t>(Engine::sm)] =
        static_cast<std::uint8_t>(percent);
    segments.push_back(segment);
  }
  return segments;
}

}  // namespace

bool device_level(const DeviceSeries& device, Window window) {
  const RingBuffer<DeviceRecord>& samples = device.samples();
  // A window newer than every reading (asked before the next round): as the newest says.
  if (!samples.empty() && samples.back().time_us < window.begin_us) {
    return !samples.back().processes_drained() &&
           samples.back().not_drained_reason() == Unavailable::not_supported;
  }
  return undrained_reason(samples, window) == Unavailable::not_supported;
}

GpuUsage device_level_usage(const DeviceSeries& device, std::uint32_t index, KeySet keys,
                            Window window, EdgeRule rule) {
  GpuUsage usage{.device = index, .level = AttributionLevel::device};
  const RingBuffer<DeviceRecord>& samples = device.samples();
  const auto unsupported = std::unexpected(Unavailable::not_supported);
  for (EngineUse& engine : usage.engines) {
    engine = {unsupported, unsupported, unsupported, unsupported,
              unsupported, unsupported, unsupported};
  }
  DeviceBusy sm_busy;
  usage.engines[static_cast<std::size_t>(Engine::sm)] =
      engine_use(samples, &DeviceRecord::utilization_gpu_percent, window, rule, &sm_busy);
  usage.engines[static_cast<std::size_t>(Engine::memory)] =
      engine_use(samples, &DeviceRecord::utilization_memory_percent, window, rule);
  // The figures' period is the time between the device's readings (the sampler's interval).
  usage.confidence = {
      .sample_period_us = sm_busy.longest_us,
      .coverage = static_cast<double>(sm_busy.covered_us) / static_cast<double>(window.length_us()),
      .shorter_than_sample_period = window.length_us() < sm_busy.longest_us};
  const EngineUse& sm = usage[Engine::sm];
  usage.confidence.sm_bounds_width_pp =
      sm.average_percent_lower
          ? Maybe<double>(*sm.average_percent_upper - *sm.average_percent_lower)
          : std::unexpected(sm.average_percent_lower.error());
  usage.memory = memory_of(device, keys, window);
  usage.energy = split_energy(device, segments_of(samples, window), window, Maybe<void>());
  // The board cannot tell other processes' use from the set's.
  if (usage.energy.other_processes_joules) usage.energy.other_processes_joules = unsupported;
  return usage;
}

}  // namespace gpumeter
