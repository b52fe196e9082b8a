// SPDX-License-Identifier: MIT
#include "core/host_series.h"

#include <algorithm>
#include <vector>

namespace gpumeter {
namespace {

// The highest of two amounts, either of which may be absent.
std::uint32_t highest_kib(std::uint32_t a, std::uint32_t b) {
  if (a == HostRecord::kAbsentKib) return b;
  if (b == HostRecord::kAbsentKib) return a;
  return std::max(a, b);
}

// Room for the records one reading may store: the end of a flat stretch and the reading.
constexpr std::size_t kPerReading = 2;

}  // namespace

HostSeries::HostSeries(std::size_t fine_capacity, std::size_t coarse_capacity)
    : fine_(std::max(fine_capacity, kPerReading + 1)), coarse_(coarse_capacity) {}

Insert HostSeries::add(const HostSample& sample, const HostTiers& tiers) {
  if (last_read_us_ && sample.time_us <= *last_read_us_) {
    const TwoTier<HostRecord> all = records();
    const bool stored = all.lower_bound(sample.time_us) < all.upper_bound(sample.time_us);
    const bool again = sample.time_us == *last_read_us_ || stored;
    return again ? Insert::duplicate : Insert::out_of_order;
  }
  fold_before(sample.time_us - tiers.fine_horizon_us, tiers.bucket_us);
  const HostRecord record = host_record(sample);
  if (!empty() && records().back().same_figures(record)) {
    last_read_us_ = sample.time_us;
    return Insert::unchanged;
  }
  // A fine tier full before its horizon (readings faster than the interval it was sized for)
  // is thinned early rather than losing its oldest record.
  while (fine_.size() + kPerReading > fine_.capacity()) {
    fold_before(bucket_end(fine_.front().time_us, tiers.bucket_us), tiers.bucket_us);
  }
  if (const auto flat_end = unstored_reading()) fine_.push(*flat_end);
  fine_.push(record);
  last_read_us_ = sample.time_us;
  return Insert::stored;
}

std::optional<HostRecord> HostSeries::unstored_reading() const {
  if (empty() || !last_read_us_ || *last_read_us_ <= records().back().time_us) return std::nullopt;
  HostRecord last = records().back();
  last.time_us = *last_read_us_;
  return last;
}

void HostSeries::fold_before(TimeUs t, TimeUs bucket_us) {
  const TimeUs until = bucket_floor(t, bucket_us);
  if (until <= folded_until_us_) return;
  std::vector<HostRecord> folded;
  for (std::size_t i = 0, n = fine_.upper_bound(until); i < n; ++i) folded.push_back(fine_[i]);
  // A flat stretch that ended by `until` is folded with its last reading, so that the tiers
  // stay in time order.
  if (const auto flat_end = unstored_reading(); flat_end && flat_end->time_us <= until) {
    folded.push_back(*flat_end);
  }
  for (std::size_t i = 0; i < folded.size();) {
    HostRecord kept = folded[i];
    const TimeUs end = bucket_end(kept.time_us, bucket_us);
    for (++i; i < folded.size() && folded[i].time_us <= end; ++i) {
      const std::uint32_t rss = highest_kib(kept.rss_kib, folded[i].rss_kib);
      const std::uint32_t mark = highest_kib(kept.peak_rss_kib, folded[i].peak_rss_kib);
      kept = folded[i];
      kept.rss_kib = rss;
      kept.peak_rss_kib = mark;
    }
    coarse_.push(kept);
  }
  fine_.drop_before(until + 1);
  folded_until_us_ = until;
}

void HostSeries::drop_before(TimeUs t) {
  if (!last_read_us_ || *last_read_us_ < t) {
    coarse_.drop_before(t);
    fine_.drop_before(t);
    return;
  }
  const TwoTier<HostRecord> all = records();
  const std::size_t holding = all.upper_bound(t);  // one past the record that holds at t
  if (holding == 0) return;
  const TimeUs keep = all[holding - 1].time_us;
  coarse_.drop_before(keep);
  fine_.drop_before(keep);
}

}  // namespace gpumeter
