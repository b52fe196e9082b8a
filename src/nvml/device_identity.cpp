// SPDX-License-Identifier: MIT
// Identity and driver-wide facts: what does not change while the driver stays loaded.
#include <cstring>
#include <vector>

#include "nvml/convert.h"
#include "nvml/device_reader.h"
#include "nvml/maybe_ops.h"

namespace gpumeter::nvml {
namespace {

// The text up to the first NUL, never beyond the buffer.
std::string from_buffer(const std::vector<char>& buffer) {
  return {buffer.data(), strnlen(buffer.data(), buffer.size())};
}

Maybe<std::string> read_string(DeviceQuery& query, const Entry<abi::DeviceStringFn>& entry,
                               unsigned size) {
  std::vector<char> buffer(size, '\0');
  if (auto ok = query.call(entry, buffer.data(), size); !ok) return std::unexpected(ok.error());
  return from_buffer(buffer);
}

Maybe<std::string> read_system_string(const Entry<abi::StringGetterFn>& entry, unsigned size) {
  if (!entry) return std::unexpected(Unavailable::not_supported);
  std::vector<char> buffer(size, '\0');
  const abi::Return code = entry.fn(buffer.data(), size);
  if (code != abi::kSuccess) return std::unexpected(to_unavailable(code));
  return from_buffer(buffer);
}

Maybe<std::string> read_cuda_version(const Entry<abi::IntGetterFn>& entry) {
  if (!entry) return std::unexpected(Unavailable::not_supported);
  int encoded = 0;
  const abi::Return code = entry.fn(&encoded);
  if (code != abi::kSuccess) return std::unexpected(to_unavailable(code));
  return cuda_version_string(encoded);
}

// The v3 call writes the 8-digit bus id as text; v1/v2 write a shorter legacy text, so the
// id is built from the numeric fields there, to look the same with every driver.
Maybe<std::string> read_pci_bus_id(DeviceQuery& query) {
  const auto& entry = query.api().pci_info;
  auto pci = query.get<abi::PciInfo>(entry);
  if (!pci) return std::unexpected(pci.error());
  if (entry.found == 0 && pci->bus_id[0] != '\0') {
    return std::string(pci->bus_id, strnlen(pci->bus_id, sizeof pci->bus_id));
  }
  return pci_bus_id(pci->domain, pci->bus, pci->device);
}

Maybe<ComputeCapability> read_compute_capability(DeviceQuery& query) {
  ComputeCapability capability;
  auto ok = query.call(query.api().compute_capability, &capability.major, &capability.minor);
  if (!ok) return std::unexpected(ok.error());
  return capability;
}

Maybe<std::string> read_architecture(DeviceQuery& query) {
  return map_maybe(query.get<unsigned>(query.api().architecture), architecture_name);
}

}  // namespace

DriverInfo read_driver_info(const EntryPoints& api) {
  DriverInfo info;
  info.driver_version = read_system_string(api.driver_version, abi::kSystemDriverVersionBufferSize);
  info.nvml_version = read_system_string(api.nvml_version, abi::kSystemNvmlVersionBufferSize);
  info.cuda_driver_version = read_cuda_version(api.cuda_driver_version);
  return info;
}

DeviceIdentity read_identity(DeviceQuery& query, std::uint32_t index) {
  const EntryPoints& api = query.api();
  DeviceIdentity identity;
  identity.index = index;
  identity.uuid = read_string(query, api.uuid, abi::kDeviceUuidBufferSize);
  identity.name = read_string(query, api.name, abi::kDeviceNameBufferSize);
  identity.serial = read_string(query, api.serial, abi::kDeviceSerialBufferSize);
  identity.pci_bus_id = read_pci_bus_id(query);
  identity.minor_number = query.get<unsigned>(api.minor_number);
  identity.architecture = read_architecture(query);
  identity.compute_capability = read_compute_capability(query);
  return identity;
}

DeviceIdentity absent_identity(std::uint32_t index, Unavailable reason) {
  const auto absent = std::unexpected(reason);
  DeviceIdentity identity;
  identity.index = index;
  identity.uuid = absent;
  identity.name = absent;
  identity.serial = absent;
  identity.pci_bus_id = absent;
  identity.minor_number = absent;
  identity.architecture = absent;
  identity.compute_capability = absent;
  return identity;
}

namespace {

template <class T>
bool settled(const Maybe<T>& value) noexcept {
  return value || (value.error() != Unavailable::error && value.error() != Unavailable::gpu_lost);
}

}  // namespace

bool identity_is_settled(const DeviceIdentity& identity) noexcept {
  return settled(identity.uuid) && settled(identity.name) && settled(identity.serial) &&
         settled(identity.pci_bus_id) && settled(identity.minor_number) &&
         settled(identity.architecture) && settled(identity.compute_capability);
}

}  // namespace gpumeter::nvml
