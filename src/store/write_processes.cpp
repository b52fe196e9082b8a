// SPDX-License-Identifier: MIT
// The ledger and its per-minute and per-hour detail, from process intervals.
#include <fmt/format.h>

#include <string>

#include "store/buckets.h"
#include "store/sql_integers.h"
#include "store/write_parts.h"

namespace gpumeter::store {
namespace {

constexpr const char* kUpsertLedger = R"sql(
INSERT INTO ledger (host_id, pid, start_time_us, device_id, gpu_index, uid, user, command,
                    container_runtime, container_id, first_seen_us, last_seen_us, gpu_seconds,
                    sm_busy_seconds, peak_memory_bytes, energy_joules, final, sm_unknown_seconds,
                    sm_unknown_reason)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
ON CONFLICT (host_id, pid, start_time_us, device_id) DO UPDATE SET
  gpu_index = excluded.gpu_index,
  uid = COALESCE(excluded.uid, uid),
  user = COALESCE(excluded.user, user),
  command = COALESCE(excluded.command, command),
  container_runtime = COALESCE(excluded.container_runtime, container_runtime),
  container_id = COALESCE(excluded.container_id, container_id),
  first_seen_us = MIN(first_seen_us, excluded.first_seen_us),
  last_seen_us = MAX(last_seen_us, excluded.last_seen_us),
  gpu_seconds = gpu_seconds + excluded.gpu_seconds,
  sm_busy_seconds = sm_busy_seconds + excluded.sm_busy_seconds,
  peak_memory_bytes = MAX(peak_memory_bytes, excluded.peak_memory_bytes),
  energy_joules = energy_joules + excluded.energy_joules,
  final = MAX(final, excluded.final),
  sm_unknown_seconds = sm_unknown_seconds + excluded.sm_unknown_seconds,
  sm_unknown_reason = COALESCE(excluded.sm_unknown_reason, sm_unknown_reason)
RETURNING id)sql";

std::string upsert_detail_sql(std::string_view table) {
  return fmt::format(
      "INSERT INTO {} (bucket_us, process_id, held_seconds, sm_busy_seconds, peak_memory_bytes, "
      "energy_joules, sm_unknown_seconds) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
      "ON CONFLICT (bucket_us, process_id) DO UPDATE SET "
      "held_seconds = held_seconds + excluded.held_seconds, "
      "sm_busy_seconds = sm_busy_seconds + excluded.sm_busy_seconds, "
      "peak_memory_bytes = MAX(peak_memory_bytes, excluded.peak_memory_bytes), "
      "energy_joules = energy_joules + excluded.energy_joules, "
      "sm_unknown_seconds = sm_unknown_seconds + excluded.sm_unknown_seconds",
      table);
}

// The held time of an interval whose SM use is unknown (ProcessInterval::sm_unknown).
double sm_unknown_seconds(const ProcessInterval& interval) {
  return interval.sm_unknown ? interval.held_seconds : 0.0;
}

std::optional<std::string_view> sm_unknown_reason(const ProcessInterval& interval) {
  if (!interval.sm_unknown) return std::nullopt;
  return to_string(*interval.sm_unknown);
}

std::expected<std::int64_t, Error> upsert_ledger(sqlite::Connection& connection,
                                                 std::int64_t host_id, std::int64_t device_id,
                                                 const ProcessInterval& interval) {
  auto statement = connection.cached(kUpsertLedger);
  if (!statement) return std::unexpected(std::move(statement.error()));
  const ProcessIdentity& process = interval.process;
  std::optional<std::string_view> runtime;
  std::optional<std::string_view> container;
  if (process.container) {
    runtime = process.container->runtime;
    container = process.container->id;
  }
  (*statement)
      ->bind_all(host_id, std::int64_t{process.pid}, process.start_time_us, device_id,
                 std::int64_t{process.gpu_index}, as_int64(process.uid), process.user,
                 process.command, runtime, container, interval.begin_us, interval.end_us,
                 interval.held_seconds, interval.sm_busy_seconds,
                 static_cast<std::int64_t>(interval.peak_memory_bytes), interval.energy_joules,
                 std::int64_t{interval.final ? 1 : 0}, sm_unknown_seconds(interval),
                 sm_unknown_reason(interval));
  auto row = (*statement)->step();
  if (!row) return std::unexpected(std::move(row.error()));
  return (*statement)->int64(0);
}

// The interval's figures spread over the buckets of one tier, by the time that falls in each;
// buckets before the tier's horizon are skipped (the ledger and coarser tiers still get them).
std::expected<void, Error> write_detail(sqlite::Connection& connection, std::string_view table,
                                        TimeUs bucket_us, std::optional<TimeUs> horizon,
                                        std::int64_t process_id, const ProcessInterval& interval) {
  const std::string sql = upsert_detail_sql(table);
  for (const BucketShare& share : spread(interval.begin_us, interval.end_us, bucket_us)) {
    if (horizon && share.bucket_us < *horizon) continue;
    auto statement = connection.cached(sql);
    if (!statement) return std::unexpected(std::move(statement.error()));
    (*statement)
        ->bind_all(share.bucket_us, process_id, interval.held_seconds * share.fraction,
                   interval.sm_busy_seconds * share.fraction,
                   static_cast<std::int64_t>(interval.peak_memory_bytes),
                   interval.energy_joules * share.fraction,
                   sm_unknown_seconds(interval) * share.fraction);
    if (auto done = (*statement)->run(); !done) return done;
  }
  return {};
}

}  // namespace

std::expected<std::size_t, Error> write_process_intervals(
    sqlite::Connection& connection, std::int64_t host_id, const DeviceIds& devices,
    const Horizons& horizons, std::span<const ProcessInterval> intervals) {
  for (const ProcessInterval& interval : intervals) {
    const std::int64_t device_id = devices.find(interval.process.gpu_uuid)->second;
    auto process_id = upsert_ledger(connection, host_id, device_id, interval);
    if (!process_id) return std::unexpected(std::move(process_id.error()));
    if (auto done = write_detail(connection, "process_minutes", kMinuteUs, horizons.process_minutes,
                                 *process_id, interval);
        !done) {
      return std::unexpected(std::move(done.error()));
    }
    if (auto done = write_detail(connection, "process_hours", kHourUs, horizons.process_hours,
                                 *process_id, interval);
        !done) {
      return std::unexpected(std::move(done.error()));
    }
  }
  return intervals.size();
}

}  // namespace gpumeter::store
