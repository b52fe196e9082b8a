// SPDX-License-Identifier: MIT
// Retention: each table loses its rows older than its horizon, a slice of time per transaction.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "store/buckets.h"
#include "store/maintenance.h"
#include "store/meta.h"

namespace gpumeter::store {
namespace {

struct PruneTable {
  std::string_view table;
  std::string_view time_column;
  std::string_view pruned_before;  // meta key: the horizon, for late records
  TimeUs Retention::* retention;
  std::optional<std::string_view> aggregated_until;  // meta key: never delete past it
  TimeUs slice_us;                                   // time deleted per transaction at most
};

constexpr std::array kTables{
    PruneTable{"device_samples", "time_us", meta::kDeviceSamplesPrunedBefore,
               &Retention::device_samples_us, meta::kDeviceMinutesUntil, kHourUs},
    PruneTable{"device_minutes", "bucket_us", meta::kDeviceMinutesPrunedBefore,
               &Retention::device_minutes_us, meta::kDeviceHoursUntil, kDayUs},
    PruneTable{"device_hours", "bucket_us", meta::kDeviceHoursPrunedBefore,
               &Retention::device_hours_us, std::nullopt, 30 * kDayUs},
    PruneTable{"process_minutes", "bucket_us", meta::kProcessMinutesPrunedBefore,
               &Retention::process_minutes_us, std::nullopt, kHourUs},
    PruneTable{"process_hours", "bucket_us", meta::kProcessHoursPrunedBefore,
               &Retention::process_hours_us, std::nullopt, 7 * kDayUs},
    // MIG devices' memory, kept as long as their GPU's own minutes and hours.
    PruneTable{"mig_memory_minutes", "bucket_us", meta::kMigMemoryMinutesPrunedBefore,
               &Retention::device_minutes_us, std::nullopt, kDayUs},
    PruneTable{"mig_memory_hours", "bucket_us", meta::kMigMemoryHoursPrunedBefore,
               &Retention::device_hours_us, std::nullopt, 30 * kDayUs},
    PruneTable{"vgpu_minutes", "bucket_us", meta::kVgpuMinutesPrunedBefore,
               &Retention::vgpu_minutes_us, meta::kVgpuHoursUntil, kDayUs},
    PruneTable{"vgpu_hours", "bucket_us", meta::kVgpuHoursPrunedBefore, &Retention::vgpu_hours_us,
               std::nullopt, 30 * kDayUs},
};

// Retention 0 keeps forever; compares "outlives" with that in mind.
bool outlives(TimeUs finer, TimeUs coarser) {
  if (coarser == 0) return false;
  return finer == 0 || finer > coarser;
}

// The time before which rows of `table` may go now, if any.
std::expected<std::optional<TimeUs>, Error> horizon(sqlite::Connection& connection,
                                                    const PruneTable& table, TimeUs now_us,
                                                    const Retention& retention) {
  const TimeUs keep = retention.*table.retention;
  if (keep == 0) return std::nullopt;
  TimeUs limit = bucket_start(now_us - keep, kHourUs);
  if (table.aggregated_until) {
    auto aggregated = meta::read(connection, *table.aggregated_until);
    if (!aggregated) return std::unexpected(std::move(aggregated.error()));
    const std::optional<TimeUs> until = *aggregated;
    if (!until) return std::nullopt;  // nothing aggregated yet: keep everything
    limit = std::min(limit, bucket_start(*until, kHourUs));
  }
  return limit;
}

// Deletes one slice of rows before `limit`; false when none was left.
std::expected<bool, Error> prune_slice(sqlite::Connection& connection, const PruneTable& table,
                                       TimeUs limit, std::size_t& deleted) {
  auto transaction = sqlite::Transaction::begin(connection);
  if (!transaction) return std::unexpected(std::move(transaction.error()));
  // First, so that a late record arriving between slices is not stored only to be deleted.
  if (auto raised = meta::raise(connection, table.pruned_before, limit); !raised)
    return std::unexpected(std::move(raised.error()));
  auto oldest_query =
      connection.cached(fmt::format("SELECT min({}) FROM {}", table.time_column, table.table));
  if (!oldest_query) return std::unexpected(std::move(oldest_query.error()));
  auto row = (*oldest_query)->step();
  if (!row) return std::unexpected(std::move(row.error()));
  const std::optional<TimeUs> oldest = (*oldest_query)->optional_int64(0);
  const bool more = oldest && *oldest < limit;
  if (more) {
    auto remove = connection.cached(
        fmt::format("DELETE FROM {} WHERE {} < ?1", table.table, table.time_column));
    if (!remove) return std::unexpected(std::move(remove.error()));
    (*remove)->bind_all(std::min(limit, *oldest + table.slice_us));
    if (auto done = (*remove)->run(); !done) return std::unexpected(std::move(done.error()));
    deleted += static_cast<std::size_t>(connection.changes());
  }
  if (auto committed = transaction->commit(); !committed)
    return std::unexpected(std::move(committed.error()));
  return more;
}

}  // namespace

std::expected<void, Error> validate(const Retention& retention) {
  for (const PruneTable& table : kTables) {
    if (retention.*table.retention < 0) {
      return std::unexpected(Error{ErrorCode::invalid_input,
                                   fmt::format("the retention of {} is negative", table.table)});
    }
  }
  if (outlives(retention.device_samples_us, retention.device_minutes_us) ||
      outlives(retention.device_minutes_us, retention.device_hours_us) ||
      outlives(retention.process_minutes_us, retention.process_hours_us) ||
      outlives(retention.vgpu_minutes_us, retention.vgpu_hours_us)) {
    return std::unexpected(Error{ErrorCode::invalid_input,
                                 "a finer tier may not be kept longer than the coarser tier it is "
                                 "aggregated into"});
  }
  return {};
}

std::expected<MaintenanceReport, Error> prune(Store& store, TimeUs now_us,
                                              const Retention& retention,
                                              const MaintenanceLimits& limits) {
  if (auto valid = validate(retention); !valid) return std::unexpected(std::move(valid.error()));
  MaintenanceReport report;
  for (const PruneTable& table : kTables) {
    auto found = horizon(store.connection(), table, now_us, retention);
    if (!found) return std::unexpected(std::move(found.error()));
    const std::optional<TimeUs> limit = *found;
    if (!limit) continue;
    for (bool more = true; more;) {
      if (report.batches >= limits.max_batches) {
        report.complete = false;
        return report;
      }
      auto sliced = prune_slice(store.connection(), table, *limit, report.rows_deleted);
      if (!sliced) return std::unexpected(std::move(sliced.error()));
      more = *sliced;
      ++report.batches;
    }
  }
  return report;
}

std::expected<MaintenanceReport, Error> maintain(Store& store, TimeUs now_us,
                                                 const Retention& retention,
                                                 const MaintenanceLimits& limits) {
  if (auto valid = validate(retention); !valid) return std::unexpected(std::move(valid.error()));
  auto aggregated = downsample(store, now_us, limits);
  if (!aggregated || !aggregated->complete) return aggregated;
  MaintenanceLimits rest = limits;
  rest.max_batches -= aggregated->batches;
  auto pruned = prune(store, now_us, retention, rest);
  if (!pruned) return pruned;
  pruned->device_minutes_written = aggregated->device_minutes_written;
  pruned->device_hours_written = aggregated->device_hours_written;
  pruned->vgpu_hours_written = aggregated->vgpu_hours_written;
  pruned->batches += aggregated->batches;
  return pruned;
}

}  // namespace gpumeter::store
