// SPDX-License-Identifier: MIT
// Running-process lists. The element each symbol writes depends on its name (16 bytes for
// the unsuffixed calls, 24 for _v2 and _v3) and, for _v3, on the emulated driver (32
// bytes on 535.43.02-535.86.05).
#include <cstring>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"
#include "sim/lib/variant.h"

namespace gpumeter::sim::lib {
namespace {

enum class Kind : std::uint8_t { compute, graphics, mps };
enum class Layout : std::uint8_t { v1, v2, v3 };

constexpr std::uint32_t kNoMigInstance = 0xFFFFFFFFu;

bool has_kind(const ProcessSpec& p, Kind kind) {
  switch (kind) {
    case Kind::compute: return p.types.compute;
    case Kind::graphics: return p.types.graphics;
    case Kind::mps: return p.types.mps;
  }
  return false;
}

// On a MIG-enabled GPU every entry names its instance; without MIG both ids are 0xFFFFFFFF.
abi::ProcessDetailV1 entry(const DeviceCall& call, const ProcessSpec& p) {
  const auto memory = call.timeline().process_memory(p, call.t());
  const bool placed = mig_enabled(call.spec) && p.mig;
  // processes() lists only processes with a pid.
  return abi::ProcessDetailV1{call.timeline().pid_of(p).value_or(0),
                              memory.value_or(abi::kValueNotAvailableU64),
                              placed ? p.mig->gpu_instance : kNoMigInstance,
                              placed ? p.mig->compute_instance : kNoMigInstance, 0};
}

// The parent lists every process; a MIG handle only those in its instance.
std::vector<abi::ProcessDetailV1> entries(const DeviceCall& call, Kind kind) {
  std::vector<abi::ProcessDetailV1> out;
  for (const ProcessSpec* p : call.timeline().processes(call.index, call.t())) {
    if (has_kind(*p, kind) && (call.mig == nullptr || runs_on(*p, *call.mig)))
      out.push_back(entry(call, *p));
  }
  return out;
}

std::size_t stride(Layout layout) {
  switch (layout) {
    case Layout::v1: return sizeof(abi::ProcessInfoV1);
    case Layout::v2: return sizeof(abi::ProcessInfoV2);
    case Layout::v3:
      return variant().v3_process_stride_32 ? sizeof(abi::ProcessDetailV1)
                                            : sizeof(abi::ProcessInfoV2);
  }
  return 0;
}

// Writes one element of `size` bytes: the leading fields of the 32-byte detail layout,
// which every smaller layout shares.
void write_element(void* infos, std::size_t i, std::size_t size, const abi::ProcessDetailV1& e) {
  auto* at = static_cast<unsigned char*>(infos) + i * size;
  if (size == sizeof(abi::ProcessInfoV1)) {
    const abi::ProcessInfoV1 v1{e.pid, e.used_gpu_memory};
    std::memcpy(at, &v1, sizeof v1);
  } else if (size == sizeof(abi::ProcessInfoV2)) {
    const abi::ProcessInfoV2 v2{e.pid, e.used_gpu_memory, e.gpu_instance_id, e.compute_instance_id};
    std::memcpy(at, &v2, sizeof v2);
  } else {
    std::memcpy(at, &e, sizeof e);
  }
}

// The sizing protocol of the process lists: a count below the need answers
// INSUFFICIENT_SIZE with the need (SUCCESS when there is nothing to list).
abi::Return fill(const std::vector<abi::ProcessDetailV1>& list, unsigned* count, void* infos,
                 std::size_t size) {
  if (count == nullptr) return abi::kErrorInvalidArgument;
  const auto need = static_cast<unsigned>(list.size());
  if (*count < need) {
    *count = need;
    return abi::kErrorInsufficientSize;
  }
  *count = need;
  if (need == 0) return abi::kSuccess;
  if (infos == nullptr) return abi::kErrorInvalidArgument;
  for (std::size_t i = 0; i < list.size(); ++i) write_element(infos, i, size, list[i]);
  return abi::kSuccess;
}

abi::Return running(const char* function, abi::Device device, unsigned* count, void* infos,
                    Kind kind, Layout layout) {
  const std::optional<Feature> feature = kind == Kind::mps ? Feature::mps : Feature::processes;
  return mig_aware_call(function, device, feature, [&](const DeviceCall& call) {
    if (kind == Kind::mps && !call.spec.supports(Feature::processes))
      return abi::kErrorNotSupported;
    return fill(entries(call, kind), count, infos, stride(layout));
  });
}

std::optional<Kind> kind_of_mode(std::uint32_t mode) {
  switch (mode) {
    case abi::kProcessModeCompute: return Kind::compute;
    case abi::kProcessModeGraphics: return Kind::graphics;
    case abi::kProcessModeMps: return Kind::mps;
    default: return std::nullopt;
  }
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

#define GPUMETER_SIM_PROCESS_CALL(symbol, kind, layout)                        \
  abi::Return symbol(abi::Device device, unsigned* count, void* infos) {       \
    return running(#symbol, device, count, infos, Kind::kind, Layout::layout); \
  }

GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetComputeRunningProcesses_v3, compute, v3)
GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetComputeRunningProcesses_v2, compute, v2)
GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetComputeRunningProcesses, compute, v1)
GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetGraphicsRunningProcesses_v3, graphics, v3)
GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetGraphicsRunningProcesses_v2, graphics, v2)
GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetGraphicsRunningProcesses, graphics, v1)
GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetMPSComputeRunningProcesses_v3, mps, v3)
GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetMPSComputeRunningProcesses_v2, mps, v2)
GPUMETER_SIM_PROCESS_CALL(nvmlDeviceGetMPSComputeRunningProcesses, mps, v1)
#undef GPUMETER_SIM_PROCESS_CALL

// Hopper and newer; 32-byte entries carrying confidential-compute memory (0 here).
abi::Return nvmlDeviceGetRunningProcessDetailList(abi::Device device,
                                                  abi::ProcessDetailListV1* list) {
  return device_call("nvmlDeviceGetRunningProcessDetailList", device, Feature::processes,
                     [&](const DeviceCall& call) {
                       if (list == nullptr) return abi::kErrorInvalidArgument;
                       if (list->version != abi::kProcessDetailListVersion)
                         return abi::kErrorArgumentVersionMismatch;
                       if (call.spec.architecture < abi::kArchHopper ||
                           call.spec.architecture == abi::kArchUnknown) {
                         return abi::kErrorNotSupported;
                       }
                       const std::optional<Kind> kind = kind_of_mode(list->mode);
                       if (!kind) return abi::kErrorInvalidArgument;
                       return fill(entries(call, *kind), &list->num_proc_array_entries,
                                   list->proc_array, sizeof(abi::ProcessDetailV1));
                     });
}

abi::Return nvmlDeviceGetConfComputeMemSizeInfo(abi::Device device,
                                                abi::ConfComputeMemSizeInfo* info) {
  return device_call("nvmlDeviceGetConfComputeMemSizeInfo", device, std::nullopt,
                     [&](const DeviceCall& call) {
                       if (info == nullptr) return abi::kErrorInvalidArgument;
                       if (call.spec.architecture < abi::kArchHopper ||
                           call.spec.architecture == abi::kArchUnknown) {
                         return abi::kErrorNotSupported;
                       }
                       *info = abi::ConfComputeMemSizeInfo{0, call.spec.memory_total_bytes / 1024};
                       return abi::kSuccess;
                     });
}
