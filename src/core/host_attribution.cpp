// SPDX-License-Identifier: MIT
#include <algorithm>
#include <optional>

#include "core/attribution_parts.h"
#include "core/step_sum.h"

namespace gpumeter {
namespace {

using HostView = TwoTier<HostRecord>;

std::optional<std::uint64_t> rss_of(const HostRecord& r) {
  return r.rss_bytes();
}

std::optional<std::uint64_t> high_water_of(const HostRecord& r) {
  return r.peak_rss_bytes();
}

// Cumulative CPU time at one instant, µs.
struct CpuAt {
  double user_us = 0.0;
  double system_us = 0.0;
  bool bracketed = true;  // false: taken from the nearest reading, which lies on one side
};

CpuAt between(const HostRecord& a, const HostRecord& b, TimeUs t) {
  const double f = static_cast<double>(t - a.time_us) / static_cast<double>(b.time_us - a.time_us);
  const auto lerp = [f](std::int64_t x, std::int64_t y) {
    return static_cast<double>(x) + f * static_cast<double>(y - x);
  };
  return {lerp(a.cpu_user_us, b.cpu_user_us), lerp(a.cpu_system_us, b.cpu_system_us)};
}

CpuAt reading(const HostRecord& s, bool bracketed) {
  return {static_cast<double>(s.cpu_user_us), static_cast<double>(s.cpu_system_us), bracketed};
}

// The counters at t, interpolated between records. After the newest record they hold until the
// last reading, which found them unchanged. Before the first record, a known start time
// anchors them: both counters are 0 when a process starts. Precondition: non-empty.
CpuAt cpu_at(const HostSeries& series, TimeUs start_time_us, TimeUs t) {
  const HostView records = series.records();
  const std::size_t after = records.upper_bound(t);
  if (after == records.size()) {
    return reading(records.back(), t <= series.last_read_us().value_or(records.back().time_us));
  }
  if (after > 0) return between(records[after - 1], records[after], t);
  if (start_time_us <= 0) return reading(records.front(), false);
  if (t < start_time_us) return {};
  return between(HostRecord{.time_us = start_time_us}, records.front(), t);
}

// The first high-water mark read inside the window, for a process whose mark was not read
// before it (the sampler reads the mark only while a task or a run follows the process).
std::optional<std::uint64_t> first_mark_in(const HostView& records, Window window) {
  for (std::size_t i = records.upper_bound(window.begin_us);
       i < records.size() && records[i].time_us <= window.end_us; ++i) {
    if (const auto mark = high_water_of(records[i])) return mark;
  }
  return std::nullopt;
}

// VmHWM catches a peak between two samples: when it rose during the window, the process's
// resident memory reached the new mark within the window (or, at worst, within the sample
// interval before it). A process that started inside the window reached all of it there.
std::optional<std::uint64_t> high_water_in(const HostView& records, TimeUs start_time_us,
                                           Window window) {
  const auto at_end = value_at(records, window.end_us, high_water_of);
  if (!at_end) return std::nullopt;
  if (start_time_us >= window.begin_us) return at_end;
  auto baseline = value_at(records, window.begin_us, high_water_of);
  if (!baseline) baseline = first_mark_in(records, window);
  return baseline && *at_end > *baseline ? at_end : std::nullopt;
}

std::optional<std::uint64_t> peak_rss(std::span<const HostView* const> buffers,
                                      KeySet keys_of_buffers, Window window) {
  std::optional<std::uint64_t> peak = peak_of_sum(buffers, window.begin_us, window.end_us, rss_of);
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const auto mark = high_water_in(*buffers[i], keys_of_buffers[i].start_time_us, window);
    if (mark) peak = std::max(peak.value_or(0), *mark);
  }
  return peak;
}

}  // namespace

HostUsage host_usage(const Series& series, KeySet keys, Window window) {
  HostUsage usage{.complete = true};
  std::vector<HostView> views;
  std::vector<ProcessKey> sampled;
  double user_us = 0.0;
  double system_us = 0.0;
  for (const ProcessKey& key : keys) {
    const HostSeries* host = series.host(key);
    if (host == nullptr || host->empty()) {
      usage.complete = false;
      continue;
    }
    views.push_back(host->records());
    sampled.push_back(key);
    const CpuAt begin = cpu_at(*host, key.start_time_us, window.begin_us);
    const CpuAt end = cpu_at(*host, key.start_time_us, window.end_us);
    user_us += end.user_us - begin.user_us;
    system_us += end.system_us - begin.system_us;
    usage.complete = usage.complete && begin.bracketed && end.bracketed;
  }
  if (views.empty()) {
    const auto none = std::unexpected(Unavailable::no_data);
    return {none, none, none, false};
  }
  usage.cpu_user_seconds = user_us / kUsPerSecond;
  usage.cpu_system_seconds = system_us / kUsPerSecond;
  std::vector<const HostView*> buffers;
  buffers.reserve(views.size());
  for (const HostView& view : views) buffers.push_back(&view);
  const auto peak = peak_rss(buffers, sampled, window);
  usage.peak_rss_bytes = peak ? Maybe<std::uint64_t>(*peak) : std::unexpected(Unavailable::no_data);
  return usage;
}

}  // namespace gpumeter
