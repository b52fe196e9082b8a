// SPDX-License-Identifier: MIT
// Reading one device (and the driver-wide facts) into the model, one short function per
// group of fields. A failing field carries its reason; it never fails the others. Once a
// query finds the GPU lost, the remaining fields are not asked for.
//
// Internal to src/nvml/; the backend strings these together.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model.h"
#include "nvml/device_query.h"
#include "nvml/library.h"

namespace gpumeter::nvml {

// Driver version, NVML version and CUDA driver version ("12.2").
DriverInfo read_driver_info(const EntryPoints& api);

// UUID, name, serial, PCI bus id, minor number, architecture, compute capability.
// `index` is NVML's enumeration index of the device.
DeviceIdentity read_identity(DeviceQuery& query, std::uint32_t index);

// Every metric of core/metrics.h in the model's units, compute and persistence mode.
DeviceState read_state(DeviceQuery& query);

// Memory total, used, free and reserved only; every other metric absent (not asked).
DeviceState read_memory_state(DeviceQuery& query);

// Compute, graphics and MPS processes merged by pid (sorted by pid). Lists the device does
// not support are skipped; all three unsupported: not_supported. Any other failure of a
// list (including a stride mismatch) makes the whole list absent with that reason, rather
// than showing a partial one.
Maybe<std::vector<GpuProcess>> read_processes(DeviceQuery& query);

// A state / identity in which every value is absent for `reason` (the index is kept).
DeviceState absent_state(Unavailable reason);
DeviceIdentity absent_identity(std::uint32_t index, Unavailable reason);

// True when no identity field failed transiently (error, gpu_lost): such an identity can be
// kept for the following reads.
bool identity_is_settled(const DeviceIdentity& identity) noexcept;

}  // namespace gpumeter::nvml
