// SPDX-License-Identifier: MIT
// The parts of write(): one function per kind of record, each run inside the batch's
// transaction. Internal to src/store.
#pragma once

#include <cstdint>
#include <expected>
#include <map>
#include <span>
#include <string>

#include "core/error.h"
#include "store/accounted.h"
#include "store/mig_memory.h"
#include "store/records.h"
#include "store/sqlite.h"
#include "store/task_record.h"
#include "store/vgpu_use.h"

namespace gpumeter::store {

// Device row ids by uuid, for every GPU the batch names.
using DeviceIds = std::map<std::string, std::int64_t, std::less<>>;

// The retention horizons as of this transaction: records older than a table's horizon are
// not stored in that table.
struct Horizons {
  std::optional<TimeUs> device_samples;
  std::optional<TimeUs> process_minutes;
  std::optional<TimeUs> process_hours;
};

std::expected<std::size_t, Error> write_process_intervals(
    sqlite::Connection& connection, std::int64_t host_id, const DeviceIds& devices,
    const Horizons& horizons, std::span<const ProcessInterval> intervals);

// Accounting records of exited processes (store/accounted.h); after the process intervals,
// so that rows the sampler made in the same batch are found.
std::expected<void, Error> write_accounted(sqlite::Connection& connection, std::int64_t host_id,
                                           const DeviceIds& devices, const Horizons& horizons,
                                           std::span<const AccountedProcess> records);

std::expected<void, Error> write_tasks(sqlite::Connection& connection, std::int64_t host_id,
                                       std::span<const TaskRecord> tasks);

// vGPU use, each record added to its VM's row of the minute it begins in.
std::expected<void, Error> write_vgpu_use(sqlite::Connection& connection, const DeviceIds& devices,
                                          std::span<const VgpuUseRecord> records);

// The MIG memory tiers' retention horizons as of this transaction.
struct MigMemoryHorizons {
  std::optional<TimeUs> minutes;
  std::optional<TimeUs> hours;
};

// MIG devices' memory readings, each counted in its minute and its hour.
std::expected<void, Error> write_mig_memory(sqlite::Connection& connection,
                                            const DeviceIds& devices,
                                            const MigMemoryHorizons& horizons,
                                            std::span<const MigMemoryRecord> records);

}  // namespace gpumeter::store
