// SPDX-License-Identifier: MIT
// The driver's sample buffers: nvmlDeviceGetSamples and the two per-process utilisation
// calls, which answer one sample per process: its mean over the periods since lastSeen. Each keeps
// its own sizing protocol (see the NVML reference, §6.2): Samples answers SUCCESS with the count to
// a NULL buffer; ProcessUtilization answers INSUFFICIENT_SIZE with a fixed capacity;
// ProcessesUtilizationInfo answers INSUFFICIENT_SIZE with the real need. All three answer
// NOT_FOUND first when no sample is newer than lastSeen, sizing call or not.
#include <algorithm>
#include <cmath>

#include "sim/lib/call.h"
#include "sim/lib/exports.h"

namespace gpumeter::sim::lib {
namespace {

using SampleValue = unsigned (*)(const DeviceSample&);

struct SampleKind {
  Feature feature;
  SampleValue value;
};

std::optional<SampleKind> sample_kind(abi::SamplingType type) {
  switch (type) {
    case abi::kTotalPowerSamples:
      return SampleKind{Feature::power, [](const DeviceSample& s) {
                          return static_cast<unsigned>(std::lround(s.power_mw));
                        }};
    case abi::kGpuUtilizationSamples:
      return SampleKind{Feature::utilization, [](const DeviceSample& s) { return s.use.sm; }};
    case abi::kMemoryUtilizationSamples:
      return SampleKind{Feature::utilization, [](const DeviceSample& s) { return s.use.mem; }};
    case abi::kEncUtilizationSamples:
      return SampleKind{Feature::encoder, [](const DeviceSample& s) { return s.use.enc; }};
    case abi::kDecUtilizationSamples:
      return SampleKind{Feature::decoder, [](const DeviceSample& s) { return s.use.dec; }};
    case abi::kProcessorClkSamples:
      return SampleKind{Feature::clocks, [](const DeviceSample& s) { return s.clocks.sm; }};
    case abi::kMemoryClkSamples:
      return SampleKind{Feature::clocks, [](const DeviceSample& s) { return s.clocks.memory; }};
    default: return std::nullopt;  // module power, JPEG and OFA are not simulated
  }
}

// Samples with a wall-clock stamp after `last_seen` (µs since the Unix epoch).
template <class Sample>
std::vector<Sample> newer(std::vector<Sample> all, const DeviceCall& call,
                          std::uint64_t last_seen) {
  std::erase_if(all, [&](const Sample& s) {
    return static_cast<std::uint64_t>(call.library.epoch_us() + s.time) <= last_seen;
  });
  return all;
}

abi::Return device_samples(const DeviceCall& call, const SampleKind& kind, std::uint64_t last_seen,
                           abi::ValueType* type, unsigned* count, abi::Sample* samples) {
  if (type == nullptr || count == nullptr) return abi::kErrorInvalidArgument;
  const auto list =
      newer(call.timeline().device_samples(call.index, call.now, call.scenario_time(last_seen)),
            call, last_seen);
  if (list.empty()) return abi::kErrorNotFound;
  *type = abi::kValueTypeUnsignedInt;
  if (samples == nullptr) {
    *count = static_cast<unsigned>(list.size());
    return abi::kSuccess;
  }
  if (*count == 0) return abi::kErrorInvalidArgument;
  // Oldest first, so a caller that keeps the last stamp it read drains the ring in order.
  const std::size_t n = std::min<std::size_t>(*count, list.size());
  for (std::size_t i = 0; i < n; ++i) {
    samples[i].time_stamp = call.stamp(list[i].time);
    samples[i].value.ui = kind.value(list[i]);
  }
  *count = static_cast<unsigned>(n);
  return abi::kSuccess;
}

abi::ProcessUtilizationSample old_sample(const DeviceCall& call, const ProcessSample& s) {
  return abi::ProcessUtilizationSample{s.pid,     call.stamp(s.time), s.use.sm,
                                       s.use.mem, s.use.enc,          s.use.dec};
}

abi::ProcessUtilizationInfoV1 new_sample(const DeviceCall& call, const ProcessSample& s) {
  return abi::ProcessUtilizationInfoV1{call.stamp(s.time), s.pid,     s.use.sm, s.use.mem,
                                       s.use.enc,          s.use.dec, 0,        0};
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetSamples(abi::Device device, abi::SamplingType type,
                                 std::uint64_t last_seen, abi::ValueType* value_type,
                                 unsigned* count, abi::Sample* samples) {
  return device_call("nvmlDeviceGetSamples", device, std::nullopt, [&](const DeviceCall& call) {
    const auto kind = sample_kind(type);
    if (!kind || !call.spec.supports(kind->feature)) return abi::kErrorNotSupported;
    return device_samples(call, *kind, last_seen, value_type, count, samples);
  });
}

abi::Return nvmlDeviceGetProcessUtilization(abi::Device device,
                                            abi::ProcessUtilizationSample* samples, unsigned* count,
                                            std::uint64_t last_seen) {
  return device_call(
      "nvmlDeviceGetProcessUtilization", device, Feature::process_utilization,
      [&](const DeviceCall& call) {
        if (count == nullptr) return abi::kErrorInvalidArgument;
        // No newer sample is NOT_FOUND even to the sizing call (an idle GPU on a 550 driver:
        // rust-nvml issue #56), as the newer call answers too.
        const auto list = newer(
            call.timeline().process_averages(call.index, call.now, call.scenario_time(last_seen)),
            call, last_seen);
        if (list.empty()) return abi::kErrorNotFound;
        if (samples == nullptr || *count == 0) {
          // Drivers answer the size of their buffer here, not the number of samples in it.
          *count = call.spec.process_sample_capacity;
          return abi::kErrorInsufficientSize;
        }
        if (*count < list.size()) {
          *count = static_cast<unsigned>(list.size());
          return abi::kErrorInsufficientSize;
        }
        std::ranges::transform(list, samples,
                               [&](const ProcessSample& s) { return old_sample(call, s); });
        *count = static_cast<unsigned>(list.size());
        return abi::kSuccess;
      });
}

abi::Return nvmlDeviceGetProcessesUtilizationInfo(abi::Device device,
                                                  abi::ProcessesUtilizationInfoV1* info) {
  return device_call(
      "nvmlDeviceGetProcessesUtilizationInfo", device, Feature::process_utilization,
      [&](const DeviceCall& call) {
        if (info == nullptr) return abi::kErrorInvalidArgument;
        if (info->version != abi::kProcessesUtilizationInfoVersion)
          return abi::kErrorArgumentVersionMismatch;
        const auto list =
            newer(call.timeline().process_averages(call.index, call.now,
                                                   call.scenario_time(info->last_seen_time_stamp)),
                  call, info->last_seen_time_stamp);
        if (list.empty()) return abi::kErrorNotFound;
        if (info->proc_util_array == nullptr || info->process_samples_count < list.size()) {
          info->process_samples_count = static_cast<unsigned>(list.size());
          return abi::kErrorInsufficientSize;
        }
        std::ranges::transform(list, info->proc_util_array,
                               [&](const ProcessSample& s) { return new_sample(call, s); });
        info->process_samples_count = static_cast<unsigned>(list.size());
        return abi::kSuccess;
      });
}
