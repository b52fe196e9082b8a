// SPDX-License-Identifier: MIT
// Quotas of GPU-hours per user and calendar period, read from a small line format
// (docs/report.md):
//
//   # GPU-hours per user; `default` applies to everyone not listed
//   default = 100h per month
//   alice   = 500h per month
//   bob     = 20h per day
//   carol   = 40h per week
//   root    = unlimited
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "view/report_time.h"

namespace gpumeter::view {

struct Quota {
  double gpu_hours = 0;                           // the most GPU-hours allowed per period
  CalendarPeriod period = CalendarPeriod::month;  // day, week or month (never hour)

  friend bool operator==(const Quota&, const Quota&) = default;
};

// A whole quota file. An absent Quota is "unlimited".
struct QuotaFile {
  std::string name;                                   // the file, as named in messages
  std::optional<std::optional<Quota>> default_quota;  // the `default` line, if any
  std::map<std::string, std::optional<Quota>, std::less<>> users;

  // The user's own line, else the default; absent when neither limits the user.
  std::optional<Quota> quota_for(std::string_view user) const;
};

// Parses the text of a quota file. Each line is blank, a comment (from `#` to the end of the
// line), or `NAME = HOURSh per day|week|month`, or `NAME = unlimited`. NAME is `default` or a
// user name (letters, digits, `.`, `_`, `-`, and a final `$`); HOURS is a non-negative number,
// fractions allowed. `name` is used in messages.
// Errors: invalid_input "NAME:LINE: ..." saying what was expected there, for a malformed
// line and for a user (or `default`) given twice.
std::expected<QuotaFile, Error> parse_quota_file(std::string_view text, const std::string& name);

// The largest quota file read: a line per user, so 1 MiB is tens of thousands of users.
inline constexpr std::size_t kMaxQuotaFileBytes = std::size_t{1} << 20U;

// Reads and parses the file. Errors: invalid_input when it cannot be read (naming the path and
// the reason), is larger than kMaxQuotaFileBytes, or does not parse.
std::expected<QuotaFile, Error> read_quota_file(const std::filesystem::path& path);

// "500h/month", for tables.
std::string to_string(const Quota& quota);

// "day", "week", "month", "hour".
std::string_view period_name(CalendarPeriod period);

}  // namespace gpumeter::view
