// SPDX-License-Identifier: MIT
#include "core/collect.h"

#include <optional>
#include <utility>

#include "core/recent_use.h"

namespace gpumeter {
namespace {

Snapshot stamped(GpuReading reading, const CollectOptions& options, TimeUs now_us) {
  Snapshot snapshot;
  snapshot.time_us = now_us;
  snapshot.hostname = options.hostname;
  snapshot.source = options.source_label;
  snapshot.gpus = std::move(reading);
  return snapshot;
}

}  // namespace

std::expected<Snapshot, Error> collect(GpuSource& gpus, ProcessSource& host,
                                       const CollectOptions& options, TimeUs now_us) {
  host.begin_round();
  auto reading = gpus.read();
  if (!reading) return std::unexpected(std::move(reading.error()));
  Snapshot snapshot = stamped(std::move(*reading), options, now_us);
  if (options.recent_use) {
    for (Device& device : snapshot.gpus.devices) {
      if (device.lost || !device.processes || device.processes->empty()) continue;
      attach_recent_use(device, gpus.drain_process_utilization(device.identity.index, std::nullopt),
                        now_us);
    }
  }
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.processes) continue;
    for (const GpuProcess& process : *device.processes) {
      if (!snapshot.processes.contains(process.pid)) {
        snapshot.processes.emplace(process.pid, host.describe(process.pid));
      }
    }
  }
  return snapshot;
}

std::expected<Snapshot, Error> collect_inventory(GpuSource& gpus, const CollectOptions& options,
                                                 TimeUs now_us) {
  auto reading = gpus.read_inventory();
  if (!reading) return std::unexpected(std::move(reading.error()));
  return stamped(std::move(*reading), options, now_us);
}

}  // namespace gpumeter
