// MIG: no simulated GPU has MIG instances yet. GPUs marked "mig": "disabled" are
// MIG-capable with MIG off; all others answer NOT_SUPPORTED, as pre-Ampere boards do.
#include "sim/lib/call.h"
#include "sim/lib/exports.h"

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetMigMode(abi::Device device, unsigned* current, unsigned* pending) {
  return device_call("nvmlDeviceGetMigMode", device, std::nullopt, [&](const DeviceCall& call) {
    if (!call.spec.mig_capable) return abi::kErrorNotSupported;
    if (current == nullptr || pending == nullptr) return abi::kErrorInvalidArgument;
    *current = abi::kMigDisable;
    *pending = abi::kMigDisable;
    return abi::kSuccess;
  });
}

abi::Return nvmlDeviceGetMaxMigDeviceCount(abi::Device device, unsigned* count) {
  return device_call("nvmlDeviceGetMaxMigDeviceCount", device, std::nullopt,
                     [&](const DeviceCall& call) {
                       return call.spec.mig_capable ? store(count, 0) : abi::kErrorNotSupported;
                     });
}

abi::Return nvmlDeviceGetMigDeviceHandleByIndex(abi::Device device, unsigned /*index*/,
                                                abi::Device* mig) {
  return device_call("nvmlDeviceGetMigDeviceHandleByIndex", device, std::nullopt,
                     [&](const DeviceCall& call) {
                       if (mig == nullptr) return abi::kErrorInvalidArgument;
                       return call.spec.mig_capable ? abi::kErrorNotFound : abi::kErrorNotSupported;
                     });
}

abi::Return nvmlDeviceIsMigDeviceHandle(abi::Device device, unsigned* is_mig) {
  return device_call("nvmlDeviceIsMigDeviceHandle", device, std::nullopt,
                     [&](const DeviceCall&) { return store(is_mig, 0); });
}

// The instance-id calls and the parent lookup only make sense on MIG handles.
abi::Return nvmlDeviceGetGpuInstanceId(abi::Device device, unsigned* /*id*/) {
  return device_call("nvmlDeviceGetGpuInstanceId", device, std::nullopt,
                     [](const DeviceCall&) { return abi::kErrorNotSupported; });
}

abi::Return nvmlDeviceGetComputeInstanceId(abi::Device device, unsigned* /*id*/) {
  return device_call("nvmlDeviceGetComputeInstanceId", device, std::nullopt,
                     [](const DeviceCall&) { return abi::kErrorNotSupported; });
}

abi::Return nvmlDeviceGetDeviceHandleFromMigDeviceHandle(abi::Device mig, abi::Device* /*parent*/) {
  return device_call("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", mig, std::nullopt,
                     [](const DeviceCall&) { return abi::kErrorInvalidArgument; });
}
