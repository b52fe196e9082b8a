// SPDX-License-Identifier: MIT
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/attribution_parts.h"
#include "core/step_sum.h"

namespace gpumeter {
namespace {

// A raw record covers the driver period that ends at its time, but never reaches back past the
// previous record of the same process (so a measured period that is a little too long does
// not count time twice), nor into the time the coarse tier accounts for (which took the part of
// the period before it: for the bounds, the record's busy time may lie anywhere in its period).
void append_fine(const UtilizationSeries& series, Window window, TimeUs period_us, bool in_set,
                 const EdgeContext& edges, BusyBounds* bounds, std::vector<Segment>& out) {
  const FineGpuRecords& records = series.fine();
  for (std::size_t i = records.upper_bound(window.begin_us);
       i < records.size() && records[i].time_us - period_us < window.end_us; ++i) {
    const TimeUs time = records[i].time_us;
    const TimeUs period_begin =
        i > 0 ? std::max(time - period_us, records[i - 1].time_us) : time - period_us;
    const TimeUs start = std::max(period_begin, series.folded_until_us());
    const Segment segment{.begin_us = std::max(start, window.begin_us),
                          .end_us = std::min(time, window.end_us),
                          .record = records[i],
                          .in_set = in_set};
    if (segment.begin_us >= segment.end_us) continue;
    out.push_back(segment);
    if (!in_set || bounds == nullptr) continue;
    const RecordSpan span{
        .length_us = time - start,
        .begin_us = period_begin,
        .end_us = time,
        .kept_outside_us =
            kept_outside_us(records, i, start, period_us, series.folded_until_us(), window, edges)};
    add_bounds(*bounds, segment.record, segment.begin_us, segment.end_us, span, window);
  }
}

// A coarse record covers exactly its bucket. For the bounds, its span is a driver period wider
// at each end that meets a busy neighbouring bucket, so buckets next to the window whose span
// reaches into it count there too.
void append_coarse(const UtilizationSeries& series, Window window, TimeUs bucket_us,
                   TimeUs period_us, bool in_set, BusyBounds* bounds, std::vector<Segment>& out) {
  const CoarseGpuRecords& records = series.coarse();
  const bool bounded = in_set && bounds != nullptr;
  const TimeUs reach = bounded ? period_us : 0;
  for (std::size_t i = records.upper_bound(window.begin_us - reach); i < records.size(); ++i) {
    const ProcessGpuRecord record = records[i];
    const TimeUs begin = record.time_us - bucket_us;
    if (begin - reach >= window.end_us) break;
    const Segment segment{.begin_us = std::max(begin, window.begin_us),
                          .end_us = std::min(record.time_us, window.end_us),
                          .record = record,
                          .in_set = in_set,
                          .coarse = true};
    const bool overlaps = segment.begin_us < segment.end_us;
    if (overlaps) out.push_back(segment);
    if (!bounded) continue;
    // Folding splits a raw period that straddles a bucket's end between the two buckets, so
    // busy time may belong a period beyond either end, but only towards a neighbouring bucket
    // that has a record: had it none, its part of such a period rounded to 0 % (at most half
    // a percent of a bucket, the tier's own rounding).
    const bool busy_before = i > 0 && records[i - 1].time_us == begin;
    const bool busy_after =
        i + 1 < records.size() && records[i + 1].time_us == record.time_us + bucket_us;
    const RecordSpan span{.length_us = bucket_us,
                          .begin_us = begin - (busy_before ? period_us : 0),
                          .end_us = record.time_us + (busy_after ? period_us : 0)};
    const TimeUs part_end = overlaps ? segment.end_us : segment.begin_us;
    add_bounds(*bounds, record, segment.begin_us, part_end, span, window);
  }
}

// The first and last times the sampler drained the device's per-process samples.
std::optional<std::pair<TimeUs, TimeUs>> drained_span(const RingBuffer<DeviceRecord>& samples) {
  std::size_t first = 0;
  while (first < samples.size() && !samples[first].processes_drained()) ++first;
  if (first == samples.size()) return std::nullopt;
  std::size_t last = samples.size() - 1;
  while (!samples[last].processes_drained()) --last;
  return std::pair{samples[first].time_us, samples[last].time_us};
}

Confidence confidence_of(const DeviceSeries& device, Window window, TimeUs period_us) {
  Confidence confidence{.sample_period_us = period_us,
                        .shorter_than_sample_period = window.length_us() < period_us};
  if (const auto span = drained_span(device.samples())) {
    const TimeUs covered =
        std::min(window.end_us, span->second) - std::max(window.begin_us, span->first);
    confidence.coverage =
        static_cast<double>(std::max<TimeUs>(covered, 0)) / static_cast<double>(window.length_us());
  }
  if (window.begin_us < device.coarse_until_us()) {
    confidence.coarse_bucket_us = device.bucket_us();
    confidence.shorter_than_coarse_bucket = window.length_us() < device.bucket_us();
  }
  return confidence;
}

// The set's highest summed percent of each engine in one period. The driver stamps the
// samples of one period with its end, so the set's raw records of a period share their time,
// as its coarse records of one bucket do. A coarse record counts with its highest raw SM
// percent (the other engines' peaks are not kept; their bucket averages stand in for them).
std::int64_t peak_in(const Segment& segment, std::size_t engine) {
  const bool sm = engine == static_cast<std::size_t>(Engine::sm);
  return segment.coarse && sm ? segment.record.peak_sm : segment.record.percent[engine];
}

PerEngine peak_percent_of(std::span<const Segment> segments) {
  std::vector<const Segment*> in_set;
  for (const Segment& s : segments) {
    if (s.in_set) in_set.push_back(&s);
  }
  const auto period = [](const Segment* s) { return std::pair(s->coarse, s->record.time_us); };
  std::ranges::sort(in_set, {}, period);
  PerEngine peak{};
  for (std::size_t i = 0; i < in_set.size();) {
    PerEngine sum{};
    const auto current = period(in_set[i]);
    for (; i < in_set.size() && period(in_set[i]) == current; ++i) {
      for (std::size_t e = 0; e < kEngineCount; ++e) sum[e] += peak_in(*in_set[i], e);
    }
    for (std::size_t e = 0; e < kEngineCount; ++e) peak[e] = std::max(peak[e], sum[e]);
  }
  return peak;
}

double seconds(std::int64_t percent_us) {
  return static_cast<double>(percent_us) / 100.0 / kUsPerSecond;
}

std::array<EngineUse, kEngineCount> engines_of(std::span<const Segment> segments,
                                               const BusyBounds& busy, EngineMask reported,
                                               double coverage, Unavailable undrained,
                                               Window window) {
  const PerEngine peak = peak_percent_of(segments);
  std::array<EngineUse, kEngineCount> engines;
  const double window_s = static_cast<double>(window.length_us()) / kUsPerSecond;
  for (std::size_t e = 0; e < kEngineCount; ++e) {
    const auto engine = static_cast<Engine>(e);
    if (coverage <= 0.0 || (reported & engine_bit(engine)) == 0) {
      const auto absent = std::unexpected(coverage <= 0.0 ? undrained : Unavailable::not_supported);
      engines[e] = {absent, absent, absent, absent, absent, absent, absent};
    } else {
      const double busy_s = seconds(busy.estimate[e]);
      const double lower_s = seconds(busy.lower[e]);
      const double upper_s = seconds(busy.upper[e]);
      engines[e] = {.busy_seconds = busy_s,
                    .average_percent = 100.0 * busy_s / window_s,
                    .peak_percent = static_cast<double>(peak[e]),
                    .busy_seconds_lower = lower_s,
                    .busy_seconds_upper = upper_s,
                    .average_percent_lower = 100.0 * lower_s / window_s,
                    .average_percent_upper = 100.0 * upper_s / window_s};
    }
  }
  return engines;
}

// The SM bounds' width in percentage points of the window's average.
Maybe<double> sm_bounds_width_pp(const EngineUse& sm) {
  if (!sm.average_percent_lower) return std::unexpected(sm.average_percent_lower.error());
  return *sm.average_percent_upper - *sm.average_percent_lower;
}

// The set's memory at t: a process missing from the device's process list at t holds nothing
// there, which the series can only vouch for while the sampler was reading the list.
Maybe<std::uint64_t> memory_at(std::span<const MemoryRecords* const> buffers,
                               const RingBuffer<DeviceRecord>& samples, TimeUs t) {
  if (samples.empty() || t < samples.front().time_us || t > samples.back().time_us) {
    return std::unexpected(Unavailable::no_data);
  }
  return sum_at(buffers, t, [](const ProcessMemorySample& s) { return s.used_bytes; }).value_or(0);
}

// The memory figures of the processes whose records are `buffers`.
GpuMemoryUse memory_use(std::span<const MemoryRecords* const> buffers,
                        const RingBuffer<DeviceRecord>& samples, Window window) {
  GpuMemoryUse memory{.at_start_bytes = memory_at(buffers, samples, window.begin_us),
                      .at_end_bytes = memory_at(buffers, samples, window.end_us)};
  auto peak = peak_of_sum(buffers, window.begin_us, window.end_us,
                          [](const ProcessMemorySample& s) { return s.used_bytes; });
  // The edges bound the peak from below too, where they are known.
  if (memory.at_start_bytes) peak = std::max(peak.value_or(0), *memory.at_start_bytes);
  if (memory.at_end_bytes) peak = std::max(peak.value_or(0), *memory.at_end_bytes);
  memory.peak_bytes = peak ? Maybe<std::uint64_t>(*peak) : std::unexpected(Unavailable::no_data);
  return memory;
}

// Every process the device's series know, sorted.
std::vector<ProcessKey> keys_on(const DeviceSeries& device) {
  std::vector<ProcessKey> keys;
  for (const auto& [key, series] : device.utilization()) keys.push_back(key);
  for (const auto& [key, series] : device.memory()) keys.push_back(key);
  std::ranges::sort(keys);
  const auto [first, last] = std::ranges::unique(keys);
  keys.erase(first, last);
  return keys;
}

}  // namespace

std::expected<std::vector<ProcessGpuShare>, Error> usage_per_process(const Series& series,
                                                                     std::uint32_t index,
                                                                     Window window) {
  if (window.end_us <= window.begin_us) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, "the window's end must come after its beginning"});
  }
  std::vector<ProcessGpuShare> shares;
  const DeviceSeries* device = series.device(index);
  if (device == nullptr) return shares;
  const TimeUs period_us = device->sample_period_us();
  const double coverage = confidence_of(*device, window, period_us).coverage;
  const std::vector<ProcessKey> keys = keys_on(*device);
  std::vector<Segment> segments;
  std::vector<std::size_t> owners;
  std::vector<std::int64_t> percent_us(keys.size(), 0);
  for (const auto& [key, utilization] : device->utilization()) {
    const auto owner = static_cast<std::size_t>(std::ranges::lower_bound(keys, key) - keys.begin());
    const std::size_t first = segments.size();
    append_coarse(utilization, window, device->bucket_us(), period_us, true, nullptr, segments);
    append_fine(utilization, window, period_us, true, EdgeContext{}, nullptr, segments);
    for (std::size_t i = first; i < segments.size(); ++i) {
      percent_us[owner] +=
          segments[i].record[Engine::sm] * (segments[i].end_us - segments[i].begin_us);
    }
    owners.resize(segments.size(), owner);
  }
  const Maybe<void> drained =
      coverage > 0.0 ? Maybe<void>() : std::unexpected(undrained_reason(device->samples(), window));
  const auto energy = energy_per_process(*device, segments, owners, keys.size(), window, drained);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::array key_set{keys[i]};
    ProcessGpuShare share{.key = keys[i],
                          .peak_memory_bytes = memory_of(*device, key_set, window).peak_bytes};
    share.sm_busy_seconds =
        drained ? Maybe<double>(static_cast<double>(percent_us[i]) / 100.0 / kUsPerSecond)
                : std::unexpected(drained.error());
    share.energy_joules = energy ? Maybe<double>((*energy)[i]) : std::unexpected(energy.error());
    shares.push_back(share);
  }
  return shares;
}

// The set's series are looked up by key, not found by walking every process's: on a GPU where
// processes come and go, the series hold the hundreds that left within the horizon, and the
// figures of each process (usage_per_process) were quadratic in them.
GpuMemoryUse memory_of(const DeviceSeries& device, KeySet keys, Window window) {
  std::vector<const MemoryRecords*> buffers;
  for (const ProcessKey& key : keys) {
    if (const auto it = device.memory().find(key); it != device.memory().end())
      buffers.push_back(&it->second.records());
  }
  return memory_use(buffers, device.samples(), window);
}

Unavailable undrained_reason(const RingBuffer<DeviceRecord>& samples, Window window) {
  // The samples inside the window and the first one after it (which closes the window's last
  // stretch): a reason only when every one of them gives the same, MIG or not supported.
  std::optional<Unavailable> common;
  for (std::size_t i = samples.upper_bound(window.begin_us - 1); i < samples.size(); ++i) {
    const DeviceRecord& sample = samples[i];
    const Unavailable reason = sample.not_drained_reason();
    const bool lasting = reason == Unavailable::mig || reason == Unavailable::not_supported;
    if (sample.processes_drained() || !lasting || (common && *common != reason)) {
      return Unavailable::no_data;
    }
    common = reason;
    if (sample.time_us >= window.end_us) break;
  }
  return common.value_or(Unavailable::no_data);
}

std::vector<Segment> segments_of(const DeviceSeries& device, KeySet keys, Window window,
                                 TimeUs period_us, const EdgeContext& edges, BusyBounds* bounds) {
  std::vector<Segment> segments;
  for (const auto& [key, series] : device.utilization()) {
    const bool in_set = contains(keys, key);
    append_coarse(series, window, device.bucket_us(), period_us, in_set, bounds, segments);
    append_fine(series, window, period_us, in_set, edges, bounds, segments);
  }
  return segments;
}

GpuUsage gpu_usage(const DeviceSeries& device, std::uint32_t index, KeySet keys, Window window,
                   EdgeRule rule) {
  GpuUsage usage{.device = index};
  const TimeUs period_us = device.sample_period_us();
  usage.confidence = confidence_of(device, window, period_us);
  const EdgeContext edges{.drained = rule == EdgeRule::markers ? drained_span(device.samples())
                                                               : std::nullopt};
  BusyBounds busy;
  const std::vector<Segment> segments = segments_of(device, keys, window, period_us, edges, &busy);
  const auto reported = static_cast<EngineMask>(device.engines_reported() | kClassicEngines);
  const Unavailable undrained = undrained_reason(device.samples(), window);
  usage.engines =
      engines_of(segments, busy, reported, usage.confidence.coverage, undrained, window);
  usage.confidence.sm_bounds_width_pp = sm_bounds_width_pp(usage[Engine::sm]);
  usage.memory = memory_of(device, keys, window);
  const Maybe<void> drained =
      usage.confidence.coverage > 0.0 ? Maybe<void>() : std::unexpected(undrained);
  // Segments carry the proportional rates: the split's parts add up to the device's energy.
  usage.energy = split_energy(device, segments, window, drained);
  return usage;
}

}  // namespace gpumeter
