// SPDX-License-Identifier: MIT
#include "recorder/process_figures.h"

#include "core/held_time.h"

namespace gpumeter::recorder {
namespace {

bool left_in(const DeviceSeries& device, const ProcessKey& key, Window window) {
  const auto found = device.memory().find(key);
  if (found == device.memory().end() || found->second.records().empty()) return false;
  const ProcessMemorySample& last = found->second.records().back();
  return last.used_bytes == 0 && last.time_us > window.begin_us && last.time_us <= window.end_us;
}

template <class T>
T or_zero(const Maybe<T>& value) {
  return value ? *value : T{};
}

ProcessFigures figures_of(const Series& series, std::uint32_t index, const DeviceSeries& device,
                          const ProcessGpuShare& share, Window window) {
  ProcessFigures figures{.device = index,
                         .key = share.key,
                         .span = window,
                         .sm_busy_seconds = or_zero(share.sm_busy_seconds),
                         .peak_memory_bytes = or_zero(share.peak_memory_bytes),
                         .energy_joules = or_zero(share.energy_joules),
                         .left = left_in(device, share.key, window)};
  // MIG, or a device without per-process utilisation (a Jetson): the SM use is unknown, not 0.
  if (!share.sm_busy_seconds && (share.sm_busy_seconds.error() == Unavailable::mig ||
                                 share.sm_busy_seconds.error() == Unavailable::not_supported)) {
    figures.sm_unknown = share.sm_busy_seconds.error();
    figures.energy_joules = 0;  // split by SM use, which is unknown
  }
  const HeldTime held = held_time(series, share.key, index, window);
  figures.held_seconds = held.seconds;
  if (held.first_us && held.last_us) figures.span = {*held.first_us, *held.last_us};
  return figures;
}

}  // namespace

std::vector<ProcessFigures> process_figures(const Series& series, Window window) {
  std::vector<ProcessFigures> all;
  for (const auto& [index, device] : series.devices()) {
    // Every process's figures in one pass over the device's samples (core/attribution.h).
    const auto shares = usage_per_process(series, index, window);
    if (!shares) continue;
    for (const ProcessGpuShare& share : *shares) {
      ProcessFigures figures = figures_of(series, index, device, share, window);
      if (figures.held_seconds > 0 || figures.sm_busy_seconds > 0 || figures.left) {
        all.push_back(figures);
      }
    }
  }
  return all;
}

}  // namespace gpumeter::recorder
