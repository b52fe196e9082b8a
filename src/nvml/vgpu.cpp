// SPDX-License-Identifier: MIT
// The instance side of a vGPU host: the active list (with its sizing retry), identity,
// framebuffer, licence and accounting of each instance.
#include "nvml/vgpu.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace gpumeter::nvml {
namespace {

// An instance call's answer as a reason.
Maybe<void> instance_result(abi::Return code) {
  if (code == abi::kSuccess) return {};
  return std::unexpected(to_unavailable(code));
}

template <class Fn, class... Args>
Maybe<void> call_instance(const Entry<Fn>& entry, Args... args) {
  if (!entry) return std::unexpected(Unavailable::not_supported);
  return instance_result(entry.fn(args...));
}

// The active list: size, then read; the driver's INSUFFICIENT_SIZE on the read means a VM
// started in between, so size again (bounded).
Maybe<std::vector<abi::VgpuInstance>> active_instances(DeviceQuery& query) {
  const auto& entry = query.api().active_vgpus;
  unsigned count = 0;
  for (int attempt = 0; attempt < kVgpuListAttempts; ++attempt) {
    if (count > kVgpuMaxEntries) return std::unexpected(Unavailable::error);
    std::vector<abi::VgpuInstance> ids(count);
    const CallResult code = query.invoke(entry, &count, count == 0 ? nullptr : ids.data());
    if (code && *code == abi::kErrorInsufficientSize) continue;  // count holds the new need
    if (auto ok = DeviceQuery::succeeded(code); !ok) return std::unexpected(ok.error());
    ids.resize(std::min<std::size_t>(count, ids.size()));
    return ids;
  }
  return std::unexpected(Unavailable::error);
}

Maybe<std::string> type_name(const EntryPoints& api, abi::VgpuTypeId type) {
  if (!api.vgpu_type_name) return std::unexpected(Unavailable::not_supported);
  unsigned size = abi::kVgpuTypeNameBufferSize;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string buffer(size, '\0');
    const abi::Return code = api.vgpu_type_name.fn(type, buffer.data(), &size);
    if (code == abi::kErrorInsufficientSize && size > buffer.size() && size <= 4096) continue;
    if (code != abi::kSuccess) return std::unexpected(to_unavailable(code));
    buffer.resize(strnlen(buffer.data(), buffer.size()));  // up to the NUL
    return buffer;
  }
  return std::unexpected(Unavailable::error);
}

// µs since the Unix epoch of a UTC calendar time.
std::int64_t utc_us(const abi::VgpuLicenseExpiry& e) {
  using namespace std::chrono;
  const sys_days day = year{static_cast<int>(e.year)} / month{e.month} / std::chrono::day{e.day};
  const auto at = day + hours{e.hour} + minutes{e.min} + seconds{e.sec};
  return duration_cast<microseconds>(at.time_since_epoch()).count();
}

LicenseState license_state(std::uint32_t value) {
  return value <= abi::kLicenseStateLicensed ? static_cast<LicenseState>(value)
                                             : LicenseState::unknown;
}

Maybe<VgpuLicense> license(const EntryPoints& api, abi::VgpuInstance id) {
  if (api.vgpu_license_info) {
    abi::VgpuLicenseInfo info{};
    const abi::Return code = api.vgpu_license_info.fn(id, &info);
    if (code == abi::kSuccess) {
      VgpuLicense l;
      l.licensed = info.is_licensed != 0;
      l.state = license_state(info.current_state);
      const std::uint8_t status = info.license_expiry.status;
      l.expiry_kind = status <= abi::kLicenseExpiryPermanent
                          ? static_cast<LicenseExpiryKind>(status)
                          : LicenseExpiryKind::not_available;
      if (status == abi::kLicenseExpiryValid) l.expiry_us = utc_us(info.license_expiry);
      return l;
    }
    if (!means_try_older_call(code)) return std::unexpected(to_unavailable(code));
  }
  unsigned licensed = 0;
  if (auto ok = call_instance(api.vgpu_license_status, id, &licensed); !ok)
    return std::unexpected(ok.error());
  VgpuLicense l;
  l.licensed = licensed != 0;
  return l;
}

Maybe<double> percent_or_absent(std::uint32_t value) {
  if (value == abi::kValueNotAvailableU32) return std::unexpected(Unavailable::not_supported);
  return static_cast<double>(value);
}

VgpuAccountingRecord record_of(std::uint32_t pid, const abi::AccountingStats& s) {
  VgpuAccountingRecord r;
  r.pid = pid;
  r.gpu_utilization = percent_or_absent(s.gpu_utilization);
  r.memory_utilization = percent_or_absent(s.memory_utilization);
  if (s.max_memory_usage != abi::kValueNotAvailableU64) r.max_memory_bytes = s.max_memory_usage;
  r.start_us = static_cast<std::int64_t>(s.start_time);
  r.running = s.is_running != 0;
  if (!r.running) r.duration_us = static_cast<std::int64_t>(s.time) * 1000;
  return r;
}

Maybe<std::vector<VgpuAccountingRecord>> accounting_records(const EntryPoints& api,
                                                            abi::VgpuInstance id) {
  if (!api.vgpu_accounting_pids || !api.vgpu_accounting_stats)
    return std::unexpected(Unavailable::not_supported);
  unsigned count = 0;
  std::vector<unsigned> pids;
  for (int attempt = 0;; ++attempt) {
    if (attempt == kVgpuListAttempts || count > kVgpuMaxEntries)
      return std::unexpected(Unavailable::error);
    pids.resize(count);
    const abi::Return code =
        api.vgpu_accounting_pids.fn(id, &count, count == 0 ? nullptr : pids.data());
    if (code == abi::kErrorInsufficientSize) continue;
    if (code != abi::kSuccess) return std::unexpected(to_unavailable(code));
    pids.resize(std::min<std::size_t>(count, pids.size()));
    break;
  }
  std::vector<VgpuAccountingRecord> records;
  for (unsigned pid : pids) {
    abi::AccountingStats stats{};
    const abi::Return code = api.vgpu_accounting_stats.fn(id, pid, &stats);
    if (code == abi::kErrorNotFound) continue;  // the record wrapped out meanwhile
    if (code != abi::kSuccess) return std::unexpected(to_unavailable(code));
    records.push_back(record_of(pid, stats));
  }
  return records;
}

Maybe<VgpuAccounting> accounting(const EntryPoints& api, abi::VgpuInstance id) {
  unsigned mode = 0;
  if (auto ok = call_instance(api.vgpu_accounting_mode, id, &mode); !ok)
    return std::unexpected(ok.error());
  VgpuAccounting a;
  a.enabled = mode == abi::kFeatureEnabled;
  if (a.enabled) a.records = accounting_records(api, id);
  return a;
}

// One instance, or nullopt when it went away between the list and its reads.
std::optional<VgpuInstance> read_instance(const EntryPoints& api, abi::VgpuInstance id) {
  VgpuInstance v;
  v.id = id;
  if (api.vgpu_uuid) {
    std::array<char, abi::kVgpuUuidBufferSize> uuid{};
    const abi::Return code = api.vgpu_uuid.fn(id, uuid.data(), static_cast<unsigned>(uuid.size()));
    if (code == abi::kErrorNotFound) return std::nullopt;
    if (code == abi::kSuccess)
      v.uuid = std::string(uuid.data());
    else
      v.uuid = std::unexpected(to_unavailable(code));
  } else {
    v.uuid = std::unexpected(Unavailable::not_supported);
  }
  std::array<char, abi::kVgpuVmIdBufferSize> vm{};
  abi::VgpuVmIdType kind = abi::kVgpuVmIdUuid;
  if (auto ok =
          call_instance(api.vgpu_vm_id, id, vm.data(), static_cast<unsigned>(vm.size()), &kind);
      ok) {
    v.vm_id = std::string(vm.data());
    v.vm_id_kind = kind == abi::kVgpuVmIdDomainId ? VmIdKind::domain_id : VmIdKind::uuid;
  } else {
    v.vm_id = std::unexpected(ok.error());
    v.vm_id_kind = std::unexpected(ok.error());
  }
  abi::VgpuTypeId type = 0;
  if (auto ok = call_instance(api.vgpu_type, id, &type); ok) {
    v.type_id = type;
    v.type_name = type_name(api, type);
  } else {
    v.type_id = std::unexpected(ok.error());
    v.type_name = std::unexpected(ok.error());
  }
  std::uint64_t fb = 0;
  if (auto ok = call_instance(api.vgpu_fb_usage, id, &fb); ok)
    v.fb_used_bytes = fb;
  else
    v.fb_used_bytes = std::unexpected(ok.error());
  v.license = license(api, id);
  v.accounting = accounting(api, id);
  return v;
}

}  // namespace

Maybe<VgpuHost> read_vgpu_host(DeviceQuery& query, VgpuDrainState& state) {
  auto ids = active_instances(query);
  if (!ids) return std::unexpected(ids.error());
  VgpuHost host;
  for (abi::VgpuInstance id : *ids) {
    if (auto instance = read_instance(query.api(), id)) host.instances.push_back(*instance);
  }
  const Maybe<void> drained = drain_vgpu_instance_utilization(query, state);
  for (VgpuInstance& v : host.instances) {
    if (!drained) {
      v.utilization = std::unexpected(drained.error());
    } else if (auto found = state.newest.find(v.id); found != state.newest.end()) {
      v.utilization = found->second;
    }
  }
  // Instances that went away take their last samples with them.
  std::erase_if(state.newest, [&](const auto& entry) {
    return std::ranges::find(*ids, entry.first) == ids->end();
  });
  host.processes = drain_vgpu_processes(query, state);
  return host;
}

Maybe<void> clear_vgpu_accounting(const EntryPoints& api, std::uint32_t instance) {
  return call_instance(api.vgpu_clear_accounting, instance);
}

}  // namespace gpumeter::nvml
