// Durations typed on the command line: "90" (seconds), "90s", "10m", "2h", "1d".
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace gpumeter::view {

// A whole number with an optional unit suffix (s, m, h, d; none means seconds). Absent for
// anything else: empty text, signs, fractions, unknown units, and durations whose µs overflow a
// signed 64-bit count (over about 292,000 years).
std::optional<std::chrono::seconds> parse_duration(std::string_view text);

}  // namespace gpumeter::view
