// SPDX-License-Identifier: MIT
// MIG devices' memory: records from a snapshot, their checks, and reading the tiers back.
#include "store/mig_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "store/sqlite.h"

namespace gpumeter::store {
namespace {

Error invalid(std::string_view what) {
  return Error{ErrorCode::invalid_input, fmt::format("MIG memory record: {}", what)};
}

bool good(double value) {
  return std::isfinite(value) && value >= 0;
}

// The GPM columns of the MIG tiers, per figure: <key>_samples, _min, _sum, _max.
std::string gpm_columns() {
  std::string columns;
  for (const DeviceMetric metric : kGpmMetrics) {
    const std::string_view key = spec(metric).key;
    columns += fmt::format(", m.{0}_samples, m.{0}_min, m.{0}_sum, m.{0}_max", key);
  }
  return columns;
}

// Reads the GPM columns that start at column `first` of `statement` into `row`.
void read_gpm(sqlite::Statement& statement, int first, MigMemoryRow& row) {
  for (std::size_t i = 0; i < kGpmMetrics.size(); ++i) {
    const int column = first + static_cast<int>(4 * i);
    const std::int64_t samples = statement.int64(column);
    row.gpm_samples[i] = samples;
    if (samples <= 0) continue;  // no reading had it: absent, never 0
    row.gpm[i] = {.min = statement.optional_real(column + 1),
                  .avg = statement.real(column + 2) / static_cast<double>(samples),
                  .max = statement.optional_real(column + 3)};
  }
}

}  // namespace

std::optional<std::size_t> gpm_position(DeviceMetric metric) {
  const auto* found = std::ranges::find(kGpmMetrics, metric);
  if (found == kGpmMetrics.end()) return std::nullopt;
  return static_cast<std::size_t>(found - kGpmMetrics.begin());
}

std::expected<void, Error> validate(const MigMemoryRecord& record) {
  if (record.gpu_uuid.empty()) return std::unexpected(invalid("no GPU uuid"));
  if (record.mig_uuid.empty()) return std::unexpected(invalid("no MIG uuid"));
  if (!good(record.memory_used_bytes))
    return std::unexpected(invalid("memory_used_bytes is not a finite non-negative number"));
  if (record.memory_total_bytes && !good(*record.memory_total_bytes))
    return std::unexpected(invalid("memory_total_bytes is not a finite non-negative number"));
  for (std::size_t i = 0; i < kGpmMetrics.size(); ++i) {
    const std::optional<double>& figure = record.gpm[i];
    if (figure && !good(*figure)) {
      return std::unexpected(
          invalid(fmt::format("{} is not a finite non-negative number", spec(kGpmMetrics[i]).key)));
    }
  }
  return {};
}

std::vector<MigMemoryRecord> mig_memory_records(const Device& device, TimeUs time_us) {
  std::vector<MigMemoryRecord> records;
  if (!device.identity.uuid || !device.mig || !device.mig->enabled) return records;
  for (const MigDevice& mig : device.mig->devices) {
    if (!mig.uuid || !mig.memory_used_bytes) continue;
    MigMemoryRecord& record = records.emplace_back(
        MigMemoryRecord{.gpu_uuid = *device.identity.uuid,
                        .gpu_index = device.identity.index,
                        .mig_uuid = *mig.uuid,
                        .gpu_instance_id = mig.gpu_instance_id,
                        .compute_instance_id = mig.compute_instance_id,
                        .profile = value_of(mig.profile),
                        .time_us = time_us,
                        .memory_used_bytes = *mig.memory_used_bytes,
                        .memory_total_bytes = value_of(mig.memory_total_bytes)});
    std::ranges::transform(mig.gpm, record.gpm.begin(),
                           [](const Maybe<double>& figure) { return value_of(figure); });
  }
  return records;
}

std::expected<std::vector<MigMemoryRow>, Error> mig_memory_series(Store& store,
                                                                  const MigMemoryQuery& query) {
  if (query.resolution == Resolution::samples) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, "MIG memory is kept per minute and per hour only"});
  }
  auto statement = store.connection().prepare(fmt::format(
      "SELECT d.uuid, m.mig_uuid, m.gpu_instance_id, m.compute_instance_id, m.profile, "
      "m.bucket_us, m.samples, m.memory_used_bytes_min, m.memory_used_bytes_sum, "
      "m.memory_used_bytes_max, m.memory_total_bytes{} "
      "FROM {} m JOIN devices d ON d.id = m.device_id "
      "WHERE d.host_id = ?1 AND m.bucket_us >= ?2 AND m.bucket_us < ?3 "
      "AND (?4 IS NULL OR m.mig_uuid = ?4) ORDER BY d.uuid, m.mig_uuid, m.bucket_us",
      gpm_columns(),
      query.resolution == Resolution::minutes ? "mig_memory_minutes" : "mig_memory_hours"));
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(store.host_id(), query.since_us, query.until_us, query.mig_uuid);
  std::vector<MigMemoryRow> rows;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return rows;
    const std::int64_t samples = statement->int64(6);
    MigMemoryRow mig{.gpu_uuid = statement->text(0),
                     .mig_uuid = statement->text(1),
                     .gpu_instance_id = static_cast<std::uint32_t>(statement->int64(2)),
                     .compute_instance_id = static_cast<std::uint32_t>(statement->int64(3)),
                     .profile = statement->optional_text(4),
                     .bucket_us = statement->int64(5),
                     .samples = samples,
                     .memory_total_bytes = statement->optional_real(10)};
    mig.memory_used_bytes = {.min = statement->real(7),
                             .avg = statement->real(8) / static_cast<double>(samples),
                             .max = statement->real(9)};
    read_gpm(*statement, 11, mig);
    rows.push_back(std::move(mig));
  }
}

}  // namespace gpumeter::store
