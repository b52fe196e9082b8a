// SPDX-License-Identifier: MIT
#include "core/samples.h"

#include <algorithm>
#include <cmath>

namespace gpumeter {
namespace {

std::uint32_t kib_of(const Maybe<std::uint64_t>& bytes) {
  if (!bytes) return HostRecord::kAbsentKib;
  const std::uint64_t kib = *bytes / 1024 + (*bytes % 1024 != 0 ? 1 : 0);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(kib, HostRecord::kAbsentKib - 1));
}

}  // namespace

DeviceSample device_sample(TimeUs time_us, const DeviceState& state, Maybe<void> drained) {
  using enum DeviceMetric;
  return DeviceSample{
      .time_us = time_us,
      .utilization_gpu_percent = state[utilization_gpu],
      .utilization_memory_percent = state[utilization_memory],
      .memory_used_bytes = state[memory_used],
      .power_watts = state[power_draw],
      .energy_joules = state[energy],
      .temperature_celsius = state[temperature],
      .processes_drained = drained.has_value(),
      .not_drained_reason = drained ? Unavailable::no_data : drained.error(),
  };
}

static_assert(static_cast<unsigned>(Unavailable::mig) + 1 < 8, "a reason takes 3 bits");

DeviceRecord::DeviceRecord(const DeviceSample& sample)
    : time_us(sample.time_us),
      not_drained_(sample.processes_drained
                       ? 0U
                       : (static_cast<unsigned>(sample.not_drained_reason) + 1U) & 0xFU) {
  const auto percent = [](Maybe<double> value) {
    if (value) *value = std::clamp(*value, 0.0, 100.0);
    return value;
  };
  put(Figure::utilization_gpu, percent(sample.utilization_gpu_percent));
  put(Figure::utilization_memory, percent(sample.utilization_memory_percent));
  put(Figure::memory, sample.memory_used_bytes);
  put(Figure::power, sample.power_watts);
  put(Figure::energy, sample.energy_joules);
  put(Figure::temperature, sample.temperature_celsius);
}

void DeviceRecord::put(Figure figure, const Maybe<double>& value) noexcept {
  const double v = value.value_or(0.0);
  switch (figure) {
    case Figure::utilization_gpu: utilization_gpu_percent_ = static_cast<float>(v); break;
    case Figure::utilization_memory: utilization_memory_percent_ = static_cast<float>(v); break;
    case Figure::memory: memory_used_bytes_ = v; break;
    case Figure::power: power_watts_ = static_cast<float>(v); break;
    case Figure::energy: energy_joules_ = v; break;
    case Figure::temperature:
      temperature_celsius_ = static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
      break;
  }
  const unsigned code = value ? 0U : static_cast<unsigned>(value.error()) + 1U;
  if (figure == Figure::temperature) {
    temperature_absent_ = static_cast<std::uint8_t>(code & 0xFU);
    return;
  }
  const unsigned shift = 3U * static_cast<unsigned>(figure);
  absent_ = static_cast<std::uint16_t>((absent_ & ~(7U << shift)) | (code << shift));
}

Maybe<double> DeviceRecord::get(Figure figure, double value) const noexcept {
  const unsigned code = figure == Figure::temperature
                            ? unsigned{temperature_absent_}
                            : (absent_ >> (3U * static_cast<unsigned>(figure))) & 7U;
  if (code == 0) return value;
  return std::unexpected(static_cast<Unavailable>(code - 1));
}

Maybe<double> DeviceRecord::utilization_gpu_percent() const noexcept {
  return get(Figure::utilization_gpu, static_cast<double>(utilization_gpu_percent_));
}
Maybe<double> DeviceRecord::utilization_memory_percent() const noexcept {
  return get(Figure::utilization_memory, static_cast<double>(utilization_memory_percent_));
}
Maybe<double> DeviceRecord::memory_used_bytes() const noexcept {
  return get(Figure::memory, memory_used_bytes_);
}
Maybe<double> DeviceRecord::power_watts() const noexcept {
  return get(Figure::power, static_cast<double>(power_watts_));
}
Maybe<double> DeviceRecord::energy_joules() const noexcept {
  return get(Figure::energy, energy_joules_);
}
Maybe<double> DeviceRecord::temperature_celsius() const noexcept {
  return get(Figure::temperature, static_cast<double>(temperature_celsius_));
}

HostRecord host_record(const HostSample& sample) {
  return HostRecord{.time_us = sample.time_us,
                    .cpu_user_us = sample.cpu_user_us,
                    .cpu_system_us = sample.cpu_system_us,
                    .rss_kib = kib_of(sample.rss_bytes),
                    .peak_rss_kib = kib_of(sample.peak_rss_bytes)};
}

}  // namespace gpumeter
