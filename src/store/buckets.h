// SPDX-License-Identifier: MIT
// Time buckets of the tiers: a minute and an hour, aligned on the Unix epoch (so on UTC), and
// how an interval spreads over them. Internal to src/store.
#pragma once

#include <vector>

#include "core/model.h"

namespace gpumeter::store {

// The start of the bucket of `size_us` that holds `time_us` (floor, also for negative times).
constexpr TimeUs bucket_start(TimeUs time_us, TimeUs size_us) noexcept {
  const TimeUs remainder = time_us % size_us;
  return remainder < 0 ? time_us - remainder - size_us : time_us - remainder;
}

// One bucket's part of an interval: the fraction of the interval's length that falls in it.
struct BucketShare {
  TimeUs bucket_us = 0;
  double fraction = 0.0;
};

// How [begin_us, end_us) spreads over buckets of `size_us`, in time order; fractions add up to
// 1. An empty interval (begin == end) lies wholly in the bucket of begin_us.
// Precondition: begin_us <= end_us, size_us > 0.
std::vector<BucketShare> spread(TimeUs begin_us, TimeUs end_us, TimeUs size_us);

}  // namespace gpumeter::store
