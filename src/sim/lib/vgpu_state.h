// SPDX-License-Identifier: MIT
// What the simulated vGPU calls share: which instances a GPU shows now, how busy an
// instance and the processes inside its VM were over a sample period, and the call wrappers
// for calls that take an instance id instead of a device handle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/lib/call.h"

namespace gpumeter::sim::lib {

// Utilisation in percent per engine, including the JPEG and OFA engines.
struct VgpuUse {
  double sm = 0, mem = 0, enc = 0, dec = 0, jpg = 0, ofa = 0;
};

// Rounded as the driver reports it (whole percent, 0..100).
struct VgpuPercent {
  unsigned sm = 0, mem = 0, enc = 0, dec = 0, jpg = 0, ofa = 0;
  bool any() const { return sm + mem + enc + dec + jpg + ofa > 0; }
};
VgpuPercent rounded(const VgpuUse& use);

// Instances of `device` visible at t (alive, and sized when they wait for a sizing call).
std::vector<const VgpuInstanceSpec*> visible_instances(Library& library, std::size_t device,
                                                       double t);
// Mean use of one process over [a, b] (time it did not run counts as 0).
VgpuUse process_mean(const VgpuProcessSpec& process, double a, double b);
// The processes of the instance summed, each engine capped at 100.
VgpuUse instance_mean(const Scenario& scenario, std::uint32_t instance, double a, double b);

// The sample periods of `device` that ended after `after` (µs since the epoch) and are still
// in the driver's buffer, as period indices k (the period ends at k * sample_period_us; k may
// be negative, before the epoch).
std::vector<SimUs> sample_periods(const DeviceSpec& device, SimUs now, SimUs after);

// Marks `device` as having answered a sizing call (VgpuInstanceSpec::appears_after_sizing).
void note_sizing(Library& library, std::size_t device);

// A device call that needs the GPU to be a vGPU host (NOT_SUPPORTED on bare metal).
template <class Body>
abi::Return vgpu_device_call(const char* function, abi::Device device, Body&& body) noexcept {
  return device_call(function, device, std::nullopt, [&](const DeviceCall& call) {
    if (!call.library.scenario().vgpu.is_host(call.index)) return abi::kErrorNotSupported;
    return body(call);
  });
}

// What an instance call's body gets to work with.
struct InstanceCall {
  Library& library;
  const VgpuInstanceSpec& instance;
  SimUs now;
  double t() const { return seconds(now); }
};

// A call on one vGPU instance: INVALID_ARGUMENT for id 0, NOT_FOUND for an instance that is
// not active now, GPU_IS_LOST when its GPU is.
template <class Body>
abi::Return instance_call(const char* function, abi::VgpuInstance id, Body&& body) noexcept {
  return guarded(function, [&] {
    Library& library = Library::instance();
    std::lock_guard lock(library.mutex());
    if (!library.initialized()) return abi::kErrorUninitialized;
    if (id == 0) return abi::kErrorInvalidArgument;
    const SimUs now = library.now();
    const VgpuInstanceSpec* found = nullptr;
    for (const VgpuInstanceSpec& v : library.scenario().vgpu.instances) {
      if (v.id == id) found = &v;
    }
    if (found == nullptr) return abi::kErrorNotFound;
    if (library.timeline().lost(found->device, seconds(now))) return abi::kErrorGpuIsLost;
    if (auto fault = library.flaky(function, found->device)) return *fault;
    const auto visible = visible_instances(library, found->device, seconds(now));
    if (std::ranges::find(visible, found) == visible.end()) return abi::kErrorNotFound;
    return body(InstanceCall{library, *found, now});
  });
}

}  // namespace gpumeter::sim::lib
