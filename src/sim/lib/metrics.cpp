// SPDX-License-Identifier: MIT
// Utilisation, memory, temperature, power and energy.
#include <cmath>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {
namespace {

// NVML's temperature threshold types that a simulated board has.
constexpr unsigned kThresholdShutdown = 0;
constexpr unsigned kThresholdSlowdown = 1;
constexpr unsigned kThresholdGpuMax = 3;

std::optional<unsigned> threshold(const DeviceSpec& spec, unsigned type) {
  switch (type) {
    case kThresholdShutdown: return spec.slowdown_temperature_c + 5;
    case kThresholdSlowdown: return spec.slowdown_temperature_c;
    case kThresholdGpuMax:
      return spec.slowdown_temperature_c - std::min(spec.slowdown_temperature_c, 3u);
    default: return std::nullopt;
  }
}

DeviceReading reading(const DeviceCall& call) {
  return call.timeline().reading(call.index, call.now);
}

abi::Return codec(const char* function, abi::Device device, Feature feature, unsigned* utilization,
                  unsigned* period_us, bool encoder) {
  return device_call(function, device, feature, [&](const DeviceCall& call) {
    if (utilization == nullptr || period_us == nullptr) return abi::kErrorInvalidArgument;
    const UsePercent use = reading(call).percent;
    *utilization = encoder ? use.enc : use.dec;
    *period_us = static_cast<unsigned>(call.spec.sample_period_us);
    return abi::kSuccess;
  });
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetUtilizationRates(abi::Device device, abi::Utilization* out) {
  return device_call("nvmlDeviceGetUtilizationRates", device, Feature::utilization,
                     [&](const DeviceCall& call) {
                       if (out == nullptr) return abi::kErrorInvalidArgument;
                       const auto use = reading(call).percent;
                       *out = abi::Utilization{use.sm, use.mem};
                       return abi::kSuccess;
                     });
}

// v1: `used` counts reserved memory too, so total = free + used.
abi::Return nvmlDeviceGetMemoryInfo(abi::Device device, abi::Memory* out) {
  return mig_aware_call(
      "nvmlDeviceGetMemoryInfo", device, Feature::memory, [&](const DeviceCall& call) {
        if (out == nullptr) return abi::kErrorInvalidArgument;
        if (call.mig != nullptr) {
          const std::uint64_t total = call.mig->memory_total_bytes;
          const std::uint64_t used = mig_memory_used(call);
          *out = abi::Memory{total, total - used, used};
          return abi::kSuccess;
        }
        const std::uint64_t used =
            reading(call).memory_used_bytes + call.spec.memory_reserved_bytes;
        *out = abi::Memory{call.spec.memory_total_bytes, call.spec.memory_total_bytes - used, used};
        return abi::kSuccess;
      });
}

// v2: `used` excludes reserved; a wrong version word is FUNCTION_NOT_FOUND on real drivers.
abi::Return nvmlDeviceGetMemoryInfo_v2(abi::Device device, abi::MemoryV2* inout) {
  return mig_aware_call("nvmlDeviceGetMemoryInfo_v2", device, Feature::memory,
                        [&](const DeviceCall& call) {
                          if (inout == nullptr) return abi::kErrorInvalidArgument;
                          if (inout->version != abi::kMemoryV2Version)
                            return abi::kErrorFunctionNotFound;
                          if (call.mig != nullptr) {
                            const std::uint64_t used = mig_memory_used(call);
                            inout->total = call.mig->memory_total_bytes;
                            inout->reserved = 0;
                            inout->used = used;
                            inout->free = inout->total - used;
                            return abi::kSuccess;
                          }
                          const std::uint64_t used = reading(call).memory_used_bytes;
                          const std::uint64_t reserved = call.spec.memory_reserved_bytes;
                          inout->total = call.spec.memory_total_bytes;
                          inout->reserved = reserved;
                          inout->used = used;
                          inout->free = call.spec.memory_total_bytes - reserved - used;
                          return abi::kSuccess;
                        });
}

abi::Return nvmlDeviceGetTemperature(abi::Device device, abi::TemperatureSensor sensor,
                                     unsigned* temperature) {
  return device_call("nvmlDeviceGetTemperature", device, Feature::temperature,
                     [&](const DeviceCall& call) {
                       if (sensor != abi::kTemperatureGpu) return abi::kErrorInvalidArgument;
                       return store(temperature, reading(call).temperature_c);
                     });
}

abi::Return nvmlDeviceGetTemperatureV(abi::Device device, abi::Temperature* inout) {
  return device_call("nvmlDeviceGetTemperatureV", device, Feature::temperature,
                     [&](const DeviceCall& call) {
                       if (inout == nullptr) return abi::kErrorInvalidArgument;
                       if (inout->version != abi::kTemperatureVersion)
                         return abi::kErrorArgumentVersionMismatch;
                       if (inout->sensor_type != abi::kTemperatureGpu)
                         return abi::kErrorInvalidArgument;
                       inout->temperature = static_cast<std::int32_t>(reading(call).temperature_c);
                       return abi::kSuccess;
                     });
}

abi::Return nvmlDeviceGetTemperatureThreshold(abi::Device device, unsigned type,
                                              unsigned* temperature) {
  return device_call("nvmlDeviceGetTemperatureThreshold", device, Feature::temperature,
                     [&](const DeviceCall& call) {
                       const std::optional<unsigned> value = threshold(call.spec, type);
                       return value ? store(temperature, *value) : abi::kErrorNotSupported;
                     });
}

abi::Return nvmlDeviceGetPowerUsage(abi::Device device, unsigned* milliwatts) {
  return device_call("nvmlDeviceGetPowerUsage", device, Feature::power,
                     [&](const DeviceCall& call) {
                       return store(milliwatts, std::lround(reading(call).power_mw));
                     });
}

abi::Return nvmlDeviceGetEnforcedPowerLimit(abi::Device device, unsigned* milliwatts) {
  return device_call("nvmlDeviceGetEnforcedPowerLimit", device, Feature::power_limit,
                     [&](const DeviceCall& call) {
                       return store(milliwatts, std::lround(call.spec.power_limit_w * 1000.0));
                     });
}

abi::Return nvmlDeviceGetPowerManagementLimit(abi::Device device, unsigned* milliwatts) {
  return device_call("nvmlDeviceGetPowerManagementLimit", device, Feature::power_limit,
                     [&](const DeviceCall& call) {
                       return store(milliwatts, std::lround(call.spec.power_limit_w * 1000.0));
                     });
}

abi::Return nvmlDeviceGetTotalEnergyConsumption(abi::Device device, std::uint64_t* millijoules) {
  return device_call("nvmlDeviceGetTotalEnergyConsumption", device, Feature::energy,
                     [&](const DeviceCall& call) {
                       return store(millijoules, call.library.energy_mj(call.index, call.now));
                     });
}

abi::Return nvmlDeviceGetEncoderUtilization(abi::Device device, unsigned* utilization,
                                            unsigned* period_us) {
  return codec("nvmlDeviceGetEncoderUtilization", device, Feature::encoder, utilization, period_us,
               true);
}

abi::Return nvmlDeviceGetDecoderUtilization(abi::Device device, unsigned* utilization,
                                            unsigned* period_us) {
  return codec("nvmlDeviceGetDecoderUtilization", device, Feature::decoder, utilization, period_us,
               false);
}
