#include "core/series.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace gpumeter {
namespace {

std::uint8_t clamp_percent(std::uint32_t value) {
  return static_cast<std::uint8_t>(std::min<std::uint32_t>(value, 100));
}

Maybe<double> clamp_percent(Maybe<double> value) {
  if (value) *value = std::clamp(*value, 0.0, 100.0);
  return value;
}

ProcessGpuRecord record_of(const ProcessGpuSample& sample) {
  ProcessGpuRecord record{.time_us = sample.time_us, .reported = 0};
  const auto put = [&record](Engine engine, std::optional<std::uint32_t> value) {
    if (!value) return;
    record.percent[static_cast<std::size_t>(engine)] = clamp_percent(*value);
    record.reported = static_cast<EngineMask>(record.reported | engine_bit(engine));
  };
  put(Engine::sm, sample.sm);
  put(Engine::memory, sample.mem);
  put(Engine::encoder, sample.enc);
  put(Engine::decoder, sample.dec);
  put(Engine::jpeg, sample.jpg);
  put(Engine::ofa, sample.ofa);
  return record;
}

template <class T>
Insert append(RingBuffer<T>& buffer, const T& sample) {
  if (!buffer.empty() && sample.time_us <= buffer.back().time_us) {
    return buffer.contains(sample.time_us) ? Insert::duplicate : Insert::out_of_order;
  }
  buffer.push(sample);
  return Insert::stored;
}

template <class Map>
typename Map::mapped_type& buffer_for(Map& map, const ProcessKey& key, std::size_t capacity) {
  return map.try_emplace(key, capacity).first->second;
}

template <class Map>
void drop_from_all(Map& map, TimeUs t) {
  for (auto it = map.begin(); it != map.end();) {
    it->second.drop_before(t);
    it = it->second.empty() ? map.erase(it) : std::next(it);
  }
}

template <class Map>
std::size_t bytes_of_all(const Map& map) {
  std::size_t bytes = 0;
  for (const auto& [key, buffer] : map) bytes += buffer.allocated_bytes();
  return bytes;
}

}  // namespace

std::size_t capacity_for(TimeUs horizon_us, TimeUs period_us) {
  // One sample at each end of the horizon, hence the + 1.
  const TimeUs periods = (std::max<TimeUs>(horizon_us, 0) + period_us - 1) / period_us;
  return static_cast<std::size_t>(periods) + 1;
}

DeviceSeries::DeviceSeries(const SeriesConfig& config)
    : config_(config), samples_(capacity_for(config.horizon_us, config.interval_us)) {}

Insert DeviceSeries::add(const DeviceSample& sample) {
  DeviceSample clamped = sample;
  clamped.utilization_gpu_percent = clamp_percent(sample.utilization_gpu_percent);
  clamped.utilization_memory_percent = clamp_percent(sample.utilization_memory_percent);
  return append(samples_, clamped);
}

Insert DeviceSeries::add(const ProcessKey& key, const ProcessGpuSample& sample) {
  const std::size_t capacity = capacity_for(config_.horizon_us, config_.shortest_driver_period_us);
  GpuRecords& records = buffer_for(utilization_, key, capacity);
  const std::optional<TimeUs> previous =
      records.empty() ? std::nullopt : std::optional(records.back().time_us);
  const ProcessGpuRecord record = record_of(sample);
  const Insert result = append(records, record);
  if (result != Insert::stored) return result;
  if (previous) note_gap(sample.time_us - *previous);
  last_seen_us_ = std::max(last_seen_us_.value_or(sample.time_us), sample.time_us);
  engines_reported_ = static_cast<EngineMask>(engines_reported_ | record.reported);
  return result;
}

Insert DeviceSeries::add(const ProcessKey& key, const ProcessMemorySample& sample) {
  const std::size_t capacity = capacity_for(config_.horizon_us, config_.interval_us);
  return append(buffer_for(memory_, key, capacity), sample);
}

// Consecutive samples of one busy process lie one driver period apart; a process that idled
// in between leaves a multiple of it, so the shortest gap is the period. Gaps far below the
// shortest known period are taken for driver noise, not for a faster driver.
void DeviceSeries::note_gap(TimeUs gap_us) noexcept {
  if (gap_us < config_.shortest_driver_period_us / 2) return;
  shortest_gap_us_ = std::min(shortest_gap_us_.value_or(gap_us), gap_us);
}

TimeUs DeviceSeries::sample_period_us() const noexcept {
  if (set_period_us_) return *set_period_us_;
  return shortest_gap_us_.value_or(config_.default_driver_period_us);
}

void DeviceSeries::drop_before(TimeUs t) {
  samples_.drop_before(t);
  drop_from_all(utilization_, t);
  drop_from_all(memory_, t);
}

std::size_t DeviceSeries::allocated_bytes() const noexcept {
  return samples_.allocated_bytes() + bytes_of_all(utilization_) + bytes_of_all(memory_);
}

Series::Series(SeriesConfig config) : config_(config) {}

Insert Series::add_device_sample(std::uint32_t device, const DeviceSample& sample) {
  return devices_.try_emplace(device, config_).first->second.add(sample);
}

Insert Series::add_process_gpu_sample(std::uint32_t device, const ProcessKey& key,
                                      const ProcessGpuSample& sample) {
  return devices_.try_emplace(device, config_).first->second.add(key, sample);
}

Insert Series::add_process_memory_sample(std::uint32_t device, const ProcessKey& key,
                                         const ProcessMemorySample& sample) {
  return devices_.try_emplace(device, config_).first->second.add(key, sample);
}

Insert Series::add_host_sample(const ProcessKey& key, const HostSample& sample) {
  return append(buffer_for(hosts_, key, capacity_for(config_.horizon_us, config_.interval_us)),
                sample);
}

std::size_t Series::add_process_gpu_samples(std::uint32_t device,
                                            std::span<const KeyedGpuSample> drain) {
  const std::optional<TimeUs> seen = last_seen_us(device);
  std::vector<KeyedGpuSample> fresh;
  std::ranges::copy_if(drain, std::back_inserter(fresh), [seen](const KeyedGpuSample& s) {
    return !seen || s.sample.time_us > *seen;
  });
  // Each process's buffer must receive its samples oldest first; one time per process at most
  // is kept, so the order among equal times does not matter.
  std::ranges::sort(fresh, {}, [](const KeyedGpuSample& s) { return s.sample.time_us; });
  std::size_t stored = 0;
  for (const KeyedGpuSample& s : fresh) {
    if (add_process_gpu_sample(device, s.key, s.sample) == Insert::stored) ++stored;
  }
  return stored;
}

std::optional<TimeUs> Series::last_seen_us(std::uint32_t device) const {
  const DeviceSeries* series = this->device(device);
  return series != nullptr ? series->last_seen_us() : std::nullopt;
}

const DeviceSeries* Series::device(std::uint32_t device) const {
  const auto it = devices_.find(device);
  return it != devices_.end() ? &it->second : nullptr;
}

void Series::set_sample_period_us(std::uint32_t device, TimeUs period_us) {
  devices_.try_emplace(device, config_).first->second.set_sample_period_us(period_us);
}

const HostRecords* Series::host(const ProcessKey& key) const {
  const auto it = hosts_.find(key);
  return it != hosts_.end() ? &it->second : nullptr;
}

void Series::drop_before(TimeUs t) {
  for (auto& [index, series] : devices_) series.drop_before(t);
  drop_from_all(hosts_, t);
}

std::size_t Series::allocated_bytes() const noexcept {
  std::size_t bytes = bytes_of_all(hosts_);
  for (const auto& [index, series] : devices_) bytes += series.allocated_bytes();
  return bytes;
}

SeriesBudget series_budget(const SeriesConfig& config, std::size_t devices,
                           std::size_t processes_per_device) {
  const std::size_t per_interval = capacity_for(config.horizon_us, config.interval_us);
  const std::size_t per_period = capacity_for(config.horizon_us, config.shortest_driver_period_us);
  const std::size_t pairs = devices * processes_per_device;
  SeriesBudget budget{
      .device_sample_bytes = sizeof(DeviceSample),
      .gpu_record_bytes = sizeof(ProcessGpuRecord),
      .memory_sample_bytes = sizeof(ProcessMemorySample),
      .host_sample_bytes = sizeof(HostSample),
  };
  budget.device_bytes = devices * per_interval * budget.device_sample_bytes;
  budget.utilization_bytes = pairs * per_period * budget.gpu_record_bytes;
  budget.memory_bytes = pairs * per_interval * budget.memory_sample_bytes;
  budget.host_bytes = pairs * per_interval * budget.host_sample_bytes;
  return budget;
}

}  // namespace gpumeter
