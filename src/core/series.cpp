// SPDX-License-Identifier: MIT
#include "core/series.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "core/coarse_record.h"

namespace gpumeter {
namespace {

std::uint8_t clamp_percent(std::uint32_t value) {
  return static_cast<std::uint8_t>(std::min<std::uint32_t>(value, 100));
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
  record.peak_sm = record[Engine::sm];
  return record;
}

// Buffer capacities, from the configuration (normalised).
std::size_t device_capacity(const SeriesConfig& c) {
  return capacity_for(c.horizon_us, c.interval_us);
}
// The fine horizon at one power sample per shortest driver period; power samples are dropped
// every round as they pass the fine horizon.
std::size_t power_capacity(const SeriesConfig& c) {
  return capacity_for(c.fine_horizon_us, c.shortest_driver_period_us);
}
std::size_t fine_utilization_capacity(const SeriesConfig& c) {
  return capacity_for(c.fine_horizon_us + utilization_bucket_us(c), c.shortest_driver_period_us);
}
std::size_t coarse_utilization_capacity(const SeriesConfig& c) {
  return capacity_for(c.horizon_us, utilization_bucket_us(c));
}
// One more than the readings of the horizon: the sample that still holds at its start.
std::size_t memory_capacity(const SeriesConfig& c) {
  return capacity_for(c.horizon_us, c.interval_us) + 1;
}
// Two more than the readings of the fine horizon: the reading that ends a flat stretch may be
// stored along with the next one.
std::size_t fine_host_capacity(const SeriesConfig& c) {
  return capacity_for(c.fine_horizon_us + host_bucket_us(c), c.interval_us) + 2;
}
std::size_t coarse_host_capacity(const SeriesConfig& c) {
  return capacity_for(c.horizon_us, host_bucket_us(c)) + 1;
}

template <class Record>
Insert append(RingBuffer<Record>& buffer, const Record& sample) {
  if (!buffer.empty() && sample.time_us <= buffer.back().time_us) {
    return buffer.contains(sample.time_us) ? Insert::duplicate : Insert::out_of_order;
  }
  buffer.push(sample);
  return Insert::stored;
}

template <class Map, class... Args>
typename Map::mapped_type& series_for(Map& map, const ProcessKey& key, Args... capacities) {
  return map.try_emplace(key, capacities...).first->second;
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
  for (const auto& [key, series] : map) bytes += series.allocated_bytes();
  return bytes;
}

}  // namespace

TimeUs utilization_bucket_us(const SeriesConfig& config) {
  return std::max(config.interval_us, kSecondUs);
}

TimeUs host_bucket_us(const SeriesConfig& config) {
  return std::max(config.host_bucket_us, config.interval_us);
}

SeriesConfig normalised(SeriesConfig config) {
  config.fine_horizon_us = std::max(config.fine_horizon_us, config.default_driver_period_us);
  return config;
}

std::size_t capacity_for(TimeUs horizon_us, TimeUs period_us) {
  // One sample at each end of the horizon, hence the + 1.
  const TimeUs periods = (std::max<TimeUs>(horizon_us, 0) + period_us - 1) / period_us;
  return static_cast<std::size_t>(periods) + 1;
}

DeviceSeries::DeviceSeries(const SeriesConfig& config)
    : config_(config),
      tiers_{.fine_horizon_us = config.fine_horizon_us, .bucket_us = utilization_bucket_us(config)},
      samples_(device_capacity(config)),
      power_(power_capacity(config)) {}

Insert DeviceSeries::add(const DeviceSample& sample) {
  return append(samples_, DeviceRecord(sample));
}

Insert DeviceSeries::add(const ProcessKey& key, const ProcessGpuSample& sample) {
  UtilizationSeries& series = series_for(utilization_, key, fine_utilization_capacity(config_),
                                         coarse_utilization_capacity(config_));
  const std::optional<TimeUs> previous =
      series.fine().empty() ? std::nullopt : std::optional(series.fine().back().time_us);
  const ProcessGpuRecord record = record_of(sample);
  const Insert result = series.add(record, sample_period_us(), tiers_);
  coarse_until_us_ = std::max(coarse_until_us_, series.folded_until_us());
  if (result != Insert::stored) return result;
  if (previous) note_gap(sample.time_us - *previous);
  last_seen_us_ = std::max(last_seen_us_.value_or(sample.time_us), sample.time_us);
  engines_reported_ = static_cast<EngineMask>(engines_reported_ | record.reported);
  return result;
}

Insert DeviceSeries::add(const PowerSample& sample) {
  const std::optional<TimeUs> previous =
      power_.empty() ? std::nullopt : std::optional(power_.back().time_us);
  const Insert result = append(power_, sample);
  if (result == Insert::stored && previous) {
    const TimeUs gap = sample.time_us - *previous;
    power_gap_us_ = std::min(power_gap_us_.value_or(gap), gap);
  }
  return result;
}

Insert DeviceSeries::add(const ProcessKey& key, const ProcessMemorySample& sample) {
  return series_for(memory_, key, memory_capacity(config_)).add(sample);
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

void DeviceSeries::fold_before(TimeUs t) {
  power_.drop_before(t);
  const TimeUs period_us = sample_period_us();
  for (auto& [key, series] : utilization_) {
    series.fold_before(t, period_us, tiers_.bucket_us);
    coarse_until_us_ = std::max(coarse_until_us_, series.folded_until_us());
  }
}

void DeviceSeries::drop_before(TimeUs t) {
  samples_.drop_before(t);
  power_.drop_before(t);
  drop_from_all(utilization_, t);
  drop_from_all(memory_, t);
}

std::size_t DeviceSeries::allocated_bytes() const noexcept {
  return samples_.allocated_bytes() + power_.allocated_bytes() + bytes_of_all(utilization_) +
         bytes_of_all(memory_);
}

Series::Series(SeriesConfig config)
    : config_(normalised(config)),
      host_tiers_{.fine_horizon_us = config_.fine_horizon_us,
                  .bucket_us = host_bucket_us(config_)} {}

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
  HostSeries& series =
      series_for(hosts_, key, fine_host_capacity(config_), coarse_host_capacity(config_));
  return series.add(sample, host_tiers_);
}

namespace {

// A driver answers one sample per process and call: the process's mean over the driver periods
// since the call's lastSeenTimeStamp (`seen`), stamped with the newest period's end (docs/
// attribution.md, "Per-process utilisation"). Such a sample, spanning several periods, becomes
// that many records of one period each, holding the same mean, so that each record covers what
// it stands for: at most a fine horizon of them; without `seen` the span is unknown and the
// sample stays one record. A driver that answers a sample per period instead (several for one
// process in one answer) gives records of one period each.
std::vector<KeyedGpuSample> one_per_period(std::span<const KeyedGpuSample> sorted,
                                           std::optional<TimeUs> seen, TimeUs period_us,
                                           TimeUs fine_horizon_us) {
  const TimeUs most = std::max<TimeUs>(1, fine_horizon_us / period_us);
  std::map<ProcessKey, int> answered;  // samples per process in this answer
  for (const KeyedGpuSample& s : sorted) ++answered[s.key];
  std::vector<KeyedGpuSample> records;
  records.reserve(sorted.size());
  for (const KeyedGpuSample& s : sorted) {
    const TimeUs span = seen && answered[s.key] == 1 ? s.sample.time_us - *seen : period_us;
    const TimeUs periods = std::clamp<TimeUs>((span + period_us / 2) / period_us, 1, most);
    for (TimeUs back = periods - 1; back >= 0; --back) {
      KeyedGpuSample record = s;
      record.sample.time_us -= back * period_us;
      records.push_back(record);
    }
  }
  return records;
}

}  // namespace

std::size_t Series::add_process_gpu_samples(std::uint32_t device,
                                            std::span<const KeyedGpuSample> drain,
                                            std::optional<TimeUs> asked_after) {
  const std::optional<TimeUs> seen = last_seen_us(device);
  std::vector<KeyedGpuSample> fresh;
  std::ranges::copy_if(drain, std::back_inserter(fresh), [seen](const KeyedGpuSample& s) {
    return !seen || s.sample.time_us > *seen;
  });
  // Each process's series must receive its samples oldest first; one time per process at most
  // is kept, so the order among equal times does not matter.
  const auto by_time = [](const KeyedGpuSample& s) { return s.sample.time_us; };
  std::ranges::sort(fresh, {}, by_time);
  const DeviceSeries& series = devices_.try_emplace(device, config_).first->second;
  std::vector<KeyedGpuSample> records = one_per_period(
      fresh, asked_after ? asked_after : seen, series.sample_period_us(), config_.fine_horizon_us);
  std::ranges::stable_sort(records, {}, by_time);
  std::size_t stored = 0;
  for (const KeyedGpuSample& s : records) {
    if (add_process_gpu_sample(device, s.key, s.sample) == Insert::stored) ++stored;
  }
  return stored;
}

namespace {
constexpr std::size_t kPowerPeriodMinSamples = 5;  // a median of at least four gaps
}  // namespace

std::size_t Series::add_power_samples(std::uint32_t device, std::span<const PowerSample> drain) {
  std::vector<PowerSample> sorted(drain.begin(), drain.end());
  std::ranges::sort(sorted, {}, &PowerSample::time_us);
  DeviceSeries& series = devices_.try_emplace(device, config_).first->second;
  // Stamps jitter (15.7 to 24.4 ms around 20 ms on an H200, docs/hardware.md): the period is
  // the median gap of a drain that holds a few, not the shortest gap ever seen.
  if (sorted.size() >= kPowerPeriodMinSamples) {
    std::vector<TimeUs> gaps;
    gaps.reserve(sorted.size() - 1);
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      gaps.push_back(sorted[i].time_us - sorted[i - 1].time_us);
    }
    std::ranges::nth_element(gaps, gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2));
    if (const TimeUs median = gaps[gaps.size() / 2]; median > 0) series.set_power_period_us(median);
  }
  std::size_t stored = 0;
  for (const PowerSample& s : sorted) {
    if (series.add(s) == Insert::stored) ++stored;
  }
  return stored;
}

std::optional<TimeUs> Series::last_power_us(std::uint32_t device) const {
  const DeviceSeries* series = this->device(device);
  if (series == nullptr || series->power().empty()) return std::nullopt;
  return series->power().back().time_us;
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

const HostSeries* Series::host(const ProcessKey& key) const {
  const auto it = hosts_.find(key);
  return it != hosts_.end() ? &it->second : nullptr;
}

void Series::fold_before(TimeUs t) {
  for (auto& [index, series] : devices_) series.fold_before(t);
  for (auto& [key, series] : hosts_) series.fold_before(t, host_tiers_.bucket_us);
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
  const SeriesConfig c = normalised(config);
  const std::size_t pairs = devices * processes_per_device;
  SeriesBudget budget{
      .device_record_bytes = sizeof(DeviceRecord),
      .gpu_record_bytes = sizeof(PackedGpuRecord),
      .media_record_bytes = sizeof(PackedMediaRecord),
      .memory_sample_bytes = sizeof(ProcessMemorySample),
      .host_record_bytes = sizeof(HostRecord),
      .power_sample_bytes = sizeof(PowerSample),
  };
  budget.device_bytes = devices * device_capacity(c) * budget.device_record_bytes;
  budget.power_bytes = devices * power_capacity(c) * budget.power_sample_bytes;
  const std::size_t utilization_record = budget.gpu_record_bytes + budget.media_record_bytes;
  budget.fine_utilization_bytes = pairs * fine_utilization_capacity(c) * utilization_record;
  budget.coarse_utilization_bytes = pairs * coarse_utilization_capacity(c) * utilization_record;
  budget.memory_bytes = pairs * memory_capacity(c) * budget.memory_sample_bytes;
  budget.fine_host_bytes = pairs * fine_host_capacity(c) * budget.host_record_bytes;
  budget.coarse_host_bytes = pairs * coarse_host_capacity(c) * budget.host_record_bytes;
  return budget;
}

}  // namespace gpumeter
