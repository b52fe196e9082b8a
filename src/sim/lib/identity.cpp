// SPDX-License-Identifier: MIT
// Device discovery and identity: count, handles (by index, UUID, PCI bus id, serial), names,
// UUIDs, PCI, architecture, brand and board.
#include <charconv>
#include <cstring>
#include <string_view>

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

// The handle of the first GPU that `matches`, or NOT_FOUND.
template <class Match>
abi::Return handle_of_first(Library& library, abi::Device* device, Match&& matches) {
  const auto& devices = library.scenario().devices;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (matches(devices[i])) return handle_at(library, i, device);
  }
  return abi::kErrorNotFound;
}

struct PciAddress {
  std::uint32_t domain = 0;
  std::uint32_t bus = 0;
  std::uint32_t device = 0;
  std::uint32_t function = 0;
};

bool hex_field(std::string_view text, std::uint32_t& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// "domain:bus:device.function" (any number of domain digits) or "bus:device.function" (domain
// 0), in either case, as nvmlDeviceGetHandleByPciBusId takes them.
std::optional<PciAddress> parse_bus_id(std::string_view text) {
  PciAddress a;
  const std::size_t dot = text.rfind('.');
  const std::size_t last_colon = text.rfind(':');
  if (dot == std::string_view::npos || last_colon == std::string_view::npos || dot < last_colon)
    return std::nullopt;
  std::string_view head = text.substr(0, last_colon);
  if (const std::size_t colon = head.rfind(':'); colon != std::string_view::npos) {
    if (!hex_field(head.substr(0, colon), a.domain)) return std::nullopt;
    head = head.substr(colon + 1);
  }
  if (!hex_field(head, a.bus) ||
      !hex_field(text.substr(last_colon + 1, dot - last_colon - 1), a.device) ||
      !hex_field(text.substr(dot + 1), a.function))
    return std::nullopt;
  return a;
}

abi::Return handle_by_bus_id(const char* function, const char* bus_id, abi::Device* device) {
  return system_call(function, [&](Library& library) {
    if (bus_id == nullptr || device == nullptr) return abi::kErrorInvalidArgument;
    const std::optional<PciAddress> wanted = parse_bus_id(bus_id);
    if (!wanted) return abi::kErrorInvalidArgument;
    return handle_of_first(library, device, [&](const DeviceSpec& d) {
      return d.pci.domain == wanted->domain && d.pci.bus == wanted->bus &&
             d.pci.device == wanted->device && wanted->function == 0;
    });
  });
}

// nvmlBrandType_t, from the product name as NVIDIA brands its lines.
unsigned brand_of(std::string_view name) {
  constexpr unsigned kQuadro = 1, kTesla = 2, kGeForce = 5, kTitan = 6, kNvidiaRtx = 13,
                     kNvidia = 14;
  if (name.find("Quadro") != std::string_view::npos) return kQuadro;
  if (name.find("Tesla") != std::string_view::npos) return kTesla;
  if (name.find("GeForce") != std::string_view::npos) return kGeForce;
  if (name.find("TITAN") != std::string_view::npos) return kTitan;
  if (name.find("RTX") != std::string_view::npos) return kNvidiaRtx;
  return kNvidia;  // the data-centre boards: A100, H100, ...
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

abi::Return nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, abi::Device* device) {
  return handle_by_bus_id("nvmlDeviceGetHandleByPciBusId_v2", bus_id, device);
}

abi::Return nvmlDeviceGetHandleByPciBusId(const char* bus_id, abi::Device* device) {
  return handle_by_bus_id("nvmlDeviceGetHandleByPciBusId", bus_id, device);
}

abi::Return nvmlDeviceGetHandleBySerial(const char* serial, abi::Device* device) {
  return system_call("nvmlDeviceGetHandleBySerial", [&](Library& library) {
    if (serial == nullptr) return abi::kErrorInvalidArgument;
    return handle_of_first(library, device, [&](const DeviceSpec& d) {
      return d.supports(Feature::serial) && d.serial == serial;
    });
  });
}

// No simulated machine is an S-class unit, and no GPU is excluded from use.
abi::Return nvmlUnitGetCount(unsigned* unit_count) {
  return system_call("nvmlUnitGetCount", [&](Library&) { return store(unit_count, 0); });
}

abi::Return nvmlGetExcludedDeviceCount(unsigned* device_count) {
  return system_call("nvmlGetExcludedDeviceCount",
                     [&](Library&) { return store(device_count, 0); });
}

abi::Return nvmlDeviceGetBrand(abi::Device device, unsigned* brand) {
  return device_call("nvmlDeviceGetBrand", device, std::nullopt, [&](const DeviceCall& call) {
    return store(brand, brand_of(call.spec.name));
  });
}

// One board per GPU, named after its PCI address (as a driver's ids differ per board).
abi::Return nvmlDeviceGetBoardId(abi::Device device, unsigned* board) {
  return device_call("nvmlDeviceGetBoardId", device, std::nullopt, [&](const DeviceCall& call) {
    const PciSpec& pci = call.spec.pci;
    return store(board, (pci.domain << 16U) | (pci.bus << 8U) | (pci.device << 3U));
  });
}

abi::Return nvmlDeviceGetMultiGpuBoard(abi::Device device, unsigned* multi) {
  return device_call("nvmlDeviceGetMultiGpuBoard", device, std::nullopt,
                     [&](const DeviceCall&) { return store(multi, 0); });
}
