// SPDX-License-Identifier: MIT
// Times typed for a report (`--since`, `--until`) and the calendar periods that reports and
// quotas count in. Everything a person sees or types is in the local time zone (TZ); times
// are µs since the Unix epoch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/model.h"

namespace gpumeter::view {

// A point in time as typed on the command line, in local time:
//  - a date "2026-10-01" (its midnight), a month "2026-10" (its first day's midnight);
//  - a date and time "2026-10-01 12:00", "2026-10-01T12:00", with optional ":SS";
//  - "today" (midnight), "now";
//  - a duration before `now_us`, as parse_duration reads it: "30d", "12h", "90m".
// Absent for anything else, including dates that do not exist ("2026-02-30"), and durations
// past 100,000,000,000 s (about 3,200 years), whose µs would overflow.
std::optional<TimeUs> parse_report_time(std::string_view text, TimeUs now_us);

enum class CalendarPeriod : std::uint8_t { hour, day, week, month };

// The start of the local period that holds `time_us`. Weeks begin on Monday (ISO 8601).
TimeUs period_start(CalendarPeriod period, TimeUs time_us);

// The start of the period after the one that starts at `start_us` (local time: a day across a
// daylight-saving change lasts 23 or 25 hours).
TimeUs next_period_start(CalendarPeriod period, TimeUs start_us);

// "2026-11-01 00:00": local time to the minute, for headers and messages.
std::string local_minute(TimeUs time_us);

}  // namespace gpumeter::view
