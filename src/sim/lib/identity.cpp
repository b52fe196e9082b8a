// Device discovery and identity: count, handles, names, UUIDs, PCI, architecture.
#include <cstring>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {
namespace {

abi::Return count(const char* function, unsigned* device_count) {
  return system_call(function, [&](Library& library) {
    return store(device_count, library.scenario().devices.size());
  });
}

abi::Return handle_at(Library& library, std::size_t index, abi::Device* device) {
  if (device == nullptr || index >= library.scenario().devices.size())
    return abi::kErrorInvalidArgument;
  if (library.timeline().lost(index, seconds(library.now()))) return abi::kErrorGpuIsLost;
  *device = library.handle(index);
  return abi::kSuccess;
}

abi::Return handle_by_index(const char* function, unsigned index, abi::Device* device) {
  return system_call(function, [&](Library& library) { return handle_at(library, index, device); });
}

template <class Pci>
void fill_common(const PciSpec& spec, Pci& pci) {
  pci.domain = spec.domain;
  pci.bus = spec.bus;
  pci.device = spec.device;
  pci.pci_device_id = spec.device_id;
  pci.pci_subsystem_id = spec.subsystem_id;
}

// The legacy layout (nvmlDeviceGetPciInfo and _v2): 52 bytes, a 16-byte bus id.
abi::Return legacy_pci(const char* function, abi::Device device, abi::PciInfoLegacy* out) {
  return device_call(function, device, std::nullopt, [&](const DeviceCall& call) {
    if (out == nullptr) return abi::kErrorInvalidArgument;
    abi::PciInfoLegacy pci{};
    fill_common(call.spec.pci, pci);
    // The 16-byte field holds the short form with a 4-digit domain.
    const std::string legacy = call.spec.pci.bus_id.substr(4);
    legacy.copy(pci.bus_id, sizeof pci.bus_id - 1);
    *out = pci;
    return abi::kSuccess;
  });
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetCount_v2(unsigned* device_count) {
  return count("nvmlDeviceGetCount_v2", device_count);
}

abi::Return nvmlDeviceGetCount(unsigned* device_count) {
  return count("nvmlDeviceGetCount", device_count);
}

abi::Return nvmlDeviceGetHandleByIndex_v2(unsigned index, abi::Device* device) {
  return handle_by_index("nvmlDeviceGetHandleByIndex_v2", index, device);
}

abi::Return nvmlDeviceGetHandleByIndex(unsigned index, abi::Device* device) {
  return handle_by_index("nvmlDeviceGetHandleByIndex", index, device);
}

abi::Return nvmlDeviceGetHandleByUUID(const char* uuid, abi::Device* device) {
  return system_call("nvmlDeviceGetHandleByUUID", [&](Library& library) {
    if (uuid == nullptr) return abi::kErrorInvalidArgument;
    const auto& devices = library.scenario().devices;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (devices[i].uuid == uuid) return handle_at(library, i, device);
      if (!devices[i].mig) continue;
      for (const MigInstanceSpec& instance : devices[i].mig->instances) {
        if (instance.uuid != uuid) continue;
        if (device == nullptr) return abi::kErrorInvalidArgument;
        *device = library.mig_handle(i, instance.slot);
        return abi::kSuccess;
      }
    }
    return abi::kErrorNotFound;
  });
}

// A MIG handle is named after its parent and profile: "NVIDIA H100 80GB HBM3 MIG 1g.10gb".
abi::Return nvmlDeviceGetName(abi::Device device, char* name, unsigned length) {
  return mig_aware_call("nvmlDeviceGetName", device, std::nullopt, [&](const DeviceCall& call) {
    if (call.mig != nullptr)
      return copy_string(call.spec.name + " MIG " + call.mig->profile, name, length);
    return copy_string(call.spec.name, name, length);
  });
}

abi::Return nvmlDeviceGetUUID(abi::Device device, char* uuid, unsigned length) {
  return mig_aware_call("nvmlDeviceGetUUID", device, std::nullopt, [&](const DeviceCall& call) {
    return copy_string(call.mig != nullptr ? call.mig->uuid : call.spec.uuid, uuid, length);
  });
}

abi::Return nvmlDeviceGetSerial(abi::Device device, char* serial, unsigned length) {
  return device_call("nvmlDeviceGetSerial", device, Feature::serial, [&](const DeviceCall& call) {
    return copy_string(call.spec.serial, serial, length);
  });
}

abi::Return nvmlDeviceGetPciInfo_v3(abi::Device device, abi::PciInfo* out) {
  return device_call("nvmlDeviceGetPciInfo_v3", device, std::nullopt, [&](const DeviceCall& call) {
    if (out == nullptr) return abi::kErrorInvalidArgument;
    abi::PciInfo pci{};
    fill_common(call.spec.pci, pci);
    call.spec.pci.bus_id.copy(pci.bus_id, sizeof pci.bus_id - 1);
    call.spec.pci.bus_id.substr(4).copy(pci.bus_id_legacy, sizeof pci.bus_id_legacy - 1);
    *out = pci;
    return abi::kSuccess;
  });
}

abi::Return nvmlDeviceGetPciInfo_v2(abi::Device device, abi::PciInfoLegacy* out) {
  return legacy_pci("nvmlDeviceGetPciInfo_v2", device, out);
}

abi::Return nvmlDeviceGetPciInfo(abi::Device device, abi::PciInfoLegacy* out) {
  return legacy_pci("nvmlDeviceGetPciInfo", device, out);
}

abi::Return nvmlDeviceGetIndex(abi::Device device, unsigned* index) {
  return device_call("nvmlDeviceGetIndex", device, std::nullopt,
                     [&](const DeviceCall& call) { return store(index, call.index); });
}

abi::Return nvmlDeviceGetMinorNumber(abi::Device device, unsigned* minor) {
  return device_call("nvmlDeviceGetMinorNumber", device, Feature::minor_number,
                     [&](const DeviceCall& call) { return store(minor, call.spec.minor_number); });
}

abi::Return nvmlDeviceGetArchitecture(abi::Device device, unsigned* architecture) {
  return device_call(
      "nvmlDeviceGetArchitecture", device, std::nullopt,
      [&](const DeviceCall& call) { return store(architecture, call.spec.architecture); });
}

abi::Return nvmlDeviceGetCudaComputeCapability(abi::Device device, int* major, int* minor) {
  return device_call("nvmlDeviceGetCudaComputeCapability", device, std::nullopt,
                     [&](const DeviceCall& call) {
                       if (major == nullptr || minor == nullptr) return abi::kErrorInvalidArgument;
                       *major = call.spec.cc_major;
                       *minor = call.spec.cc_minor;
                       return abi::kSuccess;
                     });
}
