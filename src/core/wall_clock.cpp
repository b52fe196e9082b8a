// SPDX-License-Identifier: MIT
#include "core/wall_clock.h"

#include <chrono>

namespace gpumeter {

TimeUs wall_clock_us() noexcept {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count();
}

}  // namespace gpumeter
