// SPDX-License-Identifier: MIT
// Reading GPUs and their series back.
#include <fmt/format.h>

#include "store/gauges.h"
#include "store/history.h"
#include "store/sqlite.h"

namespace gpumeter::store {
namespace {

std::optional<std::uint64_t> as_uint64(const std::optional<std::int64_t>& value) {
  if (!value) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

DeviceRow device_row(const sqlite::Statement& row) {
  DeviceRow device{.host = row.text(0)};
  device.device.uuid = row.text(1);
  device.device.index = static_cast<std::uint32_t>(row.int64(2));
  device.device.name = row.optional_text(3);
  device.device.serial = row.optional_text(4);
  device.device.pci_bus_id = row.optional_text(5);
  device.device.memory_total_bytes = as_uint64(row.optional_int64(6));
  device.device.power_limit_watts = row.optional_real(7);
  device.first_seen_us = row.int64(8);
  device.device.seen_us = row.int64(9);
  return device;
}

std::string series_sql(Resolution resolution) {
  std::string gauges;
  for (const Gauge& gauge : kGauges) {
    gauges += resolution == Resolution::samples
                  ? fmt::format("s.{0}, s.{0}, s.{0}, ", gauge.column())
                  : fmt::format("s.{0}_min, s.{0}_avg, s.{0}_max, ", gauge.column());
  }
  const bool raw = resolution == Resolution::samples;
  const char* table = raw                                 ? "device_samples"
                      : resolution == Resolution::minutes ? "device_minutes"
                                                          : "device_hours";
  const char* time = raw ? "time_us" : "bucket_us";
  return fmt::format(
      "SELECT d.uuid, d.device_index, s.{1}, {2}, {3}{4}, {5} FROM {0} s "
      "JOIN devices d ON d.id = s.device_id "
      "WHERE s.{1} >= ?1 AND s.{1} < ?2 AND d.host_id = ?3 AND (?4 IS NULL OR d.uuid = ?4) "
      "ORDER BY d.device_index, d.uuid, s.{1}",
      table, time, raw ? "1" : "s.samples", gauges, raw ? "s.energy_joules" : "NULL",
      raw ? "NULL" : "s.energy_joules");
}

DeviceSeriesRow series_row(const sqlite::Statement& row) {
  DeviceSeriesRow series{.uuid = row.text(0),
                         .index = static_cast<std::uint32_t>(row.int64(1)),
                         .time_us = row.int64(2),
                         .samples = row.int64(3)};
  int column = 4;
  for (const Gauge& gauge : kGauges) {
    GaugeStats& stats = series.*gauge.stats;
    stats.min = row.optional_real(column++);
    stats.avg = row.optional_real(column++);
    stats.max = row.optional_real(column++);
  }
  series.energy_counter_joules = row.optional_real(column++);
  series.energy_used_joules = row.optional_real(column);
  return series;
}

}  // namespace

std::expected<std::vector<DeviceRow>, Error> devices(Store& store) {
  auto statement = store.connection().prepare(
      "SELECT h.name, d.uuid, d.device_index, d.name, d.serial, d.pci_bus_id, "
      "d.memory_total_bytes, d.power_limit_watts, d.first_seen_us, d.last_seen_us "
      "FROM devices d JOIN hosts h ON h.id = d.host_id ORDER BY h.name, d.device_index, d.uuid");
  if (!statement) return std::unexpected(std::move(statement.error()));
  std::vector<DeviceRow> rows;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return rows;
    rows.push_back(device_row(*statement));
  }
}

std::expected<std::vector<DeviceSeriesRow>, Error> device_series(Store& store,
                                                                 const SeriesQuery& query) {
  auto statement = store.connection().prepare(series_sql(query.resolution));
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(query.since_us, query.until_us, store.host_id(), query.uuid);
  std::vector<DeviceSeriesRow> rows;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return rows;
    rows.push_back(series_row(*statement));
  }
}

}  // namespace gpumeter::store
