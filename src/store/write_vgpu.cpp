// SPDX-License-Identifier: MIT
// vGPU use into vgpu_minutes: each record added to its VM's row of the minute it begins in.
#include <algorithm>
#include <limits>

#include "store/buckets.h"
#include "store/meta.h"
#include "store/sql_integers.h"
#include "store/write_parts.h"

namespace gpumeter::store {
namespace {

const std::string kUpsert = R"sql(
INSERT INTO vgpu_minutes (bucket_us, device_id, vm_id, vgpu_uuid, vgpu_type, seconds,
                          sm_busy_seconds, fb_used_bytes_max)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
ON CONFLICT (bucket_us, device_id, vm_id) DO UPDATE SET
  vgpu_uuid = COALESCE(excluded.vgpu_uuid, vgpu_uuid),
  vgpu_type = COALESCE(excluded.vgpu_type, vgpu_type),
  seconds = seconds + excluded.seconds,
  sm_busy_seconds = sm_busy_seconds + excluded.sm_busy_seconds,
  fb_used_bytes_max = MAX(COALESCE(fb_used_bytes_max, 0), COALESCE(excluded.fb_used_bytes_max, 0))
)sql";

}  // namespace

std::expected<void, Error> write_vgpu_use(sqlite::Connection& connection, const DeviceIds& devices,
                                          std::span<const VgpuUseRecord> records) {
  auto pruned = meta::read(connection, meta::kVgpuMinutesPrunedBefore);
  if (!pruned) return std::unexpected(std::move(pruned.error()));
  const std::optional<TimeUs> pruned_before = *pruned;
  TimeUs oldest = std::numeric_limits<TimeUs>::max();
  for (const VgpuUseRecord& record : records) {
    const auto device = devices.find(record.gpu_uuid);
    if (device == devices.end()) continue;  // every uuid of the batch has an id
    // A minute retention already deleted would come back as a fragment of itself.
    if (pruned_before && bucket_start(record.begin_us, kMinuteUs) < *pruned_before) continue;
    oldest = std::min(oldest, record.begin_us);
    auto statement = connection.cached(kUpsert);
    if (!statement) return std::unexpected(std::move(statement.error()));
    const double seconds = static_cast<double>(record.end_us - record.begin_us) / 1e6;
    (*statement)
        ->bind_all(bucket_start(record.begin_us, kMinuteUs), device->second,
                   std::string_view(record.vm_id), record.vgpu_uuid, record.vgpu_type, seconds,
                   record.sm_busy_seconds, as_int64(record.fb_used_bytes));
    if (auto done = (*statement)->run(); !done) return done;
  }
  if (oldest == std::numeric_limits<TimeUs>::max()) return {};
  // A minute of an hour already rolled up sends the roll-up back to that hour.
  return meta::lower(connection, meta::kVgpuHoursUntil, bucket_start(oldest, kHourUs));
}

}  // namespace gpumeter::store
