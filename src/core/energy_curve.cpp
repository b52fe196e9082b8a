// SPDX-License-Identifier: MIT
// The device's energy counter read at any time: between two readings, the counter's rise is
// spread over time in the shape of the driver's power samples where they cover the stretch,
// else evenly (constant power). docs/attribution.md, "Energy".
#include <algorithm>
#include <optional>

#include "core/attribution_parts.h"

namespace gpumeter {
namespace {

std::size_t previous_with_energy(const RingBuffer<DeviceRecord>& samples, std::size_t after) {
  while (after > 0 && !samples[after - 1].energy_joules()) --after;
  return after;  // index + 1 of the reading, 0 when none
}

std::size_t next_with_energy(const RingBuffer<DeviceRecord>& samples, std::size_t from) {
  while (from < samples.size() && !samples[from].energy_joules()) ++from;
  return from;  // samples.size() when none
}

// Why there is no reading around t: the device's own reason when it never gave one.
Unavailable why_no_energy(const RingBuffer<DeviceRecord>& samples) {
  if (samples.empty()) return Unavailable::no_data;
  if (next_with_energy(samples, 0) < samples.size()) return Unavailable::no_data;
  return samples.back().energy_joules().error();
}

// A power sample stands for the period before it, (t - P, t], P being the power period.
// Drivers stamp their samples with jitter (an H200 with driver 580.159.04: gaps of 15.7 to
// 24.4 ms around 20 ms, docs/hardware.md), and may skip one; so a gap up to this many periods
// still joins two samples: the later one then stands for the whole gap. A longer gap is a hole
// (samples lost, or not drained yet).
constexpr double kJoiningGap = 3.0;

// The start of the stretch the i-th power sample stands for.
TimeUs stretch_begin(const RingBuffer<PowerSample>& power, std::size_t i, TimeUs period_us) {
  const TimeUs own = power[i].time_us - period_us;
  if (i == 0) return own;
  const TimeUs previous = power[i - 1].time_us;
  const bool joined = static_cast<double>(power[i].time_us - previous) <=
                      kJoiningGap * static_cast<double>(period_us);
  return joined ? previous : own;
}

// How power is taken to have moved within the stretch of one power sample. GPU power moves in
// steps with the load (a kernel starts, a task ends), and a driver's power sample is the mean
// over its period: so where that mean lies strictly between the levels of the stretches on
// either side, the stretch is taken as the earlier level up to one step and the later level
// after it, the step placed where the mean comes out right. A step at a task's edge inside a
// period then lands on the right side of the edge, where an even spread put part of it on the
// wrong one. Elsewhere (steady power, a burst within one period, no neighbour joined to it) the
// power is the mean throughout. Either way the stretch's energy is its mean × its length.
struct StretchShape {
  TimeUs begin_us;
  TimeUs step_us;  // end_us when the power is the mean throughout
  TimeUs end_us;
  double before_w;
  double after_w;

  // The energy the shape draws over (from, to] within the stretch, in watt-µs.
  double energy(TimeUs from, TimeUs to) const {
    const auto overlap = [&](TimeUs lo, TimeUs hi) {
      return static_cast<double>(std::max<TimeUs>(std::min(to, hi) - std::max(from, lo), 0));
    };
    return before_w * overlap(begin_us, step_us) + after_w * overlap(step_us, end_us);
  }
};

StretchShape stretch_shape(const RingBuffer<PowerSample>& power, std::size_t i, TimeUs period_us) {
  const TimeUs begin = stretch_begin(power, i, period_us);
  const TimeUs end = power[i].time_us;
  const double mean = power[i].watts;
  const StretchShape flat{begin, end, end, mean, mean};
  const bool joined_before = i > 0 && power[i - 1].time_us == begin;
  const bool joined_after = i + 1 < power.size() && stretch_begin(power, i + 1, period_us) == end;
  if (!joined_before || !joined_after) return flat;
  const double before = power[i - 1].watts;
  const double after = power[i + 1].watts;
  if (!(std::min(before, after) < mean && mean < std::max(before, after))) return flat;
  // mean × (end − begin) = before × (step − begin) + after × (end − step)
  const double before_part = (after - mean) / (after - before);
  const auto step = begin + static_cast<TimeUs>(static_cast<double>(end - begin) * before_part);
  return {begin, step, end, before, after};
}

// The share of the counter's rise over (a, b] that falls in (a, t]: ∫_a^t p / ∫_a^b p over the
// power samples' stretches. Absent when they leave part of (a, b] uncovered, or their
// integral is not positive (a board that reports 0 W).
std::optional<double> power_share(const DeviceSeries& device, TimeUs a, TimeUs t, TimeUs b) {
  const RingBuffer<PowerSample>& power = device.power();
  const std::optional<TimeUs> period = device.power_period_us();
  if (!period) return std::nullopt;
  double to_t = 0.0;
  double to_b = 0.0;
  TimeUs covered = a;  // (a, covered] is covered so far
  for (std::size_t i = power.upper_bound(a); i < power.size() && covered < b; ++i) {
    const StretchShape shape = stretch_shape(power, i, *period);
    const TimeUs begin = std::max(shape.begin_us, a);
    if (begin > covered) return std::nullopt;
    to_b += shape.energy(begin, b);
    to_t += shape.energy(begin, t);
    covered = shape.end_us;
  }
  if (covered < b || to_b <= 0.0) return std::nullopt;
  return to_t / to_b;
}

}  // namespace

Maybe<double> energy_at(const DeviceSeries& device, TimeUs t) {
  const RingBuffer<DeviceRecord>& samples = device.samples();
  const std::size_t after = samples.upper_bound(t);
  const std::size_t before = previous_with_energy(samples, after);
  if (before > 0 && samples[before - 1].time_us == t) return samples[before - 1].energy_joules();
  const std::size_t next = next_with_energy(samples, after);
  if (before == 0 || next == samples.size()) return std::unexpected(why_no_energy(samples));
  const DeviceRecord& a = samples[before - 1];
  const DeviceRecord& b = samples[next];
  const double even =
      static_cast<double>(t - a.time_us) / static_cast<double>(b.time_us - a.time_us);
  const double share = power_share(device, a.time_us, t, b.time_us).value_or(even);
  return *a.energy_joules() + share * (*b.energy_joules() - *a.energy_joules());
}

}  // namespace gpumeter
