// SPDX-License-Identifier: MIT
// One device's processes indexed by their lives, so that what is alive at a moment, or during
// a sample period, is found without walking every process the scenario ever ran: a churn
// scenario lists tens of thousands (bench/soak.py), and each NVML call asks several times.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/scenario.h"

namespace gpumeter::sim {

class LifeIndex {
 public:
  // `processes` all point into one Scenario::processes, in scenario order.
  explicit LifeIndex(const std::vector<const ProcessSpec*>& processes);

  // The processes alive at some time in [a, b) (with a == b: alive at a), in scenario order.
  std::vector<const ProcessSpec*> overlapping(double a, double b) const;
  // The earliest start strictly after t; infinity when none.
  double next_start(double t) const;

 private:
  // Lives are filed under the fixed-width time buckets they touch; a life touching more than
  // kMaxBuckets (long or endless: most processes of a static scenario) is checked on every
  // query instead, which keeps the index's size proportional to the process count.
  static constexpr double kBucketS = 8.0;
  static constexpr std::int64_t kMaxBuckets = 64;
  static std::int64_t bucket_of(double t);

  std::vector<const ProcessSpec*> long_lived_;
  std::unordered_map<std::int64_t, std::vector<const ProcessSpec*>> buckets_;
  std::vector<double> starts_;  // sorted
};

}  // namespace gpumeter::sim
