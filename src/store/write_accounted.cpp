// Accounting records of exited processes into the ledger (store/accounted.h says how).
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

// Held for its whole life; busy for the lifetime mean of it.
constexpr const char* kInsertRow = R"sql(
INSERT INTO ledger (host_id, pid, start_time_us, device_id, gpu_index, first_seen_us,
                    last_seen_us, gpu_seconds, sm_busy_seconds, peak_memory_bytes, final,
                    figures_source, accounting_gpu_percent, accounting_memory_percent,
                    accounting_max_memory_bytes, accounting_time_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?3, ?6, ?7 / 1000.0, COALESCE(?8, 0) / 100.0 * ?7 / 1000.0,
        COALESCE(?10, 0), 1, 'accounting', ?8, ?9, ?10, ?7))sql";

std::optional<std::int64_t> as_int64(const std::optional<std::uint64_t>& value) {
  if (!value) return std::nullopt;
  return static_cast<std::int64_t>(*value);
}

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

std::expected<void, Error> insert_row(sqlite::Connection& connection, std::int64_t host_id,
                                      std::int64_t device_id, const AccountedProcess& record) {
  auto statement = connection.cached(kInsertRow);
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)
      ->bind_all(host_id, std::int64_t{record.pid}, record.start_time_us, device_id,
                 std::int64_t{record.gpu_index}, record.end_us(),
                 static_cast<std::int64_t>(record.time_ms), record.gpu_percent,
                 record.memory_percent, as_int64(record.max_memory_bytes));
  return (*statement)->run();
}

}  // namespace

std::expected<void, Error> write_accounted(sqlite::Connection& connection, std::int64_t host_id,
                                           const DeviceIds& devices,
                                           std::span<const AccountedProcess> records) {
  for (const AccountedProcess& record : records) {
    const auto device = devices.find(record.gpu_uuid);
    if (device == devices.end()) continue;  // every uuid of the batch has an id
    auto row = find_row(connection, host_id, device->second, record);
    if (!row) return std::unexpected(std::move(row.error()));
    auto written = *row ? add_driver_figures(connection, **row, record)
                        : insert_row(connection, host_id, device->second, record);
    if (!written) return written;
  }
  return {};
}

}  // namespace gpumeter::store
