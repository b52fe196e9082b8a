// SPDX-License-Identifier: MIT
#include "store/write.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "store/buckets.h"
#include "store/gauges.h"
#include "store/meta.h"
#include "store/sql_integers.h"
#include "store/sqlite.h"
#include "store/write_parts.h"

namespace gpumeter::store {
namespace {

// A GPU as the batch names it: its description, if any record gave one, and the span of times.
struct SeenDevice {
  DeviceRecord record;
  TimeUs first_us = 0;
  TimeUs last_us = 0;
};

using SeenDevices = std::map<std::string, SeenDevice, std::less<>>;

SeenDevice& note(SeenDevices& seen, const std::string& uuid, std::uint32_t index, TimeUs time_us) {
  auto [entry, inserted] = seen.try_emplace(
      uuid, SeenDevice{DeviceRecord{.uuid = uuid, .index = index}, time_us, time_us});
  SeenDevice& device = entry->second;
  if (!inserted) {
    if (time_us >= device.last_us) device.record.index = index;
    device.first_us = std::min(device.first_us, time_us);
    device.last_us = std::max(device.last_us, time_us);
  }
  return device;
}

template <class T>
void keep(std::optional<T>& into, const std::optional<T>& value) {
  if (value) into = value;
}

SeenDevices seen_devices(const Batch& batch) {
  SeenDevices seen;
  for (const DeviceRecord& record : batch.devices) {
    DeviceRecord& known = note(seen, record.uuid, record.index, record.seen_us).record;
    keep(known.name, record.name);
    keep(known.serial, record.serial);
    keep(known.pci_bus_id, record.pci_bus_id);
    keep(known.memory_total_bytes, record.memory_total_bytes);
    keep(known.power_limit_watts, record.power_limit_watts);
  }
  for (const DeviceSampleRecord& sample : batch.device_samples)
    note(seen, sample.uuid, sample.index, sample.time_us);
  for (const ProcessInterval& interval : batch.process_intervals) {
    note(seen, interval.process.gpu_uuid, interval.process.gpu_index, interval.begin_us);
    note(seen, interval.process.gpu_uuid, interval.process.gpu_index, interval.end_us);
  }
  for (const AccountedProcess& record : batch.accounted)
    note(seen, record.gpu_uuid, record.gpu_index, record.end_us());
  for (const VgpuUseRecord& use : batch.vgpu_use) {
    note(seen, use.gpu_uuid, use.gpu_index, use.begin_us);
    note(seen, use.gpu_uuid, use.gpu_index, use.end_us);
  }
  for (const MigMemoryRecord& mig : batch.mig_memory)
    note(seen, mig.gpu_uuid, mig.gpu_index, mig.time_us);
  return seen;
}

constexpr const char* kUpsertDevice = R"sql(
INSERT INTO devices (host_id, uuid, device_index, name, serial, pci_bus_id, memory_total_bytes,
                     power_limit_watts, first_seen_us, last_seen_us)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
ON CONFLICT (host_id, uuid) DO UPDATE SET
  device_index = CASE WHEN excluded.last_seen_us >= last_seen_us
                      THEN excluded.device_index ELSE device_index END,
  name = COALESCE(excluded.name, name),
  serial = COALESCE(excluded.serial, serial),
  pci_bus_id = COALESCE(excluded.pci_bus_id, pci_bus_id),
  memory_total_bytes = COALESCE(excluded.memory_total_bytes, memory_total_bytes),
  power_limit_watts = COALESCE(excluded.power_limit_watts, power_limit_watts),
  first_seen_us = MIN(first_seen_us, excluded.first_seen_us),
  last_seen_us = MAX(last_seen_us, excluded.last_seen_us)
RETURNING id)sql";

std::expected<DeviceIds, Error> write_devices(sqlite::Connection& connection, std::int64_t host_id,
                                              const SeenDevices& seen) {
  DeviceIds ids;
  for (const auto& [uuid, device] : seen) {
    auto statement = connection.cached(kUpsertDevice);
    if (!statement) return std::unexpected(std::move(statement.error()));
    const DeviceRecord& record = device.record;
    (*statement)
        ->bind_all(host_id, std::string_view(uuid), std::int64_t{record.index}, record.name,
                   record.serial, record.pci_bus_id, as_int64(record.memory_total_bytes),
                   record.power_limit_watts, device.first_us, device.last_us);
    auto row = (*statement)->step();
    if (!row) return std::unexpected(std::move(row.error()));
    ids.emplace(uuid, (*statement)->int64(0));
  }
  return ids;
}

// Parameters: time, device, one per gauge in kGauges' order, then the energy counter.
std::string insert_sample_sql() {
  std::string parameters = "?1, ?2";
  for (std::size_t i = 0; i <= kGauges.size(); ++i) parameters += fmt::format(", ?{}", i + 3);
  return fmt::format(
      "INSERT OR REPLACE INTO device_samples (time_us, device_id, {}, {}) VALUES ({})",
      gauge_columns(""), kEnergyColumn, parameters);
}

std::expected<void, Error> insert_sample(sqlite::Connection& connection, std::int64_t device_id,
                                         const DeviceSampleRecord& sample) {
  static const std::string kSql = insert_sample_sql();
  auto statement = connection.cached(kSql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)->bind_all(sample.time_us, device_id);
  int parameter = 3;
  for (const Gauge& gauge : kGauges) (*statement)->bind(parameter++, sample.*gauge.member);
  (*statement)->bind(parameter, sample.energy_joules);
  return (*statement)->run();
}

// A sample for a minute that maintenance has already aggregated sends the aggregation of the
// tiers back to that minute.
std::expected<void, Error> reopen_aggregates(sqlite::Connection& connection, TimeUs oldest_us) {
  if (auto lowered =
          meta::lower(connection, meta::kDeviceMinutesUntil, bucket_start(oldest_us, kMinuteUs));
      !lowered) {
    return lowered;
  }
  return meta::lower(connection, meta::kDeviceHoursUntil, bucket_start(oldest_us, kHourUs));
}

std::expected<void, Error> write_samples(sqlite::Connection& connection, const DeviceIds& ids,
                                         const Horizons& horizons, const Batch& batch,
                                         WriteReport& report) {
  TimeUs oldest = std::numeric_limits<TimeUs>::max();
  for (const DeviceSampleRecord& sample : batch.device_samples) {
    if (horizons.device_samples && sample.time_us < *horizons.device_samples) {
      ++report.late_device_samples;
      continue;
    }
    if (auto inserted = insert_sample(connection, ids.find(sample.uuid)->second, sample);
        !inserted) {
      return inserted;
    }
    oldest = std::min(oldest, sample.time_us);
    ++report.device_samples;
  }
  if (report.device_samples == 0) return {};
  return reopen_aggregates(connection, oldest);
}

std::expected<void, Error> validate_batch(const Batch& batch) {
  const auto check = [](const auto& records) -> std::expected<void, Error> {
    for (const auto& record : records) {
      if (auto valid = validate(record); !valid) return valid;
    }
    return {};
  };
  if (auto valid = check(batch.devices); !valid) return valid;
  if (auto valid = check(batch.device_samples); !valid) return valid;
  if (auto valid = check(batch.process_intervals); !valid) return valid;
  if (auto valid = check(batch.accounted); !valid) return valid;
  if (auto valid = check(batch.vgpu_use); !valid) return valid;
  if (auto valid = check(batch.mig_memory); !valid) return valid;
  return check(batch.tasks);
}

std::expected<Horizons, Error> read_horizons(sqlite::Connection& connection) {
  auto samples = meta::read(connection, meta::kDeviceSamplesPrunedBefore);
  auto minutes = meta::read(connection, meta::kProcessMinutesPrunedBefore);
  auto hours = meta::read(connection, meta::kProcessHoursPrunedBefore);
  if (!samples || !minutes || !hours) return std::unexpected(connection.error("reading meta"));
  return Horizons{*samples, *minutes, *hours};
}

std::expected<WriteReport, Error> write_all(Store& store, const Batch& batch) {
  sqlite::Connection& connection = store.connection();
  WriteReport report;
  auto horizons = read_horizons(connection);
  if (!horizons) return std::unexpected(std::move(horizons.error()));
  auto ids = write_devices(connection, store.host_id(), seen_devices(batch));
  if (!ids) return std::unexpected(std::move(ids.error()));
  if (auto written = write_samples(connection, *ids, *horizons, batch, report); !written)
    return std::unexpected(std::move(written.error()));
  auto intervals = write_process_intervals(connection, store.host_id(), *ids, *horizons,
                                           batch.process_intervals);
  if (!intervals) return std::unexpected(std::move(intervals.error()));
  report.process_intervals = *intervals;
  if (auto written = write_accounted(connection, store.host_id(), *ids, *horizons, batch.accounted);
      !written)
    return std::unexpected(std::move(written.error()));
  if (auto written = write_tasks(connection, store.host_id(), batch.tasks); !written)
    return std::unexpected(std::move(written.error()));
  report.tasks = batch.tasks.size();
  if (auto written = write_vgpu_use(connection, *ids, batch.vgpu_use); !written)
    return std::unexpected(std::move(written.error()));
  if (!batch.mig_memory.empty()) {
    auto minutes = meta::read(connection, meta::kMigMemoryMinutesPrunedBefore);
    auto hours = meta::read(connection, meta::kMigMemoryHoursPrunedBefore);
    if (!minutes || !hours) return std::unexpected(connection.error("reading meta"));
    if (auto written = write_mig_memory(connection, *ids, {*minutes, *hours}, batch.mig_memory);
        !written)
      return std::unexpected(std::move(written.error()));
  }
  if (batch.recorded_until_us) {
    if (auto raised = meta::raise(connection, meta::recorded_until_key(store.host_id()),
                                  *batch.recorded_until_us);
        !raised) {
      return std::unexpected(std::move(raised.error()));
    }
  }
  return report;
}

}  // namespace

std::expected<WriteReport, Error> write(Store& store, const Batch& batch) {
  if (auto valid = validate_batch(batch); !valid) return std::unexpected(std::move(valid.error()));
  auto transaction = sqlite::Transaction::begin(store.connection());
  if (!transaction) return std::unexpected(std::move(transaction.error()));
  auto report = write_all(store, batch);
  if (!report) return report;
  if (auto committed = transaction->commit(); !committed)
    return std::unexpected(std::move(committed.error()));
  return report;
}

}  // namespace gpumeter::store
