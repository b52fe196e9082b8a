// SPDX-License-Identifier: MIT
#include "store/buckets.h"

#include <algorithm>

namespace gpumeter::store {

std::vector<BucketShare> spread(TimeUs begin_us, TimeUs end_us, TimeUs size_us) {
  if (begin_us == end_us) return {{bucket_start(begin_us, size_us), 1.0}};
  const auto length = static_cast<double>(end_us - begin_us);
  std::vector<BucketShare> shares;
  for (TimeUs t = begin_us; t < end_us;) {
    const TimeUs bucket = bucket_start(t, size_us);
    const TimeUs next = std::min(bucket + size_us, end_us);
    shares.push_back({bucket, static_cast<double>(next - t) / length});
    t = next;
  }
  return shares;
}

}  // namespace gpumeter::store
