// SPDX-License-Identifier: MIT
#include "core/utilization_series.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/tiers.h"

namespace gpumeter {
namespace {

// The use one bucket collects while folding: percent × µs per engine.
struct BucketSum {
  TimeUs end_us = 0;
  std::array<std::int64_t, kEngineCount> percent_us{};
  EngineMask reported = 0;
  std::uint8_t peak_sm = 0;

  bool used() const {
    return std::ranges::any_of(percent_us, [](std::int64_t v) { return v > 0; });
  }
};

// Adds the rates of `record` over (from, to] to the buckets that stretch covers. Stretches
// arrive in time order, so only the newest bucket can grow.
void add_stretch(std::vector<BucketSum>& sums, TimeUs from, TimeUs to,
                 const ProcessGpuRecord& record, TimeUs bucket_us) {
  for (TimeUs at = from; at < to;) {
    const TimeUs end = bucket_end(at + 1, bucket_us);
    const TimeUs until = std::min(end, to);
    if (sums.empty() || sums.back().end_us != end) sums.push_back({.end_us = end});
    BucketSum& sum = sums.back();
    for (std::size_t e = 0; e < kEngineCount; ++e) {
      sum.percent_us[e] += std::int64_t{record.percent[e]} * (until - at);
    }
    sum.reported = static_cast<EngineMask>(sum.reported | record.reported);
    sum.peak_sm = std::max(sum.peak_sm, record.peak_sm);
    at = until;
  }
}

// The bucket's average percent per engine, rounded to the nearest (halves up).
ProcessGpuRecord coarse_record(const BucketSum& sum, TimeUs bucket_us) {
  ProcessGpuRecord record{.time_us = sum.end_us, .reported = sum.reported, .peak_sm = sum.peak_sm};
  for (std::size_t e = 0; e < kEngineCount; ++e) {
    const std::int64_t average = (sum.percent_us[e] + bucket_us / 2) / bucket_us;
    record.percent[e] = static_cast<std::uint8_t>(std::min<std::int64_t>(average, 100));
  }
  return record;
}

}  // namespace

UtilizationSeries::UtilizationSeries(std::size_t fine_capacity, std::size_t coarse_capacity)
    : fine_(fine_capacity), coarse_(coarse_capacity) {}

Insert UtilizationSeries::add(const ProcessGpuRecord& record, TimeUs period_us,
                              const UtilizationTiers& tiers) {
  if (!fine_.empty() && record.time_us <= fine_.back().time_us) {
    return fine_.contains(record.time_us) ? Insert::duplicate : Insert::out_of_order;
  }
  if (record.time_us <= folded_until_us_) return Insert::out_of_order;
  if (!in_numbered_bucket(record.time_us, tiers.bucket_us)) return Insert::out_of_range;
  fold_before(record.time_us - tiers.fine_horizon_us, period_us, tiers.bucket_us);
  // A fine tier full before its horizon (a driver reporting faster than the shortest period
  // it was sized for) folds early rather than losing its oldest record.
  if (fine_.size() == fine_.capacity()) {
    fold_before(bucket_end(fine_.front().time_us, tiers.bucket_us), period_us, tiers.bucket_us);
  }
  if (!fine_.push(record)) {
    // Only with a fine horizon longer than the tier can span (71 minutes): fold early rather
    // than lose the record. What stays raw then lies within one bucket of it.
    fold_before(record.time_us - 1, period_us, tiers.bucket_us);
    fine_.push(record);
  }
  return Insert::stored;
}

void UtilizationSeries::fold_before(TimeUs t, TimeUs period_us, TimeUs bucket_us) {
  const TimeUs until = bucket_floor(t, bucket_us);
  if (until <= folded_until_us_) return;
  std::vector<BucketSum> sums;
  // No stretch reaches back past this, nor before the epoch, where buckets have no number.
  TimeUs previous = std::max<TimeUs>(folded_until_us_, 0);
  const std::size_t folded = fine_.upper_bound(until);
  for (std::size_t i = 0; i < folded; ++i) {
    const ProcessGpuRecord record = fine_[i];
    add_stretch(sums, std::max(record.time_us - period_us, previous), record.time_us, record,
                bucket_us);
    previous = record.time_us;
  }
  if (folded < fine_.size()) {
    // The next record's period may begin before `until`: that part is folded too, and the
    // record stays raw for the rest (attribution starts it at folded_until_us()).
    const ProcessGpuRecord next = fine_[folded];
    const TimeUs from = std::max(next.time_us - period_us, previous);
    if (from < until) add_stretch(sums, from, until, next, bucket_us);
  }
  // Every bucket here ends after the epoch and at or before the bucket of a record add()
  // took, so each has a number and push() stores it.
  for (const BucketSum& sum : sums) {
    if (sum.used()) coarse_.push(coarse_record(sum, bucket_us), bucket_us);
  }
  fine_.drop_before(until + 1);
  folded_until_us_ = until;
}

void UtilizationSeries::drop_before(TimeUs t) {
  fine_.drop_before(t);
  coarse_.drop_before(t);
}

}  // namespace gpumeter
