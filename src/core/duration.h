// SPDX-License-Identifier: MIT
// Durations people type, with one grammar for every option, config key and query parameter:
// "100ms", "90" (seconds), "90s", "10m", "2h", "1d".
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace gpumeter {

// A whole number with an optional unit: ms, s (or none), m, h, d. Absent for anything else
// (empty text, signs, fractions, spaces, unknown units) and for durations whose µs overflow
// a signed 64-bit count (over about 292,000 years), so that no caller counting µs since the
// epoch can wrap one into a plausible-looking time.
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

// The same, where a whole number of seconds is needed (time windows, report thresholds):
// absent also for a duration that is not one ("1500ms").
std::optional<std::chrono::seconds> parse_whole_seconds(std::string_view text);

}  // namespace gpumeter
