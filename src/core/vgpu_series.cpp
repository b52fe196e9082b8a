// SPDX-License-Identifier: MIT
#include "core/vgpu_series.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

namespace gpumeter {
namespace {

std::uint8_t clamp_percent(double value) {
  return static_cast<std::uint8_t>(std::lround(std::clamp(value, 0.0, 100.0)));
}

template <class T>
std::optional<T> present(const Maybe<T>& value) {
  return value ? std::optional<T>(*value) : std::nullopt;
}

}  // namespace

VgpuRecord vgpu_record(TimeUs time_us, const VgpuInstance& instance) {
  VgpuRecord record{.time_us = time_us};
  if (instance.fb_used_bytes) {
    record.fb_used_bytes = *instance.fb_used_bytes;
    record.reported |= VgpuRecord::kFramebufferBit;
  }
  if (!instance.utilization) return record;
  const VgpuUtilization& u = *instance.utilization;
  const auto put = [&record](Engine engine, std::optional<double> value) {
    if (!value) return;
    record.percent[static_cast<std::size_t>(engine)] = clamp_percent(*value);
    record.reported = static_cast<std::uint8_t>(record.reported | engine_bit(engine));
  };
  put(Engine::sm, u.sm);
  put(Engine::memory, u.memory);
  put(Engine::encoder, u.encoder);
  put(Engine::decoder, u.decoder);
  put(Engine::jpeg, present(u.jpeg));
  put(Engine::ofa, present(u.ofa));
  return record;
}

VgpuSeries::VgpuSeries(const SeriesConfig& config)
    : capacity_(capacity_for(config.horizon_us, config.interval_us)) {}

VgpuReading vgpu_reading(std::uint32_t gpu, TimeUs time_us, const VgpuInstance& instance) {
  return VgpuReading{
      .key = {.gpu = gpu, .id = instance.id, .uuid = instance.uuid.value_or("")},
      .labels = {.vm_id = present(instance.vm_id), .type_name = present(instance.type_name)},
      .record = vgpu_record(time_us, instance)};
}

Insert VgpuSeries::add(const VgpuReading& reading) {
  auto& [labels, records] =
      instances_.try_emplace(reading.key, Entry{{}, RingBuffer<VgpuRecord>(capacity_)})
          .first->second;
  if (reading.labels.vm_id) labels.vm_id = reading.labels.vm_id;
  if (reading.labels.type_name) labels.type_name = reading.labels.type_name;
  const TimeUs time_us = reading.record.time_us;
  if (!records.empty() && time_us <= records.back().time_us)
    return records.contains(time_us) ? Insert::duplicate : Insert::out_of_order;
  records.push(reading.record);
  return Insert::stored;
}

const std::pair<const VgpuSeriesKey, VgpuSeries::Entry>* VgpuSeries::find(
    std::uint32_t gpu, const std::string& selector) const {
  std::uint32_t id = 0;
  const auto [end, error] = std::from_chars(selector.data(), selector.data() + selector.size(), id);
  const bool by_id = error == std::errc{} && end == selector.data() + selector.size();
  const std::pair<const VgpuSeriesKey, Entry>* newest = nullptr;
  for (const auto& entry : instances_) {
    const VgpuSeriesKey& key = entry.first;
    if (key.gpu != gpu || entry.second.records.empty()) continue;
    if (by_id ? key.id != id : key.uuid != selector) continue;
    if (newest == nullptr ||
        entry.second.records.back().time_us > newest->second.records.back().time_us) {
      newest = &entry;
    }
  }
  return newest;
}

void VgpuSeries::drop_before(TimeUs t) {
  for (auto it = instances_.begin(); it != instances_.end();) {
    it->second.records.drop_before(t);
    it = it->second.records.empty() ? instances_.erase(it) : std::next(it);
  }
}

std::size_t VgpuSeries::allocated_bytes() const noexcept {
  std::size_t bytes = 0;
  for (const auto& [key, entry] : instances_) bytes += entry.records.allocated_bytes();
  return bytes;
}

}  // namespace gpumeter
