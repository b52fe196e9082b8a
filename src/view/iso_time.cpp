// SPDX-License-Identifier: MIT
#include "view/iso_time.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>

namespace gpumeter::view {

std::string iso8601_utc(TimeUs time_us) {
  const auto seconds = static_cast<std::time_t>(time_us / 1'000'000);
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(seconds));
}

}  // namespace gpumeter::view
