// SPDX-License-Identifier: MIT
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
// Absent for anything else, including dates that do not exist, and for any time outside
// [kEarliestQueryTimeUs, kLatestQueryTimeUs]: a duration or a Unix time far out is refused at
// once, before any arithmetic on it could overflow or a window could grow without bound.
std::optional<TimeUs> parse_query_time(std::string_view text, TimeUs now_us);

// The times a query may name: from the Unix epoch (the store holds nothing earlier) to the
// end of year 9999 (the last the date forms can write), in µs.
inline constexpr TimeUs kEarliestQueryTimeUs = 0;
inline constexpr TimeUs kLatestQueryTimeUs =
    253'402'300'799'999'999;  // 9999-12-31T23:59:59.999999Z
inline constexpr std::string_view kQueryTimeRange = "1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z";

// A step: a whole number of seconds with an optional unit, "10s", "1m", "1h"; at least 1 s,
// at most 100,000,000,000 s.
std::optional<std::chrono::seconds> parse_step(std::string_view text);

// The forms parse_query_time reads, for error messages.
inline constexpr std::string_view kQueryTimeForms =
    "a duration before now (90s, 10m, 1h, 7d), now, @UNIX_SECONDS, an ISO 8601 time with a "
    "zone (2026-10-01T12:00:00Z) or a local date or time (2026-10-01, 2026-10-01 12:00)";

}  // namespace gpumeter::net
