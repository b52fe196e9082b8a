// SPDX-License-Identifier: MIT
// Accounting records of exited processes into the ledger (store/accounted.h says how).
#include "store/sql_integers.h"
#include "store/write_parts.h"

namespace gpumeter::store {
namespace {

// The ledger row of the same process: a start time close to the driver's, or no known start
// time and a first sighting while the process lived. The closest start wins.
constexpr const char* kFindRow = R"sql(
SELECT id FROM ledger
WHERE host_id = ?1 AND device_id = ?2 AND pid = ?3
  AND (ABS(start_time_us - ?4) <= ?6
       OR (start_time_us = 0 AND first_seen_us BETWEEN ?4 - ?6 AND ?5 + ?6))
ORDER BY ABS(start_time_us - ?4), id
LIMIT 1)sql";

constexpr const char* kAddDriverFigures = R"sql(
UPDATE ledger SET
  accounting_gpu_percent = ?2,
  accounting_memory_percent = ?3,
  accounting_max_memory_bytes = ?4,
  accounting_time_ms = ?5,
  peak_memory_bytes = MAX(peak_memory_bytes, COALESCE(?4, 0)),
  final = 1
WHERE id = ?1)sql";

// A row made from the driver's figures says so.
constexpr const char* kMarkFromDriver =
    "UPDATE ledger SET figures_source = 'accounting' WHERE id = ?1";

std::expected<std::optional<std::int64_t>, Error> find_row(sqlite::Connection& connection,
                                                           std::int64_t host_id,
                                                           std::int64_t device_id,
                                                           const AccountedProcess& record) {
  auto statement = connection.cached(kFindRow);
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)
      ->bind_all(host_id, device_id, std::int64_t{record.pid}, record.start_time_us,
                 record.end_us(), kAccountedStartToleranceUs);
  auto row = (*statement)->step();
  if (!row) return std::unexpected(std::move(row.error()));
  if (!*row) return std::optional<std::int64_t>{};
  return std::optional<std::int64_t>((*statement)->int64(0));
}

std::expected<void, Error> add_driver_figures(sqlite::Connection& connection, std::int64_t id,
                                              const AccountedProcess& record) {
  auto statement = connection.cached(kAddDriverFigures);
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)
      ->bind_all(id, record.gpu_percent, record.memory_percent, as_int64(record.max_memory_bytes),
                 static_cast<std::int64_t>(record.time_ms));
  return (*statement)->run();
}

// The process as one interval over its whole life: held throughout, busy for its lifetime mean,
// no energy (the driver does not split it). Written as the sampler's intervals are, so that
// its minutes and hours count in reports.
ProcessInterval whole_life(const AccountedProcess& record) {
  const double seconds = static_cast<double>(record.time_ms) / 1000.0;
  return ProcessInterval{.process = ProcessIdentity{.pid = record.pid,
                                                    .start_time_us = record.start_time_us,
                                                    .gpu_uuid = record.gpu_uuid,
                                                    .gpu_index = record.gpu_index},
                         .begin_us = record.start_time_us,
                         .end_us = record.end_us(),
                         .held_seconds = seconds,
                         .sm_busy_seconds = seconds * record.gpu_percent.value_or(0) / 100.0,
                         .peak_memory_bytes = record.max_memory_bytes.value_or(0),
                         .final = true};
}

std::expected<void, Error> mark_from_driver(sqlite::Connection& connection, std::int64_t id) {
  auto statement = connection.cached(kMarkFromDriver);
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)->bind_all(id);
  return (*statement)->run();
}

// The row of the process, made from the driver's figures when there is none yet.
std::expected<std::int64_t, Error> row_for(sqlite::Connection& connection, std::int64_t host_id,
                                           const DeviceIds& devices, const Horizons& horizons,
                                           std::int64_t device_id, const AccountedProcess& record) {
  auto found = find_row(connection, host_id, device_id, record);
  if (!found) return std::unexpected(std::move(found.error()));
  if (const std::optional<std::int64_t> existing = *found; existing) return *existing;
  const ProcessInterval interval = whole_life(record);
  auto written = write_process_intervals(connection, host_id, devices, horizons,
                                         std::span<const ProcessInterval>(&interval, 1));
  if (!written) return std::unexpected(std::move(written.error()));
  auto made = find_row(connection, host_id, device_id, record);
  if (!made) return std::unexpected(std::move(made.error()));
  const std::optional<std::int64_t> id = *made;
  if (!id) return std::unexpected(Error{ErrorCode::internal, "ledger row not found"});
  if (auto marked = mark_from_driver(connection, *id); !marked)
    return std::unexpected(std::move(marked.error()));
  return *id;
}

}  // namespace

std::expected<void, Error> write_accounted(sqlite::Connection& connection, std::int64_t host_id,
                                           const DeviceIds& devices, const Horizons& horizons,
                                           std::span<const AccountedProcess> records) {
  for (const AccountedProcess& record : records) {
    const auto device = devices.find(record.gpu_uuid);
    if (device == devices.end()) continue;  // every uuid of the batch has an id
    auto row = row_for(connection, host_id, devices, horizons, device->second, record);
    if (!row) return std::unexpected(std::move(row.error()));
    if (auto added = add_driver_figures(connection, *row, record); !added) return added;
  }
  return {};
}

}  // namespace gpumeter::store
