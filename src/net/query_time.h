// Times and steps in query parameters (`since`, `until`, `step` of the HTTP API).
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "core/model.h"

namespace gpumeter::net {

// µs since the Unix epoch for:
//  - a duration before `now_us`: "90s", "10m", "1h", "7d" (view/duration.h);
//  - "now", "today";
//  - Unix seconds: "@1795334400";
//  - ISO 8601 with a zone, as browsers write it: "2026-10-01T12:00:00Z",
//    "2026-10-01T12:00:00.250+02:00", "2026-10-01T12:00Z";
//  - a local date or time as `report --since` reads it: "2026-10-01", "2026-10-01 12:00".
// Absent for anything else, including dates that do not exist, and durations and Unix
// seconds past 100,000,000,000 s (about 3,200 years), whose µs would overflow.
std::optional<TimeUs> parse_query_time(std::string_view text, TimeUs now_us);

// A step: a whole number of seconds with an optional unit, "10s", "1m", "1h"; at least 1 s,
// at most 100,000,000,000 s.
std::optional<std::chrono::seconds> parse_step(std::string_view text);

// The forms parse_query_time reads, for error messages.
inline constexpr std::string_view kQueryTimeForms =
    "a duration before now (90s, 10m, 1h, 7d), now, @UNIX_SECONDS, an ISO 8601 time with a "
    "zone (2026-10-01T12:00:00Z) or a local date or time (2026-10-01, 2026-10-01 12:00)";

}  // namespace gpumeter::net
