// SPDX-License-Identifier: MIT
#include "sim/life_index.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpumeter::sim {

std::int64_t LifeIndex::bucket_of(double t) {
  return static_cast<std::int64_t>(std::floor(t / kBucketS));
}

LifeIndex::LifeIndex(const std::vector<const ProcessSpec*>& processes) {
  starts_.reserve(processes.size());
  for (const ProcessSpec* p : processes) {
    starts_.push_back(p->start_s);
    const bool endless = !std::isfinite(p->end_s) || !std::isfinite(p->start_s);
    if (endless || bucket_of(p->end_s) - bucket_of(p->start_s) >= kMaxBuckets) {
      long_lived_.push_back(p);
      continue;
    }
    for (std::int64_t k = bucket_of(p->start_s); k <= bucket_of(p->end_s); ++k)
      buckets_[k].push_back(p);
  }
  std::ranges::sort(starts_);
}

std::vector<const ProcessSpec*> LifeIndex::overlapping(double a, double b) const {
  const auto overlaps = [a, b](const ProcessSpec* p) {
    return a == b ? p->alive(a) : p->start_s < b && a < p->end_s;
  };
  std::vector<const ProcessSpec*> out;
  for (const ProcessSpec* p : long_lived_) {
    if (overlaps(p)) out.push_back(p);
  }
  const auto add_from = [&](const std::vector<const ProcessSpec*>& filed) {
    for (const ProcessSpec* p : filed) {
      if (overlaps(p)) out.push_back(p);
    }
  };
  const double first = std::floor(a / kBucketS);
  const double last = std::floor(b / kBucketS);
  if (last - first > static_cast<double>(buckets_.size())) {
    for (const auto& [bucket, filed] : buckets_) add_from(filed);  // a window wider than all
  } else {
    for (auto k = static_cast<std::int64_t>(first); k <= static_cast<std::int64_t>(last); ++k) {
      if (const auto it = buckets_.find(k); it != buckets_.end()) add_from(it->second);
    }
  }
  // Scenario order is address order: every process lives in one vector. A life spanning
  // several buckets was found once in each.
  std::ranges::sort(out);
  out.erase(std::ranges::unique(out).begin(), out.end());
  return out;
}

double LifeIndex::next_start(double t) const {
  const auto it = std::ranges::upper_bound(starts_, t);
  return it == starts_.end() ? std::numeric_limits<double>::infinity() : *it;
}

}  // namespace gpumeter::sim
