// SPDX-License-Identifier: MIT
// The estimate of the busy time a sample whose period crosses a window edge puts inside the
// window, and the bounds that hold whatever the driver hid inside its periods
// (docs/attribution.md, "Window edges").
#include <algorithm>

#include "core/attribution_parts.h"

namespace gpumeter {
namespace {

// The process has no sample for the period (period_begin - P, period_begin], while the sampler
// was draining and the fine tier still holds that period. A sample of that period is stamped
// near its end, period_begin; half a period of slack absorbs the driver's jitter.
bool idle_before(const FineGpuRecords& records, std::size_t i, TimeUs period_begin_us,
                 TimeUs period_us, TimeUs folded_until_us, std::pair<TimeUs, TimeUs> drained) {
  const TimeUs before = period_begin_us - period_us;
  if (before < folded_until_us || before < drained.first) return false;
  return i == 0 || records[i - 1].time_us <= period_begin_us - period_us / 2;
}

// The process has no sample for the period (t, t + P] after record i's, at t, while the
// sampler was draining: a drained round at or after t + P has seen that period's samples.
bool idle_after(const FineGpuRecords& records, std::size_t i, TimeUs period_us,
                std::pair<TimeUs, TimeUs> drained) {
  const TimeUs t = records[i].time_us;
  if (drained.second < t + period_us) return false;
  return i + 1 == records.size() || records[i + 1].time_us >= t + period_us + period_us / 2;
}

struct EngineBounds {
  std::int64_t lower = 0;
  std::int64_t estimate = 0;
  std::int64_t upper = 0;
};

// One record's busy time inside the window, percent × µs, for one engine's percent; `part` is
// the length of the record's stretch of the window.
EngineBounds bounds_of(std::int64_t percent, TimeUs part, const RecordSpan& span, Window window) {
  const TimeUs inside = std::max<TimeUs>(
      std::min(span.end_us, window.end_us) - std::max(span.begin_us, window.begin_us), 0);
  const TimeUs outside = span.end_us - span.begin_us - inside;
  const std::int64_t busy = percent * span.length_us;
  EngineBounds b{.lower = std::max<std::int64_t>(busy - 100 * outside, 0),
                 .estimate = percent * part,
                 .upper = std::min<std::int64_t>(busy, 100 * inside)};
  if (span.kept_outside_us) {
    // Spread evenly over the inside part and the outside parts kept; the clamp matters only
    // when the record holds more than those parts can (the neighbour was not really idle).
    const TimeUs spread_over = part + *span.kept_outside_us;
    b.estimate = (busy * part + spread_over / 2) / spread_over;
  }
  b.estimate = std::clamp(b.estimate, b.lower, b.upper);
  return b;
}

}  // namespace

std::optional<TimeUs> kept_outside_us(const FineGpuRecords& records, std::size_t i,
                                      TimeUs period_begin_us, TimeUs period_us,
                                      TimeUs folded_until_us, Window window,
                                      const EdgeContext& edges) {
  if (!edges.drained) return std::nullopt;
  const TimeUs before = std::max<TimeUs>(window.begin_us - period_begin_us, 0);
  const TimeUs after = std::max<TimeUs>(records[i].time_us - window.end_us, 0);
  const bool skip_before = before > 0 && idle_before(records, i, period_begin_us, period_us,
                                                     folded_until_us, *edges.drained);
  const bool skip_after = after > 0 && idle_after(records, i, period_us, *edges.drained);
  if (!skip_before && !skip_after) return std::nullopt;
  return (skip_before ? 0 : before) + (skip_after ? 0 : after);
}

void add_bounds(BusyBounds& sums, const ProcessGpuRecord& record, TimeUs part_begin_us,
                TimeUs part_end_us, const RecordSpan& span, Window window) {
  for (std::size_t e = 0; e < kEngineCount; ++e) {
    const EngineBounds b = bounds_of(record.percent[e], part_end_us - part_begin_us, span, window);
    sums.lower[e] += b.lower;
    sums.estimate[e] += b.estimate;
    sums.upper[e] += b.upper;
  }
}

}  // namespace gpumeter
