// SPDX-License-Identifier: MIT
// Reading a vGPU host's instances and the processes inside its VMs (docs/vgpu.md).
//
// Internal to src/nvml/; the backend calls read_vgpu_host once per device and read.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "core/vgpu.h"
#include "nvml/device_query.h"

namespace gpumeter::nvml {

// Attempts at reading a list whose length changes between the sizing call and the read
// before giving up with Unavailable::error.
inline constexpr int kVgpuListAttempts = 4;
// A count beyond this is taken for a broken driver, not allocated.
inline constexpr unsigned kVgpuMaxEntries = 1U << 16;

// What one device's drains have consumed so far: the next drain passes the newest stored
// sample time as lastSeenTimeStamp (never "now", which would lose samples the driver stamped
// earlier but had not yet published), and an instance with no newer sample keeps its last one.
struct VgpuDrainState {
  std::uint64_t instance_last_seen_us = 0;
  std::uint64_t process_last_seen_us = 0;
  std::map<std::uint32_t, VgpuUtilization> newest;  // by instance id
};

// The instances (identity, framebuffer, licence, accounting, newest utilisation) and the
// processes busy inside the VMs since the previous drain.
// Errors: not_supported on bare metal or a driver without vGPU calls; gpu_lost; error when
// the instance list kept changing between sizing and reading (kVgpuListAttempts times).
Maybe<VgpuHost> read_vgpu_host(DeviceQuery& query, VgpuDrainState& state);

// Instance utilisation samples newer than state's stamp, newest per instance kept in state.
// Prefers nvmlDeviceGetVgpuInstancesUtilizationInfo (with JPEG and OFA), else
// nvmlDeviceGetVgpuUtilization. NOT_FOUND (nothing newer) is not an error.
Maybe<void> drain_vgpu_instance_utilization(DeviceQuery& query, VgpuDrainState& state);

// Process samples newer than state's stamp: the newest per (instance, pid). Prefers
// nvmlDeviceGetVgpuProcessesUtilizationInfo, else nvmlDeviceGetVgpuProcessUtilization.
Maybe<std::vector<VgpuProcess>> drain_vgpu_processes(DeviceQuery& query, VgpuDrainState& state);

// Root only: forgets the accounting records of ended processes in one instance.
// Errors: no_permission (not root), not_supported (accounting off or no such call), error.
Maybe<void> clear_vgpu_accounting(const EntryPoints& api, std::uint32_t instance);

}  // namespace gpumeter::nvml
