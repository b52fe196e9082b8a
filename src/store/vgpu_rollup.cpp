// SPDX-License-Identifier: MIT
#include "store/vgpu_rollup.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "store/buckets.h"
#include "store/meta.h"

namespace gpumeter::store {
namespace {

// Replaces each hour row of [?1, ?2) with the sum of its minutes: a late minute that reopened
// an hour (write_vgpu_use lowers the watermark) gives the whole hour again, never a part.
constexpr std::string_view kRollUpSql = R"sql(
INSERT OR REPLACE INTO vgpu_hours (bucket_us, device_id, vm_id, vgpu_uuid, vgpu_type, seconds,
                                   sm_busy_seconds, fb_used_bytes_max)
SELECT hour, device_id, vm_id,
       (SELECT newest.vgpu_uuid FROM vgpu_minutes AS newest
        WHERE newest.device_id = m.device_id AND newest.vm_id = m.vm_id
          AND newest.bucket_us >= hour AND newest.bucket_us < hour + ?3
          AND newest.vgpu_uuid IS NOT NULL
        ORDER BY newest.bucket_us DESC LIMIT 1),
       (SELECT newest.vgpu_type FROM vgpu_minutes AS newest
        WHERE newest.device_id = m.device_id AND newest.vm_id = m.vm_id
          AND newest.bucket_us >= hour AND newest.bucket_us < hour + ?3
          AND newest.vgpu_type IS NOT NULL
        ORDER BY newest.bucket_us DESC LIMIT 1),
       SUM(seconds), SUM(sm_busy_seconds), MAX(fb_used_bytes_max)
FROM (SELECT *, bucket_us - (bucket_us % ?3) AS hour FROM vgpu_minutes
      WHERE bucket_us >= ?1 AND bucket_us < ?2) AS m
GROUP BY hour, device_id, vm_id
)sql";

// The first minute at or after `from`, if any.
std::expected<std::optional<TimeUs>, Error> first_minute(sqlite::Connection& connection,
                                                         TimeUs from) {
  auto statement =
      connection.cached("SELECT min(bucket_us) FROM vgpu_minutes WHERE bucket_us >= ?1");
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)->bind_all(from);
  auto row = (*statement)->step();
  if (!row) return std::unexpected(std::move(row.error()));
  return (*statement)->optional_int64(0);
}

// The next day-bounded range of hours to roll up before `until`; none when up to date (the
// watermark is then moved up to `until`, past any gap).
std::expected<std::optional<std::pair<TimeUs, TimeUs>>, Error> next_range(
    sqlite::Connection& connection, TimeUs until) {
  auto watermark = meta::read(connection, meta::kVgpuHoursUntil);
  if (!watermark) return std::unexpected(std::move(watermark.error()));
  const TimeUs mark = watermark->value_or(0);
  auto first = first_minute(connection, mark);
  if (!first) return std::unexpected(std::move(first.error()));
  const TimeUs from = std::max(mark, bucket_start(first->value_or(until), kHourUs));
  if (from >= until) {
    if (!*watermark || mark < until) {
      if (auto moved = meta::write(connection, meta::kVgpuHoursUntil, until); !moved)
        return std::unexpected(std::move(moved.error()));
    }
    return std::nullopt;
  }
  return std::pair{from, std::min(until, bucket_start(from, kDayUs) + kDayUs)};
}

// One range in one transaction; the rows written, or nothing when up to date.
std::expected<std::optional<std::size_t>, Error> roll_up_batch(sqlite::Connection& connection,
                                                               TimeUs now_us) {
  auto transaction = sqlite::Transaction::begin(connection);
  if (!transaction) return std::unexpected(std::move(transaction.error()));
  auto range = next_range(connection, bucket_start(now_us, kHourUs));
  if (!range) return std::unexpected(std::move(range.error()));
  const std::optional<std::pair<TimeUs, TimeUs>> hours = *range;
  std::optional<std::size_t> written;
  if (hours) {
    const auto [from, to] = *hours;
    auto statement = connection.cached(std::string(kRollUpSql));
    if (!statement) return std::unexpected(std::move(statement.error()));
    (*statement)->bind_all(from, to, kHourUs);
    if (auto done = (*statement)->run(); !done) return std::unexpected(std::move(done.error()));
    written = static_cast<std::size_t>(connection.changes());
    if (auto moved = meta::write(connection, meta::kVgpuHoursUntil, to); !moved)
      return std::unexpected(std::move(moved.error()));
  }
  if (auto committed = transaction->commit(); !committed)
    return std::unexpected(std::move(committed.error()));
  return written;
}

}  // namespace

std::expected<void, Error> roll_up_vgpu_hours(sqlite::Connection& connection, TimeUs now_us,
                                              const MaintenanceLimits& limits,
                                              MaintenanceReport& report) {
  for (;;) {
    if (report.batches >= limits.max_batches) {
      report.complete = false;
      return {};
    }
    auto written = roll_up_batch(connection, now_us);
    if (!written) return std::unexpected(std::move(written.error()));
    const std::optional<std::size_t> rows = *written;
    if (!rows) return {};
    ++report.batches;
    report.vgpu_hours_written += *rows;
  }
}

}  // namespace gpumeter::store
