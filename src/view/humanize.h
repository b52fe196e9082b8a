// SPDX-License-Identifier: MIT
// Numbers and times as a person reads them in a table: "3h 12m", "893MiB / 16.0GiB", "N/A".
#pragma once

#include <string>
#include <string_view>

#include "core/model.h"
#include "view/iso_time.h"

namespace gpumeter::view {

// How every absent value prints in a table.
inline constexpr std::string_view kNotAvailable = "N/A";

// A size in bytes with a binary unit: "0MiB", "893MiB" under 1 GiB (whole MiB), "16.0GiB",
// "1.5TiB" above.
std::string format_bytes(double bytes);

// "893MiB / 16.0GiB"; each side that is absent prints as N/A, both absent as one N/A.
// `separator` goes between the two ("/" for compact messages).
std::string format_memory(const Maybe<double>& used, const Maybe<double>& total,
                          std::string_view separator = " / ");

// An age from a duration in µs, in its two largest units: "42s", "5m 3s", "3h 12m",
// "2d 4h". Negative durations (clock skew) print as "0s".
std::string format_age(TimeUs duration_us);

// A value followed by its unit, rounded to a whole number: "37%", "250W"; N/A when absent.
std::string format_whole(const Maybe<double>& value, std::string_view unit);

// "2024-05-01 14:00:00": the local time zone, to the second.
std::string local_time(TimeUs time_us);

}  // namespace gpumeter::view
