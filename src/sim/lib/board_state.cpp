// SPDX-License-Identifier: MIT
// What a board says about its state beyond the readings: why its clocks are held back, its
// power limits, fans, ECC and memory health, BAR1 and display. Each answers from what the
// scenario says (or derives from it, as noted), so that a client asking a driver's usual
// questions gets a driver's answers (docs/scenarios.md, "Functions").
#include <algorithm>
#include <bit>
#include <cmath>
#include <span>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {
namespace {

// nvmlClocksThrottleReason* bits.
constexpr std::uint64_t kThrottleGpuIdle = 0x1;
constexpr std::uint64_t kThrottleSwPowerCap = 0x4;
constexpr std::uint64_t kThrottleSwThermalSlowdown = 0x20;
constexpr std::uint64_t kThrottleAllKnown = 0x1FF;  // GpuIdle ... DisplayClockSetting

// The scenario's retired pages for `cause`, as the driver lists them: a count query (no buffer,
// or one too small) gets INSUFFICIENT_SIZE with the count; a large enough buffer gets
// made-up page addresses (and the retirement times for the _v2 call: the scenario's start).
abi::Return retired_pages(const char* function, abi::Device device, abi::PageRetirementCause cause,
                          unsigned* count, unsigned long long* addresses,
                          unsigned long long* timestamps) {
  return device_call(function, device, Feature::ecc, [&](const DeviceCall& call) {
    if (remaps_rows(call.spec)) return abi::kErrorNotSupported;
    if (count == nullptr) return abi::kErrorInvalidArgument;
    unsigned pages = 0;
    if (cause == abi::kRetiredMultipleSingleBit)
      pages = call.spec.retired_single_bit;
    else if (cause == abi::kRetiredDoubleBit)
      pages = call.spec.retired_double_bit;
    else
      return abi::kErrorInvalidArgument;
    const unsigned room = *count;
    *count = pages;
    if (pages == 0) return abi::kSuccess;
    if (addresses == nullptr || room < pages) return abi::kErrorInsufficientSize;
    const std::span<unsigned long long> out(addresses, pages);
    for (unsigned i = 0; i < pages; ++i)
      out[i] = 0x1000ULL * (i + 1) + (cause == abi::kRetiredDoubleBit ? 0x80000000ULL : 0);
    if (timestamps != nullptr) {
      const auto start_s = static_cast<unsigned long long>(call.library.epoch_us() / 1'000'000);
      std::ranges::fill(std::span<unsigned long long>(timestamps, pages), start_s);
    }
    return abi::kSuccess;
  });
}

abi::Return milliwatts(unsigned* out, double watts) {
  return store(out, std::lround(watts * 1000.0));
}

// Idle when the last sample period was; else capped by power at the limit, or by heat at the
// slowdown temperature; else nothing holds the clocks back.
abi::Return clocks_held_back(const char* function, abi::Device device, std::uint64_t* reasons) {
  return device_call(function, device, Feature::clocks, [&](const DeviceCall& call) {
    const DeviceReading r = call.timeline().reading(call.index, call.now);
    std::uint64_t held = 0;
    if (r.percent.sm == 0) held |= kThrottleGpuIdle;
    if (call.spec.power_limit_w > 0 && r.power_mw >= call.spec.power_limit_w * 1000.0)
      held |= kThrottleSwPowerCap;
    if (call.spec.slowdown_temperature_c > 0 && r.temperature_c >= call.spec.slowdown_temperature_c)
      held |= kThrottleSwThermalSlowdown;
    return store(reasons, held);
  });
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

// The same bits under r535's name (CUDA 12.2) and the older one.
abi::Return nvmlDeviceGetCurrentClocksEventReasons(abi::Device device, std::uint64_t* reasons) {
  return clocks_held_back("nvmlDeviceGetCurrentClocksEventReasons", device, reasons);
}

abi::Return nvmlDeviceGetCurrentClocksThrottleReasons(abi::Device device, std::uint64_t* reasons) {
  return clocks_held_back("nvmlDeviceGetCurrentClocksThrottleReasons", device, reasons);
}

abi::Return nvmlDeviceGetSupportedClocksThrottleReasons(abi::Device device,
                                                        std::uint64_t* reasons) {
  return device_call("nvmlDeviceGetSupportedClocksThrottleReasons", device, Feature::clocks,
                     [&](const DeviceCall&) { return store(reasons, kThrottleAllKnown); });
}

abi::Return nvmlDeviceGetPowerState(abi::Device device, unsigned* pstate) {
  return device_call("nvmlDeviceGetPowerState", device, Feature::pstate,
                     [&](const DeviceCall& call) {
                       return store(pstate, call.timeline().reading(call.index, call.now).pstate);
                     });
}

abi::Return nvmlDeviceGetPowerManagementDefaultLimit(abi::Device device, unsigned* limit) {
  return device_call(
      "nvmlDeviceGetPowerManagementDefaultLimit", device, Feature::power_limit,
      [&](const DeviceCall& call) { return milliwatts(limit, call.spec.power_limit_w); });
}

// The scenario's limit is the highest; the lowest is taken as 30 % of it (an H100 SXM: 200
// of 700 W).
abi::Return nvmlDeviceGetPowerManagementLimitConstraints(abi::Device device, unsigned* min,
                                                         unsigned* max) {
  return device_call("nvmlDeviceGetPowerManagementLimitConstraints", device, Feature::power_limit,
                     [&](const DeviceCall& call) {
                       if (min == nullptr || max == nullptr) return abi::kErrorInvalidArgument;
                       milliwatts(min, call.spec.power_limit_w * 0.3);
                       return milliwatts(max, call.spec.power_limit_w);
                     });
}

abi::Return nvmlDeviceGetNumFans(abi::Device device, unsigned* fans) {
  return device_call("nvmlDeviceGetNumFans", device, Feature::fan,
                     [&](const DeviceCall&) { return store(fans, 1); });
}

abi::Return nvmlDeviceGetFanSpeed_v2(abi::Device device, unsigned fan, unsigned* percent) {
  return device_call("nvmlDeviceGetFanSpeed_v2", device, Feature::fan, [&](const DeviceCall& call) {
    if (fan != 0) return abi::kErrorInvalidArgument;
    return store(percent, call.timeline().reading(call.index, call.now).fan_percent);
  });
}

abi::Return nvmlDeviceGetPcieReplayCounter(abi::Device device, unsigned* replays) {
  return device_call(
      "nvmlDeviceGetPcieReplayCounter", device, Feature::pcie,
      [&](const DeviceCall& call) { return store(replays, call.spec.pcie_replays); });
}

// A board that counts ECC errors has ECC on, now and after the next reboot.
abi::Return nvmlDeviceGetEccMode(abi::Device device, unsigned* current, unsigned* pending) {
  return device_call("nvmlDeviceGetEccMode", device, Feature::ecc, [&](const DeviceCall&) {
    if (current == nullptr || pending == nullptr) return abi::kErrorInvalidArgument;
    *current = abi::kFeatureEnabled;
    *pending = abi::kFeatureEnabled;
    return abi::kSuccess;
  });
}

abi::Return nvmlDeviceGetDefaultEccMode(abi::Device device, unsigned* mode) {
  return device_call("nvmlDeviceGetDefaultEccMode", device, Feature::ecc,
                     [&](const DeviceCall&) { return store(mode, abi::kFeatureEnabled); });
}

// No simulated board drives a display.
abi::Return nvmlDeviceGetDisplayMode(abi::Device device, unsigned* mode) {
  return device_call("nvmlDeviceGetDisplayMode", device, std::nullopt,
                     [&](const DeviceCall&) { return store(mode, abi::kFeatureDisabled); });
}

abi::Return nvmlDeviceGetDisplayActive(abi::Device device, unsigned* active) {
  return device_call("nvmlDeviceGetDisplayActive", device, std::nullopt,
                     [&](const DeviceCall&) { return store(active, abi::kFeatureDisabled); });
}

// Before Ampere: the scenario's retired pages ("health"). From Ampere on the board remaps rows
// instead and has no retired pages to report.
abi::Return nvmlDeviceGetRetiredPages(abi::Device device, abi::PageRetirementCause cause,
                                      unsigned* count, unsigned long long* addresses) {
  return retired_pages("nvmlDeviceGetRetiredPages", device, cause, count, addresses, nullptr);
}

abi::Return nvmlDeviceGetRetiredPages_v2(abi::Device device, abi::PageRetirementCause cause,
                                         unsigned* count, unsigned long long* addresses,
                                         unsigned long long* timestamps) {
  return retired_pages("nvmlDeviceGetRetiredPages_v2", device, cause, count, addresses, timestamps);
}

abi::Return nvmlDeviceGetRetiredPagesPendingStatus(abi::Device device, unsigned* pending) {
  return device_call(
      "nvmlDeviceGetRetiredPagesPendingStatus", device, Feature::ecc, [&](const DeviceCall& call) {
        if (remaps_rows(call.spec)) return abi::kErrorNotSupported;
        return store(pending,
                     call.spec.retirement_pending ? abi::kFeatureEnabled : abi::kFeatureDisabled);
      });
}

abi::Return nvmlDeviceGetRemappedRows(abi::Device device, unsigned* corrected,
                                      unsigned* uncorrected, unsigned* pending, unsigned* failed) {
  return device_call("nvmlDeviceGetRemappedRows", device, Feature::ecc,
                     [&](const DeviceCall& call) {
                       if (!remaps_rows(call.spec)) return abi::kErrorNotSupported;
                       for (unsigned* out : {corrected, uncorrected, pending, failed}) {
                         if (out == nullptr) return abi::kErrorInvalidArgument;
                       }
                       const DeviceSpec& spec = call.spec;
                       *corrected = spec.remapped_corrected;
                       *uncorrected = spec.remapped_uncorrected;
                       *pending = spec.remap_pending ? 1 : 0;
                       *failed = spec.remap_failed ? 1 : 0;
                       return abi::kSuccess;
                     });
}

// BAR1 spans the frame buffer on the large-BAR boards the scenarios model (an H100 80GB has
// 128 GiB): the next power of two; a few MiB of it are mapped by the driver itself.
abi::Return nvmlDeviceGetBAR1MemoryInfo(abi::Device device, signatures::Bar1Memory* out) {
  return device_call(
      "nvmlDeviceGetBAR1MemoryInfo", device, Feature::memory, [&](const DeviceCall& call) {
        if (out == nullptr) return abi::kErrorInvalidArgument;
        constexpr unsigned long long kDriverMapped = 2ULL << 20;
        const unsigned long long total =
            std::bit_ceil(std::max<std::uint64_t>(call.spec.memory_total_bytes, kDriverMapped));
        *out = signatures::Bar1Memory{total, total - kDriverMapped, kDriverMapped};
        return abi::kSuccess;
      });
}
