// SPDX-License-Identifier: MIT
#include "net/history_buckets.h"

#include <algorithm>

namespace gpumeter::net {
namespace {

// The largest multiple of `step` not after `t` (floor, also for times before 1970).
TimeUs align_down(TimeUs t, TimeUs step) {
  const TimeUs q = t / step;
  return (t % step != 0 && t < 0 ? q - 1 : q) * step;
}

}  // namespace

std::int64_t bucket_count(TimeUs since_us, TimeUs until_us, TimeUs step_us) {
  if (until_us <= since_us) return 0;
  const TimeUs first = align_down(since_us, step_us);
  return (until_us - first + step_us - 1) / step_us;
}

HistoryBuckets::HistoryBuckets(TimeUs since_us, TimeUs until_us, TimeUs step_us)
    : first_us_(align_down(since_us, step_us)),
      step_us_(step_us),
      buckets_(static_cast<std::size_t>(bucket_count(since_us, until_us, step_us))) {}

void HistoryBuckets::add(const Reading& reading) {
  if (reading.time_us < first_us_ || reading.weight <= 0) return;
  const auto index = static_cast<std::size_t>((reading.time_us - first_us_) / step_us_);
  if (index >= buckets_.size()) return;
  Bucket& bucket = buckets_[index];
  if (bucket.weight > 0 && reading.tier > bucket.tier) return;
  if (bucket.weight == 0 || reading.tier < bucket.tier) {
    bucket = Bucket{.tier = reading.tier, .min = reading.min, .max = reading.max};
  }
  bucket.weight += reading.weight;
  bucket.sum += reading.avg * static_cast<double>(reading.weight);
  bucket.min = std::min(bucket.min, reading.min);
  bucket.max = std::max(bucket.max, reading.max);
}

view::Json HistoryBuckets::columns() const {
  view::Json time = view::Json::array();
  view::Json avg = view::Json::array();
  view::Json min = view::Json::array();
  view::Json max = view::Json::array();
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    time.push_back((first_us_ + static_cast<TimeUs>(i) * step_us_) / 1'000'000);
    const Bucket& bucket = buckets_[i];
    const bool empty = bucket.weight == 0;
    avg.push_back(empty ? view::Json(nullptr)
                        : view::Json(bucket.sum / static_cast<double>(bucket.weight)));
    min.push_back(empty ? view::Json(nullptr) : view::Json(bucket.min));
    max.push_back(empty ? view::Json(nullptr) : view::Json(bucket.max));
  }
  return view::Json{{"time", std::move(time)},
                    {"avg", std::move(avg)},
                    {"min", std::move(min)},
                    {"max", std::move(max)}};
}

}  // namespace gpumeter::net
