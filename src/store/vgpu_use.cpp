#include "store/vgpu_use.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "store/sqlite.h"

namespace gpumeter::store {
namespace {

Error bad(std::string message) {
  return Error{ErrorCode::invalid_input, std::move(message)};
}

constexpr std::string_view kUsageSql = R"sql(
SELECT hosts.name, vgpu_minutes.vm_id, devices.uuid, devices.device_index,
       SUM(vgpu_minutes.seconds), SUM(vgpu_minutes.sm_busy_seconds),
       MAX(vgpu_minutes.fb_used_bytes_max),
       (SELECT newest.vgpu_type FROM vgpu_minutes AS newest
        WHERE newest.device_id = vgpu_minutes.device_id AND newest.vm_id = vgpu_minutes.vm_id
          AND newest.vgpu_type IS NOT NULL
        ORDER BY newest.bucket_us DESC LIMIT 1)
FROM vgpu_minutes
JOIN devices ON devices.id = vgpu_minutes.device_id
JOIN hosts ON hosts.id = devices.host_id
WHERE vgpu_minutes.bucket_us >= ?1 AND vgpu_minutes.bucket_us < ?2
GROUP BY hosts.name, vgpu_minutes.vm_id, vgpu_minutes.device_id
ORDER BY hosts.name, vgpu_minutes.vm_id, devices.device_index
)sql";

}  // namespace

std::expected<void, Error> validate(const VgpuUseRecord& record) {
  if (record.gpu_uuid.empty()) return std::unexpected(bad("vGPU use: the GPU has no uuid"));
  if (record.vm_id.empty()) return std::unexpected(bad("vGPU use: the VM has no id"));
  if (record.end_us < record.begin_us)
    return std::unexpected(
        bad(fmt::format("vGPU use of VM {}: ends before it begins", record.vm_id)));
  const double seconds = static_cast<double>(record.end_us - record.begin_us) / 1e6;
  if (!std::isfinite(record.sm_busy_seconds) || record.sm_busy_seconds < 0 ||
      record.sm_busy_seconds > seconds * 1.01) {
    return std::unexpected(bad(fmt::format("vGPU use of VM {}: sm_busy_seconds {} outside 0..{}",
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
  if (until_us <= since_us) return std::unexpected(bad("the report's window is empty"));
  auto statement = store.connection().prepare(kUsageSql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(since_us, until_us);
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
