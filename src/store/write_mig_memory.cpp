// SPDX-License-Identifier: MIT
// MIG devices' memory into mig_memory_minutes and mig_memory_hours: each reading counted in the
// minute and the hour it falls in (min and max kept, the sum for the mean), so that both tiers
// are exact aggregates of every reading without a downsampling pass. Each GPM figure the same
// way, counted apart: a reading without it adds nothing to its count, min, sum or max.
#include <fmt/format.h>

#include "store/buckets.h"
#include "store/write_parts.h"

namespace gpumeter::store {
namespace {

// The GPM figures are parameters ?9 to ?16, in kGpmMetrics order.
constexpr int kFirstGpmParameter = 9;

// The GPM columns to insert, their values from a first reading, and how a further reading
// updates them. SQLite's MIN and MAX of several arguments are NULL when one is NULL, hence the
// COALESCE: a figure absent on one side keeps the other side's.
struct GpmSql {
  std::string columns;
  std::string values;
  std::string updates;
};

GpmSql gpm_sql() {
  GpmSql sql;
  int parameter = kFirstGpmParameter;
  for (const DeviceMetric metric : kGpmMetrics) {
    const std::string_view key = spec(metric).key;
    sql.columns += fmt::format(", {0}_samples, {0}_min, {0}_sum, {0}_max", key);
    sql.values += fmt::format(", ?{0} IS NOT NULL, ?{0}, ?{0}, ?{0}", parameter++);
    sql.updates += fmt::format(
        ", {0}_samples = {0}_samples + excluded.{0}_samples, "
        "{0}_min = COALESCE(MIN({0}_min, excluded.{0}_min), {0}_min, excluded.{0}_min), "
        "{0}_sum = COALESCE({0}_sum + excluded.{0}_sum, {0}_sum, excluded.{0}_sum), "
        "{0}_max = COALESCE(MAX({0}_max, excluded.{0}_max), {0}_max, excluded.{0}_max)",
        key);
  }
  return sql;
}

std::string upsert_sql(std::string_view table) {
  const GpmSql gpm = gpm_sql();
  return fmt::format(
      "INSERT INTO {} (bucket_us, device_id, mig_uuid, gpu_instance_id, compute_instance_id, "
      "profile, samples, memory_used_bytes_min, memory_used_bytes_sum, memory_used_bytes_max, "
      "memory_total_bytes{}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7, ?7, ?7, ?8{}) "
      "ON CONFLICT (bucket_us, device_id, mig_uuid) DO UPDATE SET "
      "gpu_instance_id = excluded.gpu_instance_id, "
      "compute_instance_id = excluded.compute_instance_id, "
      "profile = COALESCE(excluded.profile, profile), samples = samples + 1, "
      "memory_used_bytes_min = MIN(memory_used_bytes_min, excluded.memory_used_bytes_min), "
      "memory_used_bytes_sum = memory_used_bytes_sum + excluded.memory_used_bytes_sum, "
      "memory_used_bytes_max = MAX(memory_used_bytes_max, excluded.memory_used_bytes_max), "
      "memory_total_bytes = COALESCE(excluded.memory_total_bytes, memory_total_bytes){}",
      table, gpm.columns, gpm.values, gpm.updates);
}

std::expected<void, Error> write_tier(sqlite::Connection& connection, std::string_view table,
                                      TimeUs bucket_us, std::optional<TimeUs> horizon,
                                      std::int64_t device_id, const MigMemoryRecord& record) {
  const TimeUs bucket = bucket_start(record.time_us, bucket_us);
  if (horizon && bucket < *horizon) return {};  // already pruned: not stored again
  auto statement = connection.cached(upsert_sql(table));
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)
      ->bind_all(bucket, device_id, std::string_view(record.mig_uuid),
                 std::int64_t{record.gpu_instance_id}, std::int64_t{record.compute_instance_id},
                 record.profile, record.memory_used_bytes, record.memory_total_bytes);
  for (std::size_t i = 0; i < record.gpm.size(); ++i)
    (*statement)->bind(kFirstGpmParameter + static_cast<int>(i), record.gpm[i]);
  return (*statement)->run();
}

}  // namespace

std::expected<void, Error> write_mig_memory(sqlite::Connection& connection,
                                            const DeviceIds& devices,
                                            const MigMemoryHorizons& horizons,
                                            std::span<const MigMemoryRecord> records) {
  for (const MigMemoryRecord& record : records) {
    const auto device = devices.find(record.gpu_uuid);
    if (device == devices.end()) continue;  // every uuid of the batch has an id
    if (auto done = write_tier(connection, "mig_memory_minutes", kMinuteUs, horizons.minutes,
                               device->second, record);
        !done) {
      return done;
    }
    if (auto done = write_tier(connection, "mig_memory_hours", kHourUs, horizons.hours,
                               device->second, record);
        !done) {
      return done;
    }
  }
  return {};
}

}  // namespace gpumeter::store
