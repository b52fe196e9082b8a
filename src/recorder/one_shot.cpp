// SPDX-License-Identifier: MIT
#include "recorder/one_shot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ranges>

#include "core/attribution.h"
#include "core/series.h"
#include "recorder/identities.h"

namespace gpumeter::recorder {
namespace {

struct Listed {
  ProcessKey key;
  std::uint64_t memory_bytes = 0;
  TimeUs held_from_us = 0;
  double held_seconds = 0;
  double sm_busy_seconds = 0;
};

// The processes on the GPU now, each held from the previous record or its start.
std::vector<Listed> listed_on(const Device& device, const Snapshot& snapshot, TimeUs since) {
  std::vector<Listed> listed;
  if (!device.processes) return listed;
  for (const GpuProcess& process : *device.processes) {
    TimeUs start = 0;
    if (const auto host = snapshot.processes.find(process.pid);
        host != snapshot.processes.end() && host->second && host->second->start_time_us) {
      start = *host->second->start_time_us;
    }
    const TimeUs from = std::clamp(start, since, snapshot.time_us);
    listed.push_back({.key = {process.pid, start},
                      .memory_bytes = value_of(process.used_memory_bytes).value_or(0),
                      .held_from_us = from,
                      .held_seconds = static_cast<double>(snapshot.time_us - from) / 1e6});
  }
  return listed;
}

// SM busy-seconds of each listed process from the drained samples: exact over the span they
// cover completely (from the oldest sample's period, or the previous record if later, to the
// newest sample's stamp: the driver stamps a period at its end); extended at the covered
// average over the rest of the held time. The span ends at the newest stamp, not at the
// snapshot's time: the drain follows the snapshot, on a loaded machine by more than a period.
void add_sm(std::vector<Listed>& listed, std::uint32_t index,
            const std::vector<PidGpuSample>& drained, TimeUs since) {
  if (drained.empty()) return;  // nothing was busy since then (as far as the buffer reaches)
  Series series;
  std::vector<KeyedGpuSample> keyed;
  for (const PidGpuSample& sample : drained) {
    const auto process =
        std::ranges::find(listed, sample.pid, [](const Listed& l) { return l.key.pid; });
    if (process != listed.end()) keyed.push_back({process->key, sample.sample});
  }
  series.add_process_gpu_samples(index, keyed);
  if (series.device(index) == nullptr) return;
  const TimeUs period = series.device(index)->sample_period_us();
  const auto [oldest, newest] = std::ranges::minmax(
      drained | std::views::transform([](const PidGpuSample& s) { return s.sample.time_us; }));
  const TimeUs covered_until = newest;
  const TimeUs covered_from = std::max(oldest - period, since);
  if (covered_until <= covered_from) return;
  // Attribution trusts "no sample means idle" only between drained device samples.
  series.add_device_sample(index, {.time_us = covered_from, .processes_drained = true});
  series.add_device_sample(index, {.time_us = covered_until, .processes_drained = true});
  for (Listed& process : listed) {
    const std::array keys{process.key};
    const auto used = usage(series, keys, {covered_from, covered_until});
    if (!used || used->gpus.empty()) continue;
    const double covered_busy = value_of(used->gpus.front()[Engine::sm].busy_seconds).value_or(0);
    const double covered_held =
        static_cast<double>(covered_until - std::max(covered_from, process.held_from_us)) / 1e6;
    if (covered_held > 0)
      process.sm_busy_seconds = covered_busy * process.held_seconds / covered_held;
  }
}

void add_intervals(OneShotRecords& records, const Device& device, const Snapshot& snapshot,
                   std::vector<Listed>& listed, TimeUs since, std::optional<double> energy,
                   std::optional<Unavailable> sm_unknown) {
  const double length_s = static_cast<double>(snapshot.time_us - since) / 1e6;
  double busy_total = 0;
  for (const Listed& process : listed) busy_total += process.sm_busy_seconds;
  Identities identities;
  identities.note(snapshot);
  for (const Listed& process : listed) {
    auto identity = identities.identity(process.key, device.identity.index);
    if (!identity) continue;
    // Energy is shared by SM use: unknown with it on a GPU in MIG mode.
    const double share = energy && *energy > 0 && !sm_unknown
                             ? *energy * process.sm_busy_seconds / std::max(length_s, busy_total)
                             : 0.0;
    records.intervals.push_back({.process = *identity,
                                 .begin_us = process.held_from_us,
                                 .end_us = snapshot.time_us,
                                 .held_seconds = process.held_seconds,
                                 .sm_busy_seconds = process.sm_busy_seconds,
                                 .peak_memory_bytes = process.memory_bytes,
                                 .energy_joules = share,
                                 .sm_unknown = sm_unknown});
    const double percent = length_s > 0 ? 100.0 * process.sm_busy_seconds / length_s : 0.0;
    records.csv.push_back({.timestamp_us = since,
                           .user = csv_user(identity->user, identity->uid),
                           .pid = identity->pid,
                           .gpu = identity->gpu_index,
                           .usage_percent = sm_unknown ? std::nullopt
                                                       : std::optional(static_cast<int>(std::clamp(
                                                             std::lround(percent), 0L, 100L)))});
  }
}

std::optional<double> energy_since(const Device& device, const PreviousRecord& previous) {
  const auto now = value_of(device.state[DeviceMetric::energy]);
  if (!now || !device.identity.uuid) return std::nullopt;
  const auto then = previous.energy_joules.find(*device.identity.uuid);
  if (then == previous.energy_joules.end() || *now < then->second) return std::nullopt;
  return *now - then->second;
}

}  // namespace

OneShotRecords one_shot_records(const OneShotReading& reading,
                                const std::optional<PreviousRecord>& previous) {
  OneShotRecords records;
  const Snapshot& snapshot = reading.snapshot;
  const TimeUs now = snapshot.time_us;
  const bool attribute =
      previous && previous->time_us < now && now - previous->time_us <= kLongestOneShotIntervalUs;
  for (const Device& device : snapshot.gpus.devices) {
    if (auto record = store::device_record(device, now)) records.devices.push_back(*record);
    if (auto sample = store::device_sample_record(device, now)) records.samples.push_back(*sample);
    if (!attribute || device.lost) continue;
    const TimeUs since = previous->time_us;
    std::vector<Listed> listed = listed_on(device, snapshot, since);
    const auto drained = reading.drains.find(device.identity.index);
    if (drained != reading.drains.end() && drained->second)
      add_sm(listed, device.identity.index, *drained->second, since);
    // MIG, or a device without per-process utilisation (a Jetson): SM use unknown, not 0.
    std::optional<Unavailable> sm_unknown;
    if (drained != reading.drains.end() && !drained->second &&
        (drained->second.error() == Unavailable::mig ||
         drained->second.error() == Unavailable::not_supported)) {
      sm_unknown = drained->second.error();
    }
    add_intervals(records, device, snapshot, listed, since, energy_since(device, *previous),
                  sm_unknown);
  }
  return records;
}

}  // namespace gpumeter::recorder
