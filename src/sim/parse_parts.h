// SPDX-License-Identifier: MIT
// Pieces of the scenario parser, one per part of the file (internal to src/sim).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/json_reader.h"
#include "sim/scenario.h"

namespace gpumeter::sim::parse {

// A number, or {"constant"}, {"steps", "repeat_s"} or {"bursts"}; values in [low, high].
Profile profile(Reader& reader, const Cursor& at, double low, double high);

DriverSpec driver(Reader& reader, const Cursor& at);
// `defaults` is the scenario's "device_defaults" (or null); `index` the device's position.
// The keys a device (or "device_defaults") may have.
const Reader::Keys& device_keys();
DeviceSpec device(Reader& reader, const Cursor& at, const Cursor& defaults, std::size_t index);
// A device's "mig": a mode string or MIG mode with instances (parse_mig.cpp).
void mig(Reader& reader, const Cursor& at, DeviceSpec& d, std::size_t index);
// A device's "gpm" (parse_gpm.cpp).
void gpm(Reader& reader, const Cursor& at, DeviceSpec& d);
// A process's "mig" (`at` is the process): required on MIG-enabled GPUs, refused elsewhere.
void mig_placement(Reader& reader, const Cursor& at, const std::vector<DeviceSpec>& devices,
                   ProcessSpec& p);
ProcessSpec process(Reader& reader, const Cursor& at, std::size_t device_count);
Faults faults(Reader& reader, const Cursor& at, std::size_t device_count);
// "vgpu": hosts, instances and the processes inside their VMs (parse_vgpu.cpp).
VgpuSpec vgpu(Reader& reader, const Cursor& at, std::size_t device_count);

// "jetson" (sim/parse_jetson.cpp), and what it asks of the rest of the scenario: one device,
// without MIG or vGPU.
JetsonSpec jetson(Reader& reader, const Cursor& at);
void check_jetson(Reader& reader, const Cursor& at, const Scenario& scenario);

// A return code by name ("UNKNOWN") or number.
std::uint32_t return_code(Reader& reader, const Cursor& at);
// A device index below `device_count`.
std::size_t device_index(Reader& reader, const Cursor& at, std::size_t device_count);

}  // namespace gpumeter::sim::parse
