// SPDX-License-Identifier: MIT
// The columns of `GET /api/v1/history`: a window cut into buckets of one step, each holding
// the average, minimum and maximum of the readings that fall in it. Readings come at several
// resolutions (the sampler's samples, the store's samples, its 1-minute and 1-hour
// aggregates); a bucket keeps only those of the finest resolution it got, so that a coarse
// aggregate never dilutes samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::net {

enum class Tier : std::uint8_t { samples, minutes, hours };  // finest first

// One reading: a sample (min = avg = max, weight 1) or an aggregate of `weight` samples.
struct Reading {
  TimeUs time_us = 0;  // the sample's time, or the aggregate's start
  double min = 0;
  double avg = 0;
  double max = 0;
  std::int64_t weight = 1;
  Tier tier = Tier::samples;
};

class HistoryBuckets {
 public:
  // Buckets of `step_us` (> 0) aligned to multiples of it since the Unix epoch, from the one
  // that holds `since_us` up to `until_us` (exclusive).
  HistoryBuckets(TimeUs since_us, TimeUs until_us, TimeUs step_us);

  std::size_t size() const noexcept { return buckets_.size(); }

  // Adds a reading; one outside the window is ignored.
  void add(const Reading& reading);

  // {"time": [unix seconds of each bucket's start], "avg": [...], "min": [...], "max": [...]},
  // null in a bucket without readings.
  view::Json columns() const;

 private:
  struct Bucket {
    Tier tier = Tier::samples;
    std::int64_t weight = 0;  // 0: empty
    double sum = 0;           // Σ avg × weight
    double min = 0;
    double max = 0;
  };
  TimeUs first_us_;
  TimeUs step_us_;
  std::vector<Bucket> buckets_;
};

// Buckets a window of `window_us` would need at `step_us`.
std::int64_t bucket_count(TimeUs since_us, TimeUs until_us, TimeUs step_us);

}  // namespace gpumeter::net
