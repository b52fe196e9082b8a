// SPDX-License-Identifier: MIT
// Device samples into minutes, minutes into hours: one batch (at most an hour of samples, or a
// day of minutes) per transaction, with the tier's watermark moved in the same transaction.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "store/aggregate.h"
#include "store/buckets.h"
#include "store/maintenance.h"
#include "store/meta.h"
#include "store/vgpu_rollup.h"

namespace gpumeter::store {
namespace {

// A rise of the energy counter over a longer gap (the recorder was not running) is not
// credited to any bucket: it would make one bucket's energy absurd.
constexpr TimeUs kMaxEnergyGapUs = 10 * kMinuteUs;

// What one tier's aggregation needs to know.
struct Tier {
  std::string_view source;       // the finer table
  std::string_view time_column;  // its time column
  std::string_view target;       // the aggregate table
  std::string_view watermark;    // meta key: buckets before it are aggregated
  TimeUs bucket_us;
  TimeUs batch_us;  // how much time one transaction aggregates at most
};

constexpr Tier kMinutes{"device_samples",          "time_us", "device_minutes",
                        meta::kDeviceMinutesUntil, kMinuteUs, kHourUs};
constexpr Tier kHours{"device_minutes",        "bucket_us", "device_hours",
                      meta::kDeviceHoursUntil, kHourUs,     kDayUs};

// The earliest source time at or after `from`, if any.
std::expected<std::optional<TimeUs>, Error> next_time(sqlite::Connection& connection,
                                                      const Tier& tier, TimeUs from) {
  auto statement = connection.cached(
      fmt::format("SELECT min({0}) FROM {1} WHERE {0} >= ?1", tier.time_column, tier.source));
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)->bind_all(from);
  auto row = (*statement)->step();
  if (!row) return std::unexpected(std::move(row.error()));
  return (*statement)->optional_int64(0);
}

// The last energy reading of a device seen so far.
struct EnergyReading {
  bool known = false;
  TimeUs time_us = 0;
  double joules = 0.0;
};

// The energy reading before `before` on `device`, within the credited gap.
std::expected<EnergyReading, Error> energy_before(sqlite::Connection& connection,
                                                  std::int64_t device, TimeUs before) {
  auto statement = connection.cached(
      "SELECT time_us, energy_joules FROM device_samples WHERE time_us < ?1 AND time_us >= ?2 "
      "AND device_id = ?3 AND energy_joules IS NOT NULL ORDER BY time_us DESC LIMIT 1");
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)->bind_all(before, before - kMaxEnergyGapUs, device);
  auto row = (*statement)->step();
  if (!row) return std::unexpected(std::move(row.error()));
  if (!*row) return EnergyReading{};
  return EnergyReading{true, (*statement)->int64(0), (*statement)->real(1)};
}

std::string samples_sql() {
  return fmt::format(
      "SELECT device_id, time_us, {}, {} FROM device_samples WHERE time_us >= ?1 AND time_us < ?2 "
      "ORDER BY device_id, time_us",
      gauge_columns(""), kEnergyColumn);
}

// Adds the sample in the statement's current row (columns as samples_sql() selects them).
void add_sample(const sqlite::Statement& row, BucketAggregate& bucket, EnergyReading& previous) {
  ++bucket.samples;
  for (std::size_t gauge = 0; gauge < kGauges.size(); ++gauge) {
    const int column = 2 + static_cast<int>(gauge);
    if (!row.is_null(column)) bucket.gauges[gauge].add(row.real(column));
  }
  const int energy_column = 2 + static_cast<int>(kGauges.size());
  if (row.is_null(energy_column)) return;
  const EnergyReading reading{true, row.int64(1), row.real(energy_column)};
  bucket.add_energy(0.0);
  if (previous.known && reading.time_us - previous.time_us <= kMaxEnergyGapUs &&
      reading.joules >= previous.joules) {
    bucket.add_energy(reading.joules - previous.joules);
  }
  previous = reading;
}

std::expected<Aggregates, Error> aggregate_samples(sqlite::Connection& connection, TimeUs from,
                                                   TimeUs until) {
  static const std::string kSql = samples_sql();
  auto statement = connection.prepare(kSql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(from, until);
  Aggregates aggregates;
  std::optional<std::int64_t> device;
  EnergyReading previous;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return aggregates;
    const std::int64_t id = statement->int64(0);
    if (device != id) {
      device = id;
      auto before = energy_before(connection, id, from);
      if (!before) return std::unexpected(std::move(before.error()));
      previous = *before;
    }
    add_sample(*statement, aggregates[{id, bucket_start(statement->int64(1), kMinuteUs)}],
               previous);
  }
}

std::string minutes_sql() {
  std::string columns;
  for (const Gauge& gauge : kGauges) {
    columns += fmt::format("{0}_min, {0}_avg, {0}_max, ", gauge.column());
  }
  return fmt::format(
      "SELECT device_id, bucket_us, samples, {}{} FROM device_minutes "
      "WHERE bucket_us >= ?1 AND bucket_us < ?2",
      columns, kEnergyColumn);
}

std::expected<Aggregates, Error> aggregate_minutes(sqlite::Connection& connection, TimeUs from,
                                                   TimeUs until) {
  static const std::string kSql = minutes_sql();
  auto statement = connection.prepare(kSql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(from, until);
  Aggregates aggregates;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return aggregates;
    BucketAggregate& bucket =
        aggregates[{statement->int64(0), bucket_start(statement->int64(1), kHourUs)}];
    const std::int64_t samples = statement->int64(2);
    bucket.samples += samples;
    for (std::size_t gauge = 0; gauge < kGauges.size(); ++gauge) {
      const int column = 3 + 3 * static_cast<int>(gauge);
      if (statement->is_null(column + 1)) continue;
      bucket.gauges[gauge].merge(statement->real(column), statement->real(column + 1),
                                 statement->real(column + 2), samples);
    }
    const int energy_column = 3 + 3 * static_cast<int>(kGauges.size());
    if (!statement->is_null(energy_column)) bucket.add_energy(statement->real(energy_column));
  }
}

// Where the tier's next batch starts and ends, if there is anything to do before `until`.
std::expected<std::optional<std::pair<TimeUs, TimeUs>>, Error> next_batch(
    sqlite::Connection& connection, const Tier& tier, TimeUs until) {
  auto watermark = meta::read(connection, tier.watermark);
  if (!watermark) return std::unexpected(std::move(watermark.error()));
  const std::optional<TimeUs> mark = *watermark;
  auto first = next_time(connection, tier, mark.value_or(0));
  if (!first) return std::unexpected(std::move(first.error()));
  const TimeUs from =
      std::max(mark.value_or(0), bucket_start(first->value_or(until), tier.bucket_us));
  if (from >= until) {
    // Nothing (more) to aggregate: move the watermark up to `until`, past any gap.
    if (!mark || *mark < until) {
      if (auto moved = meta::write(connection, tier.watermark, until); !moved)
        return std::unexpected(std::move(moved.error()));
    }
    return std::nullopt;
  }
  return std::pair{from, std::min(until, bucket_start(from, tier.batch_us) + tier.batch_us)};
}

// The end of the range the tier may aggregate now: complete buckets only, and for hours only
// those whose minutes are all aggregated.
std::expected<std::optional<TimeUs>, Error> aggregatable_until(sqlite::Connection& connection,
                                                               const Tier& tier, TimeUs now_us) {
  if (&tier == &kMinutes) return bucket_start(now_us, kMinuteUs);
  auto minutes = meta::read(connection, kMinutes.watermark);
  if (!minutes) return std::unexpected(std::move(minutes.error()));
  const std::optional<TimeUs> aggregated = *minutes;
  if (!aggregated) return std::nullopt;
  return bucket_start(std::min(now_us, *aggregated), kHourUs);
}

// One batch of one tier in one transaction. Returns the rows written, or nothing when the tier
// is up to date.
std::expected<std::optional<std::size_t>, Error> downsample_batch(sqlite::Connection& connection,
                                                                  const Tier& tier, TimeUs now_us) {
  auto transaction = sqlite::Transaction::begin(connection);
  if (!transaction) return std::unexpected(std::move(transaction.error()));
  auto until = aggregatable_until(connection, tier, now_us);
  if (!until) return std::unexpected(std::move(until.error()));
  const std::optional<TimeUs> limit = *until;
  if (!limit) return std::nullopt;
  auto batch = next_batch(connection, tier, *limit);
  if (!batch) return std::unexpected(std::move(batch.error()));
  const std::optional<std::pair<TimeUs, TimeUs>> range = *batch;
  std::optional<std::size_t> written;
  if (range) {
    const auto [from, to] = *range;
    auto aggregates = &tier == &kMinutes ? aggregate_samples(connection, from, to)
                                         : aggregate_minutes(connection, from, to);
    if (!aggregates) return std::unexpected(std::move(aggregates.error()));
    if (auto stored = store_aggregates(connection, tier.target, *aggregates); !stored)
      return std::unexpected(std::move(stored.error()));
    if (auto moved = meta::write(connection, tier.watermark, to); !moved)
      return std::unexpected(std::move(moved.error()));
    written = aggregates->size();
  }
  if (auto committed = transaction->commit(); !committed)
    return std::unexpected(std::move(committed.error()));
  return written;
}

}  // namespace

std::expected<MaintenanceReport, Error> downsample(Store& store, TimeUs now_us,
                                                   const MaintenanceLimits& limits) {
  MaintenanceReport report;
  for (const Tier* tier : {&kMinutes, &kHours}) {
    for (;;) {
      if (report.batches >= limits.max_batches) {
        report.complete = false;
        return report;
      }
      auto written = downsample_batch(store.connection(), *tier, now_us);
      if (!written) return std::unexpected(std::move(written.error()));
      const std::optional<std::size_t> rows = *written;
      if (!rows) break;
      ++report.batches;
      (tier == &kMinutes ? report.device_minutes_written : report.device_hours_written) += *rows;
    }
  }
  if (auto rolled = roll_up_vgpu_hours(store.connection(), now_us, limits, report); !rolled)
    return std::unexpected(std::move(rolled.error()));
  return report;
}

}  // namespace gpumeter::store
