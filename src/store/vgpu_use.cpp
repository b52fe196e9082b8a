// SPDX-License-Identifier: MIT
#include "store/vgpu_use.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "store/buckets.h"
#include "store/meta.h"
#include "store/sqlite.h"

namespace gpumeter::store {
namespace {

// A run of rows of one vGPU tier: buckets in [from, to), each counted whole, or (`weighted`, an
// hour at the window's edge whose minutes retention deleted) by the part of it in the window.
struct Slice {
  std::string_view table;
  TimeUs from = 0;
  TimeUs to = 0;
  bool weighted = false;
};

// The slices of [since, until): whole hours that are rolled up (before `hours_until`) from
// vgpu_hours, everything else from vgpu_minutes (minutes that begin in the window), except
// edge hours whose minutes were pruned (before `minutes_pruned`), which only vgpu_hours holds.
std::vector<Slice> slices(TimeUs since, TimeUs until, std::optional<TimeUs> hours_until,
                          std::optional<TimeUs> minutes_pruned) {
  // Nothing is rolled up before the first roll-up.
  const TimeUs rolled_up =
      hours_until ? bucket_start(*hours_until, kHourUs) : std::numeric_limits<TimeUs>::min();
  const TimeUs first_whole = bucket_start(since + kHourUs - 1, kHourUs);
  const TimeUs last_whole = bucket_start(until, kHourUs);
  const auto edge = [&](TimeUs from, TimeUs to) {
    const TimeUs hour = bucket_start(from, kHourUs);
    if (minutes_pruned && hour < *minutes_pruned && hour < rolled_up)
      return Slice{"vgpu_hours", hour, hour + kHourUs, true};
    return Slice{"vgpu_minutes", from, to};
  };
  if (first_whole > last_whole) return {edge(since, until)};  // within one hour
  std::vector<Slice> parts;
  if (since < first_whole) parts.push_back(edge(since, first_whole));
  const TimeUs split = std::clamp(rolled_up, first_whole, last_whole);
  if (first_whole < split) parts.push_back({"vgpu_hours", first_whole, split});
  if (split < last_whole) parts.push_back({"vgpu_minutes", split, last_whole});
  if (last_whole < until) parts.push_back(edge(last_whole, until));
  return parts;
}

std::string usage_sql(const std::vector<Slice>& parts, TimeUs since, TimeUs until) {
  std::string union_sql;
  for (const Slice& part : parts) {
    if (!union_sql.empty()) union_sql += " UNION ALL ";
    const std::string weight =
        part.weighted ? fmt::format("(MIN(bucket_us + {0}, {2}) - MAX(bucket_us, {1})) / {0}.0",
                                    kHourUs, since, until)
                      : "1.0";
    union_sql += fmt::format(
        "SELECT device_id, vm_id, bucket_us, vgpu_type, seconds * w AS seconds, "
        "sm_busy_seconds * w AS busy, fb_used_bytes_max AS fb FROM (SELECT *, {} AS w FROM {} "
        "WHERE bucket_us >= {} AND bucket_us < {})",
        weight, part.table, part.from, part.to);
  }
  return fmt::format(R"sql(
WITH s AS ({})
SELECT hosts.name, s.vm_id, devices.uuid, devices.device_index, SUM(s.seconds), SUM(s.busy),
       MAX(s.fb),
       (SELECT newest.vgpu_type FROM s AS newest
        WHERE newest.device_id = s.device_id AND newest.vm_id = s.vm_id
          AND newest.vgpu_type IS NOT NULL
        ORDER BY newest.bucket_us DESC LIMIT 1)
FROM s
JOIN devices ON devices.id = s.device_id
JOIN hosts ON hosts.id = devices.host_id
GROUP BY hosts.name, s.vm_id, s.device_id
ORDER BY hosts.name, s.vm_id, devices.device_index
)sql",
                     union_sql);
}

}  // namespace

std::expected<void, Error> validate(const VgpuUseRecord& record) {
  if (record.gpu_uuid.empty())
    return std::unexpected(invalid_input("vGPU use: the GPU has no uuid"));
  if (record.vm_id.empty()) return std::unexpected(invalid_input("vGPU use: the VM has no id"));
  if (record.end_us < record.begin_us)
    return std::unexpected(
        invalid_input(fmt::format("vGPU use of VM {}: ends before it begins", record.vm_id)));
  const double seconds = static_cast<double>(record.end_us - record.begin_us) / 1e6;
  if (!std::isfinite(record.sm_busy_seconds) || record.sm_busy_seconds < 0 ||
      record.sm_busy_seconds > seconds * 1.01) {
    return std::unexpected(
        invalid_input(fmt::format("vGPU use of VM {}: sm_busy_seconds {} outside 0..{}",
                                  record.vm_id, record.sm_busy_seconds, seconds)));
  }
  return {};
}

std::vector<VgpuUseRecord> vgpu_use_records(const Device& device, TimeUs begin_us, TimeUs end_us) {
  std::vector<VgpuUseRecord> out;
  if (!device.identity.uuid || !device.vgpu || end_us <= begin_us) return out;
  const double seconds = static_cast<double>(end_us - begin_us) / 1e6;
  for (const VgpuInstance& v : device.vgpu->instances) {
    if (!v.vm_id || v.vm_id->empty()) continue;
    VgpuUseRecord record{.gpu_uuid = *device.identity.uuid,
                         .gpu_index = device.identity.index,
                         .vm_id = *v.vm_id,
                         .begin_us = begin_us,
                         .end_us = end_us};
    if (v.uuid) record.vgpu_uuid = *v.uuid;
    if (v.type_name) record.vgpu_type = *v.type_name;
    if (v.utilization)
      record.sm_busy_seconds = std::clamp(v.utilization->sm, 0.0, 100.0) / 100.0 * seconds;
    if (v.fb_used_bytes) record.fb_used_bytes = *v.fb_used_bytes;
    out.push_back(std::move(record));
  }
  return out;
}

std::expected<std::vector<VmUsageRow>, Error> vm_usage(Store& store, TimeUs since_us,
                                                       TimeUs until_us) {
  if (until_us <= since_us) return std::unexpected(invalid_input("the report's window is empty"));
  auto hours_until = meta::read(store.connection(), meta::kVgpuHoursUntil);
  if (!hours_until) return std::unexpected(std::move(hours_until.error()));
  auto minutes_pruned = meta::read(store.connection(), meta::kVgpuMinutesPrunedBefore);
  if (!minutes_pruned) return std::unexpected(std::move(minutes_pruned.error()));
  auto statement = store.connection().prepare(
      usage_sql(slices(since_us, until_us, *hours_until, *minutes_pruned), since_us, until_us));
  if (!statement) return std::unexpected(std::move(statement.error()));
  std::vector<VmUsageRow> rows;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) break;
    VmUsageRow r;
    r.host = statement->text(0);
    r.vm_id = statement->text(1);
    r.gpu_uuid = statement->text(2);
    r.gpu_index = static_cast<std::uint32_t>(statement->int64(3));
    r.vgpu_hours = statement->real(4) / 3600.0;
    r.sm_busy_hours = statement->real(5) / 3600.0;
    if (r.vgpu_hours > 0) r.sm_percent_while_active = 100.0 * r.sm_busy_hours / r.vgpu_hours;
    if (auto peak = statement->optional_int64(6))
      r.peak_fb_used_bytes = static_cast<std::uint64_t>(*peak);
    r.vgpu_type = statement->optional_text(7).value_or("");
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace gpumeter::store
