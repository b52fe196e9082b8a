// SPDX-License-Identifier: MIT
#include "core/recent_use.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace gpumeter {
namespace {

double clamped(std::uint32_t percent) {
  return static_cast<double>(std::min<std::uint32_t>(percent, 100));
}

// The shortest gap between two distinct stamps of the window, else the window.
TimeUs driver_period(const std::vector<PidGpuSample>& samples, TimeUs from_us, TimeUs window_us) {
  std::set<TimeUs> stamps;
  for (const PidGpuSample& s : samples) {
    if (s.sample.time_us > from_us) stamps.insert(s.sample.time_us);
  }
  TimeUs period = window_us;
  for (auto it = stamps.begin(); it != stamps.end() && std::next(it) != stamps.end(); ++it)
    period = std::min(period, *std::next(it) - *it);
  return period;
}

}  // namespace

RecentEngineUse recent_use_of(std::span<const ProcessGpuSample> samples, TimeUs period_us,
                              TimeUs now_us, TimeUs window_us) {
  double sm = 0;
  double memory = 0;
  double encoder = 0;
  double decoder = 0;
  for (const ProcessGpuSample& s : samples) {
    if (s.time_us <= now_us - window_us || s.time_us > now_us) continue;
    sm += clamped(s.sm);
    memory += clamped(s.mem);
    encoder += clamped(s.enc);
    decoder += clamped(s.dec);
  }
  // Each sample stands for one period of the window; a share never passes the whole window.
  const double periods = static_cast<double>(window_us) / static_cast<double>(period_us);
  const auto share = [&](double sum) { return std::min(100.0, sum / periods); };
  return RecentEngineUse{.sm_percent = share(sm),
                         .memory_percent = share(memory),
                         .encoder_percent = share(encoder),
                         .decoder_percent = share(decoder),
                         .window_us = window_us};
}

void attach_recent_use(Device& device, const Maybe<std::vector<PidGpuSample>>& drained,
                       TimeUs now_us, TimeUs window_us) {
  if (!device.processes) return;
  if (!drained) {
    for (GpuProcess& process : *device.processes)
      process.recent_use = std::unexpected(drained.error());
    // A MIG device's processes are the parent's too: the driver keeps no samples for them.
    if (device.mig) {
      for (MigDevice& instance : device.mig->devices) {
        if (!instance.processes) continue;
        for (GpuProcess& process : *instance.processes)
          process.recent_use = std::unexpected(drained.error());
      }
    }
    return;
  }
  std::map<Pid, std::vector<ProcessGpuSample>> by_pid;
  for (const PidGpuSample& s : *drained) by_pid[s.pid].push_back(s.sample);
  const TimeUs period = driver_period(*drained, now_us - window_us, window_us);
  for (GpuProcess& process : *device.processes) {
    const auto found = by_pid.find(process.pid);
    const std::span<const ProcessGpuSample> own =
        found == by_pid.end() ? std::span<const ProcessGpuSample>() : found->second;
    process.recent_use = recent_use_of(own, period, now_us, window_us);
  }
}

}  // namespace gpumeter
