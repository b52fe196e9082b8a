// SPDX-License-Identifier: MIT
// MIG. A GPU whose scenario says "mig": "disabled" is MIG-capable with MIG off; one whose
// "mig" is an object runs in MIG mode with those instances, each reachable through a MIG
// handle (memory, processes, identity and GPM answer per instance). Others answer
// NOT_SUPPORTED, as pre-Ampere boards do.
#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {

std::uint64_t mig_memory_used(const DeviceCall& call) {
  std::uint64_t used = 0;
  for (const ProcessSpec* p : call.timeline().processes(call.index, call.t())) {
    if (call.mig != nullptr && runs_on(*p, *call.mig))
      used += call.timeline().process_memory(*p, call.t()).value_or(0);
  }
  return used;
}

}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetMigMode(abi::Device device, unsigned* current, unsigned* pending) {
  return device_call("nvmlDeviceGetMigMode", device, std::nullopt, [&](const DeviceCall& call) {
    if (!call.spec.mig_capable) return abi::kErrorNotSupported;
    if (current == nullptr || pending == nullptr) return abi::kErrorInvalidArgument;
    *current = mig_enabled(call.spec) ? abi::kMigEnable : abi::kMigDisable;
    *pending = *current;
    return abi::kSuccess;
  });
}

// 0 when MIG is off.
abi::Return nvmlDeviceGetMaxMigDeviceCount(abi::Device device, unsigned* count) {
  return device_call("nvmlDeviceGetMaxMigDeviceCount", device, std::nullopt,
                     [&](const DeviceCall& call) {
                       // 0 where MIG is unsupported or disabled (nvml-reference.md), not
                       // NOT_SUPPORTED: the call itself exists on every board.
                       return store(count, call.spec.mig ? call.spec.mig->max_count : 0);
                     });
}

// Empty slots are NOT_FOUND; callers skip them and go on to the next index.
abi::Return nvmlDeviceGetMigDeviceHandleByIndex(abi::Device device, unsigned index,
                                                abi::Device* mig) {
  return device_call("nvmlDeviceGetMigDeviceHandleByIndex", device, std::nullopt,
                     [&](const DeviceCall& call) {
                       if (mig == nullptr) return abi::kErrorInvalidArgument;
                       if (!call.spec.mig_capable) return abi::kErrorNotSupported;
                       if (!call.spec.mig) return abi::kErrorNotFound;  // MIG off: no slot
                       if (index >= call.spec.mig->max_count) return abi::kErrorInvalidArgument;
                       const MigInstanceSpec* instance = call.spec.mig->in_slot(index);
                       if (instance == nullptr) return abi::kErrorNotFound;
                       *mig = call.library.mig_handle(call.index, instance->slot);
                       return abi::kSuccess;
                     });
}

abi::Return nvmlDeviceIsMigDeviceHandle(abi::Device device, unsigned* is_mig) {
  return mig_aware_call("nvmlDeviceIsMigDeviceHandle", device, std::nullopt,
                        [&](const DeviceCall& call) { return store(is_mig, call.mig ? 1 : 0); });
}

// The instance-id calls and the parent lookup only make sense on MIG handles.
abi::Return nvmlDeviceGetGpuInstanceId(abi::Device device, unsigned* id) {
  return mig_aware_call("nvmlDeviceGetGpuInstanceId", device, std::nullopt,
                        [&](const DeviceCall& call) {
                          if (call.mig == nullptr) return abi::kErrorNotSupported;
                          return store(id, call.mig->gpu_instance);
                        });
}

abi::Return nvmlDeviceGetComputeInstanceId(abi::Device device, unsigned* id) {
  return mig_aware_call("nvmlDeviceGetComputeInstanceId", device, std::nullopt,
                        [&](const DeviceCall& call) {
                          if (call.mig == nullptr) return abi::kErrorNotSupported;
                          return store(id, call.mig->compute_instance);
                        });
}

abi::Return nvmlDeviceGetDeviceHandleFromMigDeviceHandle(abi::Device mig, abi::Device* parent) {
  return mig_aware_call("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", mig, std::nullopt,
                        [&](const DeviceCall& call) {
                          if (call.mig == nullptr || parent == nullptr)
                            return abi::kErrorInvalidArgument;
                          *parent = call.library.handle(call.index);
                          return abi::kSuccess;
                        });
}
