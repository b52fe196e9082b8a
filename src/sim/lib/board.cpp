// SPDX-License-Identifier: MIT
// Clocks, fan, PCIe, performance state, modes and ECC counters.
#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {
namespace {

std::optional<unsigned> clock_of(const Clocks& clocks, abi::ClockType type) {
  switch (type) {
    case abi::kClockGraphics: return clocks.graphics;
    case abi::kClockSm: return clocks.sm;
    case abi::kClockMem: return clocks.memory;
    case abi::kClockVideo: return clocks.video;
  }
  return std::nullopt;
}

abi::Return clock(const char* function, abi::Device device, abi::ClockType type, unsigned* mhz,
                  bool max) {
  return device_call(function, device, Feature::clocks, [&](const DeviceCall& call) {
    const Clocks clocks =
        max ? call.spec.max_clocks : call.timeline().reading(call.index, call.now).clocks;
    const std::optional<unsigned> value = clock_of(clocks, type);
    return value ? store(mhz, *value) : abi::kErrorInvalidArgument;
  });
}

abi::Return link(const char* function, abi::Device device, unsigned* out, bool generation) {
  return device_call(function, device, Feature::pcie, [&](const DeviceCall& call) {
    return store(out, generation ? call.spec.pci.link_generation : call.spec.pci.link_width);
  });
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetClockInfo(abi::Device device, abi::ClockType type, unsigned* mhz) {
  return clock("nvmlDeviceGetClockInfo", device, type, mhz, false);
}

abi::Return nvmlDeviceGetMaxClockInfo(abi::Device device, abi::ClockType type, unsigned* mhz) {
  return clock("nvmlDeviceGetMaxClockInfo", device, type, mhz, true);
}

abi::Return nvmlDeviceGetFanSpeed(abi::Device device, unsigned* percent) {
  return device_call("nvmlDeviceGetFanSpeed", device, Feature::fan, [&](const DeviceCall& call) {
    return store(percent, call.timeline().reading(call.index, call.now).fan_percent);
  });
}

abi::Return nvmlDeviceGetPcieThroughput(abi::Device device, abi::PcieUtilCounter counter,
                                        unsigned* kbps) {
  return device_call("nvmlDeviceGetPcieThroughput", device, Feature::pcie,
                     [&](const DeviceCall& call) {
                       const DeviceReading r = call.timeline().reading(call.index, call.now);
                       if (counter == abi::kPcieTxBytes) return store(kbps, r.pcie_tx_kbps);
                       if (counter == abi::kPcieRxBytes) return store(kbps, r.pcie_rx_kbps);
                       return abi::kErrorInvalidArgument;
                     });
}

abi::Return nvmlDeviceGetCurrPcieLinkGeneration(abi::Device device, unsigned* generation) {
  return link("nvmlDeviceGetCurrPcieLinkGeneration", device, generation, true);
}

abi::Return nvmlDeviceGetCurrPcieLinkWidth(abi::Device device, unsigned* width) {
  return link("nvmlDeviceGetCurrPcieLinkWidth", device, width, false);
}

abi::Return nvmlDeviceGetMaxPcieLinkGeneration(abi::Device device, unsigned* generation) {
  return link("nvmlDeviceGetMaxPcieLinkGeneration", device, generation, true);
}

abi::Return nvmlDeviceGetMaxPcieLinkWidth(abi::Device device, unsigned* width) {
  return link("nvmlDeviceGetMaxPcieLinkWidth", device, width, false);
}

abi::Return nvmlDeviceGetPerformanceState(abi::Device device, unsigned* pstate) {
  return device_call("nvmlDeviceGetPerformanceState", device, Feature::pstate,
                     [&](const DeviceCall& call) {
                       return store(pstate, call.timeline().reading(call.index, call.now).pstate);
                     });
}

abi::Return nvmlDeviceGetComputeMode(abi::Device device, unsigned* mode) {
  return device_call("nvmlDeviceGetComputeMode", device, Feature::compute_mode,
                     [&](const DeviceCall& call) { return store(mode, call.spec.compute_mode); });
}

abi::Return nvmlDeviceGetPersistenceMode(abi::Device device, unsigned* mode) {
  return device_call("nvmlDeviceGetPersistenceMode", device, Feature::persistence_mode,
                     [&](const DeviceCall& call) {
                       return store(mode, call.spec.persistence_mode ? abi::kFeatureEnabled
                                                                     : abi::kFeatureDisabled);
                     });
}

// The scenario's lifetime (aggregate) counts and those since the driver loaded (volatile).
abi::Return nvmlDeviceGetTotalEccErrors(abi::Device device, abi::MemoryErrorType type,
                                        abi::EccCounterType counter, std::uint64_t* count) {
  return device_call(
      "nvmlDeviceGetTotalEccErrors", device, Feature::ecc, [&](const DeviceCall& call) {
        if (counter != abi::kVolatileEcc && counter != abi::kAggregateEcc)
          return abi::kErrorInvalidArgument;
        const bool since_load = counter == abi::kVolatileEcc;
        const DeviceSpec& spec = call.spec;
        if (type == abi::kMemoryErrorCorrected)
          return store(count, since_load ? spec.ecc_volatile_corrected : spec.ecc_corrected);
        if (type == abi::kMemoryErrorUncorrected)
          return store(count, since_load ? spec.ecc_volatile_uncorrected : spec.ecc_uncorrected);
        return abi::kErrorInvalidArgument;
      });
}
