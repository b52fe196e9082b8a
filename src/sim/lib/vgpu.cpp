// SPDX-License-Identifier: MIT
// vGPU host calls about instances: the active list, identity, framebuffer, licence and
// accounting. Utilisation is in vgpu_utilization.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <ranges>

#include "sim/lib/exports.h"
#include "sim/lib/vgpu_state.h"

namespace gpumeter::sim::lib {
namespace {

// Licence and accounting are answered by the guest's driver.
template <class Body>
abi::Return guest_call(const char* function, abi::VgpuInstance id, Body&& body) noexcept {
  return instance_call(function, id, [&](const InstanceCall& call) {
    if (!call.instance.guest_driver) return abi::kErrorDriverNotLoaded;
    return body(call);
  });
}

// Accounting reads need the mode enabled, as on a bare-metal GPU.
template <class Body>
abi::Return accounting_call(const char* function, abi::VgpuInstance id, Body&& body) noexcept {
  return guest_call(function, id, [&](const InstanceCall& call) {
    if (!call.instance.accounting_enabled) return abi::kErrorNotSupported;
    return body(call);
  });
}

// Records of processes started by now that were not cleared after they ended.
std::vector<const VgpuAccountingSpec*> records(const InstanceCall& call) {
  std::vector<const VgpuAccountingSpec*> out;
  for (const VgpuAccountingSpec& r : call.instance.accounting) {
    const bool ended = r.end_s <= call.t();
    if (r.start_s > call.t()) continue;
    if (ended && call.library.vgpu_cleared().contains({call.instance.id, r.pid})) continue;
    out.push_back(&r);
  }
  return out;
}

abi::AccountingStats stats_of(const InstanceCall& call, const VgpuAccountingSpec& r) {
  abi::AccountingStats stats{};
  const bool running = call.t() < r.end_s;
  stats.gpu_utilization = r.gpu_utilization;
  stats.memory_utilization = r.memory_utilization;
  stats.max_memory_usage = r.max_memory_bytes;
  stats.time = running ? 0 : static_cast<std::uint64_t>(std::llround((r.end_s - r.start_s) * 1e3));
  stats.start_time =
      static_cast<std::uint64_t>(call.library.epoch_us() + std::llround(r.start_s * 1e6));
  stats.is_running = running ? 1 : 0;
  return stats;
}

abi::VgpuLicenseExpiry expiry_of(const VgpuLicenseSpec& l) {
  abi::VgpuLicenseExpiry e{};
  e.year = l.year;
  e.month = static_cast<std::uint16_t>(l.month);
  e.day = static_cast<std::uint16_t>(l.day);
  e.hour = static_cast<std::uint16_t>(l.hour);
  e.min = static_cast<std::uint16_t>(l.minute);
  e.sec = static_cast<std::uint16_t>(l.second);
  e.status = l.expiry_status;
  return e;
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetActiveVgpus(abi::Device device, unsigned* count,
                                     abi::VgpuInstance* instances) {
  return vgpu_device_call("nvmlDeviceGetActiveVgpus", device, [&](const DeviceCall& call) {
    if (count == nullptr) return abi::kErrorInvalidArgument;
    const auto visible = visible_instances(call.library, call.index, call.t());
    const auto need = static_cast<unsigned>(visible.size());
    if (*count < need || (need > 0 && instances == nullptr)) {
      *count = need;
      note_sizing(call.library, call.index);
      return abi::kErrorInsufficientSize;
    }
    std::ranges::transform(visible, instances, &VgpuInstanceSpec::id);
    *count = need;
    return abi::kSuccess;
  });
}

abi::Return nvmlVgpuInstanceGetUUID(abi::VgpuInstance id, char* uuid, unsigned size) {
  return instance_call("nvmlVgpuInstanceGetUUID", id, [&](const InstanceCall& call) {
    return copy_string(call.instance.uuid, uuid, size);
  });
}

abi::Return nvmlVgpuInstanceGetVmID(abi::VgpuInstance id, char* vm_id, unsigned size,
                                    abi::VgpuVmIdType* type) {
  return instance_call("nvmlVgpuInstanceGetVmID", id, [&](const InstanceCall& call) {
    if (type == nullptr) return abi::kErrorInvalidArgument;
    const abi::Return code = copy_string(call.instance.vm_id, vm_id, size);
    if (code == abi::kSuccess) *type = static_cast<abi::VgpuVmIdType>(call.instance.vm_id_type);
    return code;
  });
}

abi::Return nvmlVgpuInstanceGetType(abi::VgpuInstance id, abi::VgpuTypeId* type) {
  return instance_call("nvmlVgpuInstanceGetType", id, [&](const InstanceCall& call) {
    return store(type, call.instance.type_id);
  });
}

// The one string getter whose size travels by pointer: on INSUFFICIENT_SIZE it says how
// many bytes the name needs.
abi::Return nvmlVgpuTypeGetName(abi::VgpuTypeId type, char* name, unsigned* size) {
  return system_call("nvmlVgpuTypeGetName", [&](Library& library) {
    if (size == nullptr) return abi::kErrorInvalidArgument;
    const auto& instances = library.scenario().vgpu.instances;
    const auto found = std::ranges::find(instances, type, &VgpuInstanceSpec::type_id);
    if (found == instances.end()) return abi::kErrorInvalidArgument;
    const auto need = static_cast<unsigned>(found->type_name.size() + 1);
    if (name == nullptr || *size < need) {
      *size = need;
      return abi::kErrorInsufficientSize;
    }
    std::memcpy(name, found->type_name.c_str(), need);
    *size = need;
    return abi::kSuccess;
  });
}

abi::Return nvmlVgpuInstanceGetFbUsage(abi::VgpuInstance id, std::uint64_t* bytes) {
  return instance_call("nvmlVgpuInstanceGetFbUsage", id, [&](const InstanceCall& call) {
    return store(bytes, std::llround(call.instance.fb_used_bytes.at(call.t())));
  });
}

abi::Return nvmlVgpuInstanceGetLicenseInfo_v2(abi::VgpuInstance id, abi::VgpuLicenseInfo* info) {
  return guest_call("nvmlVgpuInstanceGetLicenseInfo_v2", id, [&](const InstanceCall& call) {
    if (info == nullptr) return abi::kErrorInvalidArgument;
    const VgpuLicenseSpec& l = call.instance.license;
    *info = abi::VgpuLicenseInfo{};
    info->is_licensed = l.licensed() ? 1 : 0;
    info->license_expiry = expiry_of(l);
    info->current_state = l.state;
    return abi::kSuccess;
  });
}

abi::Return nvmlVgpuInstanceGetLicenseStatus(abi::VgpuInstance id, unsigned* licensed) {
  return guest_call("nvmlVgpuInstanceGetLicenseStatus", id, [&](const InstanceCall& call) {
    return store(licensed, call.instance.license.licensed() ? 1U : 0U);
  });
}

abi::Return nvmlVgpuInstanceGetAccountingMode(abi::VgpuInstance id, unsigned* mode) {
  return guest_call("nvmlVgpuInstanceGetAccountingMode", id, [&](const InstanceCall& call) {
    return store(mode,
                 call.instance.accounting_enabled ? abi::kFeatureEnabled : abi::kFeatureDisabled);
  });
}

abi::Return nvmlVgpuInstanceGetAccountingPids(abi::VgpuInstance id, unsigned* count,
                                              unsigned* pids) {
  return accounting_call("nvmlVgpuInstanceGetAccountingPids", id, [&](const InstanceCall& call) {
    if (count == nullptr) return abi::kErrorInvalidArgument;
    const auto list = records(call);
    const auto need = static_cast<unsigned>(list.size());
    if (*count < need || (need > 0 && pids == nullptr)) {
      *count = need;
      return abi::kErrorInsufficientSize;
    }
    std::ranges::transform(list, pids, [](const VgpuAccountingSpec* r) { return r->pid; });
    *count = need;
    return abi::kSuccess;
  });
}

// On pid reuse the newest record wins, as the driver keeps only the last process.
abi::Return nvmlVgpuInstanceGetAccountingStats(abi::VgpuInstance id, unsigned pid,
                                               abi::AccountingStats* stats) {
  return accounting_call("nvmlVgpuInstanceGetAccountingStats", id, [&](const InstanceCall& call) {
    if (stats == nullptr) return abi::kErrorInvalidArgument;
    const auto list = records(call);
    const auto newest = std::ranges::find_if(
        list | std::views::reverse, [&](const VgpuAccountingSpec* r) { return r->pid == pid; });
    if (newest == (list | std::views::reverse).end()) return abi::kErrorNotFound;
    *stats = stats_of(call, **newest);
    return abi::kSuccess;
  });
}

// Root only; forgets the records of processes that have ended.
abi::Return nvmlVgpuInstanceClearAccountingPids(abi::VgpuInstance id) {
  return accounting_call("nvmlVgpuInstanceClearAccountingPids", id, [&](const InstanceCall& call) {
    if (!call.library.caller_privileged()) return abi::kErrorNoPermission;
    for (const VgpuAccountingSpec* r : records(call)) {
      if (r->end_s <= call.t()) call.library.vgpu_cleared().insert({call.instance.id, r->pid});
    }
    return abi::kSuccess;
  });
}

// NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU (3) on a GPU in vGPU host mode, else NONE (0): the
// simulated machine is bare metal, never a guest.
abi::Return nvmlDeviceGetVirtualizationMode(abi::Device device, unsigned* mode) {
  return device_call("nvmlDeviceGetVirtualizationMode", device, std::nullopt,
                     [&](const DeviceCall& call) {
                       constexpr unsigned kNone = 0, kHostVgpu = 3;
                       const bool host = call.library.scenario().vgpu.is_host(call.index);
                       return store(mode, host ? kHostVgpu : kNone);
                     });
}

// SR-IOV (1) from Ampere on, time-sliced without it (0) before; only on vGPU hosts.
abi::Return nvmlDeviceGetHostVgpuMode(abi::Device device, unsigned* mode) {
  return vgpu_device_call("nvmlDeviceGetHostVgpuMode", device, [&](const DeviceCall& call) {
    const std::uint32_t architecture = call.spec.architecture;
    const bool sriov = architecture >= abi::kArchAmpere && architecture != 0xFFFFFFFF;
    return store(mode, sriov ? 1U : 0U);
  });
}
