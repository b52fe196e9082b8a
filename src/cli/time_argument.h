// SPDX-License-Identifier: MIT
// Points in time typed on the command line (`gpumeter export csv --since ... --until ...`).
#pragma once

#include <optional>
#include <string_view>

#include "core/model.h"

namespace gpumeter::cli {

// µs since the Unix epoch for:
//   "2026-11-22" (local midnight), "2026-11-22T08:30", "2026-11-22 08:30:15" (local time, TZ);
//   "@1795334400" (Unix seconds);
//   "now";
//   a duration such as "90m", "7d" (that long before `now_us`).
// Absent for anything else, including dates that do not exist (2026-02-30).
std::optional<TimeUs> parse_time_argument(std::string_view text, TimeUs now_us);

}  // namespace gpumeter::cli
