// SPDX-License-Identifier: MIT
#include "core/device_sample_drain.h"

#include <algorithm>

namespace gpumeter {

DeviceSampleDrain::Drained DeviceSampleDrain::drain(GpuSource& source, std::uint32_t index,
                                                    std::optional<TimeUs> last_power_us) {
  Gpu& gpu = gpus_[index];
  Drained drained;
  drained.power = drain_power(source, index, gpu, last_power_us);
  drained.period_us = measure_period(source, index, gpu);
  return drained;
}

std::vector<PowerSample> DeviceSampleDrain::drain_power(GpuSource& source, std::uint32_t index,
                                                        Gpu& gpu,
                                                        std::optional<TimeUs> last_power_us) {
  std::vector<PowerSample> power;
  if (gpu.power_unsupported) return power;
  const auto samples = source.drain_device_samples(index, DeviceBuffer::power, last_power_us);
  if (!samples) {
    gpu.power_unsupported = samples.error() == Unavailable::not_supported;
    return power;
  }
  power.reserve(samples->size());
  for (const BufferedSample& s : *samples) power.push_back({s.time_us, s.value});
  return power;
}

// The median gap between consecutive stamps: a missed sample or a stamp's jitter moves the
// shortest or the mean gap, not the median.
std::optional<TimeUs> DeviceSampleDrain::measure_period(GpuSource& source, std::uint32_t index,
                                                        Gpu& gpu) {
  if (gpu.utilization_unsupported || gpu.period_known) return std::nullopt;
  const auto samples =
      source.drain_device_samples(index, DeviceBuffer::gpu_utilization, gpu.last_utilization_us);
  if (!samples) {
    gpu.utilization_unsupported = samples.error() == Unavailable::not_supported;
    return std::nullopt;
  }
  std::vector<TimeUs> gaps;
  std::optional<TimeUs> previous = gpu.last_utilization_us;
  for (const BufferedSample& s : *samples) {
    if (previous && s.time_us > *previous) gaps.push_back(s.time_us - *previous);
    previous = std::max(previous.value_or(s.time_us), s.time_us);
  }
  gpu.last_utilization_us = previous;
  if (gaps.empty()) return std::nullopt;
  const auto middle = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::ranges::nth_element(gaps, middle);
  gpu.period_known = true;
  return *middle;
}

}  // namespace gpumeter
