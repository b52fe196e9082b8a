// SPDX-License-Identifier: MIT
// Insert: what adding one sample to a series did.
#pragma once

#include <cstdint>

namespace gpumeter {

enum class Insert : std::uint8_t {
  stored,
  unchanged,     // same figures as the newest stored sample: only the time it was seen is kept
  duplicate,     // a sample with this time was already taken: dropped
  out_of_order,  // older than the newest sample taken: dropped
  out_of_range,  // a time the series cannot store (core/coarse_record.h): dropped
};

}  // namespace gpumeter
