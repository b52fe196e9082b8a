// SPDX-License-Identifier: MIT
#include "exposition/process_activity.h"

#include <algorithm>
#include <optional>

#include "core/attribution.h"

namespace gpumeter::exposition {
namespace {

// The part of [begin_us, end_us] between the first and the last round, within or just before
// it, that drained the device's per-process samples: attribution counts a period without a
// sample as idle only there.
std::optional<Window> drained_part(const DeviceSeries& device, TimeUs begin_us, TimeUs end_us) {
  const RingBuffer<DeviceRecord>& samples = device.samples();
  std::optional<TimeUs> first;
  std::optional<TimeUs> last;
  for (std::size_t i = samples.size(); i-- > 0;) {
    if (!samples[i].processes_drained()) continue;
    if (!last) last = samples[i].time_us;
    first = samples[i].time_us;
    if (samples[i].time_us <= begin_us) break;
  }
  if (!first || !last) return std::nullopt;
  const Window part{std::max(begin_us, *first), std::min(end_us, *last)};
  if (part.end_us <= part.begin_us) return std::nullopt;
  return part;
}

}  // namespace

ProcessActivity recent_activity(const Series& series, TimeUs end_us) {
  ProcessActivity activity;
  for (const auto& [index, device] : series.devices()) {
    // The driver stamps a period's samples at its end: the one in progress at end_us is not
    // read yet, so the window stops one period earlier rather than count that period as idle.
    const TimeUs complete_us = end_us - device.sample_period_us();
    const auto window = drained_part(device, complete_us - kActivityWindowUs, complete_us);
    if (!window) continue;
    const auto shares = usage_per_process(series, index, *window);
    if (!shares) continue;
    const double window_s = static_cast<double>(window->length_us()) / 1e6;
    auto& on_gpu = activity[index];
    for (const ProcessGpuShare& share : *shares) {
      if (share.sm_busy_seconds) on_gpu[share.key.pid] += *share.sm_busy_seconds / window_s;
    }
  }
  return activity;
}

ProcessActivity recent_activity(const Sampler& sampler, TimeUs end_us) {
  ProcessActivity activity;
  sampler.inspect([&](const Series& series) { activity = recent_activity(series, end_us); });
  return activity;
}

}  // namespace gpumeter::exposition
