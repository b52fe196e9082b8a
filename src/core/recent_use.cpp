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

// Each process `device` lists, its recent use from the device's series (raw per-process
// records), as attach_recent_figures() says.
void attach_series_use(Device& device, const DeviceSeries& series,
                       const std::map<Pid, Maybe<HostProcess>>& hosts, TimeUs now) {
  if (!device.processes) return;
  const RingBuffer<DeviceRecord>& rounds = series.samples();
  if (!rounds.empty() && !rounds.back().processes_drained()) {
    for (GpuProcess& process : *device.processes)
      process.recent_use = std::unexpected(rounds.back().not_drained_reason());
    return;
  }
  // The series cover the time since the sampler's first round (a period before it: that
  // round's drain), which may be shorter than the window just after start.
  const TimeUs period = series.sample_period_us();
  const TimeUs window_us = rounds.empty() ? kRecentUseWindowUs
                                          : std::clamp(now - (rounds.front().time_us - period),
                                                       period, kRecentUseWindowUs);
  std::vector<ProcessGpuSample> samples;
  for (GpuProcess& process : *device.processes) {
    const auto host = hosts.find(process.pid);
    const TimeUs started =
        host != hosts.end() && host->second ? host->second->start_time_us.value_or(0) : 0;
    samples.clear();
    if (const auto found = series.utilization().find(ProcessKey{process.pid, started});
        found != series.utilization().end()) {
      const FineGpuRecords& fine = found->second.fine();
      for (std::size_t i = fine.upper_bound(now - window_us); i < fine.size(); ++i) {
        const ProcessGpuRecord record = fine[i];
        samples.push_back(ProcessGpuSample{.time_us = record.time_us,
                                           .sm = record[Engine::sm],
                                           .mem = record[Engine::memory],
                                           .enc = record[Engine::encoder],
                                           .dec = record[Engine::decoder]});
      }
    }
    process.recent_use = recent_use_of(samples, period, now, window_us);
  }
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

void attach_recent_host_use(HostProcess& process, const HostSeries& series, TimeUs window_us) {
  const auto records = series.records();
  const std::optional<TimeUs> last = series.last_read_us();
  if (records.empty() || !last) return;
  if (const auto rss = records.back().rss_bytes()) process.rss_bytes = *rss;
  // The figures at last - window: the newest record at or before it.
  const std::size_t after = records.upper_bound(*last - window_us);
  if (after == 0) return;  // not read that long yet
  const HostRecord& before = records[after - 1];
  const HostRecord& newest = records.back();
  if (*last <= before.time_us) return;
  const double cpu_us = static_cast<double>((newest.cpu_user_us + newest.cpu_system_us) -
                                            (before.cpu_user_us + before.cpu_system_us));
  process.cpu_percent = 100.0 * cpu_us / static_cast<double>(*last - before.time_us);
}

void attach_recent_figures(Snapshot& snapshot, const Series& series) {
  for (Device& device : snapshot.gpus.devices) {
    if (const DeviceSeries* own = series.device(device.identity.index))
      attach_series_use(device, *own, snapshot.processes, snapshot.time_us);
  }
  for (auto& [pid, host] : snapshot.processes) {
    if (!host) continue;
    const ProcessKey key{pid, host->start_time_us.value_or(0)};
    if (const HostSeries* found = series.host(key)) attach_recent_host_use(*host, *found);
  }
}

}  // namespace gpumeter
