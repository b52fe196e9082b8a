// SPDX-License-Identifier: MIT
#include "recorder/csv_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "recorder/windows.h"

namespace gpumeter::recorder {
namespace {

std::string quoted_if_needed(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (const char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

}  // namespace

std::string csv_line(const CsvRow& row) {
  return fmt::format("{},{},{},{},{}\n", floor_multiple(row.timestamp_us, 1'000'000) / 1'000'000,
                     quoted_if_needed(row.user), row.pid, row.gpu,
                     row.usage_percent ? std::to_string(*row.usage_percent) : std::string{});
}

std::string csv_user(const std::optional<std::string>& user,
                     const std::optional<std::uint32_t>& uid) {
  if (user) return *user;
  if (uid) return std::to_string(*uid);
  return {};
}

void CsvIntervals::add(const CsvUse& use) {
  const Key key{floor_multiple(use.begin_us, interval_us_), use.gpu, use.pid, use.start_time_us};
  Sum& sum = sums_[key];
  if (!use.user.empty()) sum.user = use.user;
  sum.held_seconds += use.held_seconds;
  sum.sm_busy_seconds += use.sm_busy_seconds;
  sum.sm_unknown_seconds += use.sm_unknown_seconds;
}

std::vector<CsvRow> CsvIntervals::take(std::map<Key, Sum>::iterator end) {
  const double interval_s = static_cast<double>(interval_us_) / 1e6;
  std::vector<CsvRow> rows;
  for (auto it = sums_.begin(); it != end; ++it) {
    const auto& [bucket, gpu, pid, start] = it->first;
    const Sum& sum = it->second;
    if (sum.held_seconds <= 0 && sum.sm_busy_seconds <= 0) continue;
    const double percent = 100.0 * sum.sm_busy_seconds / interval_s;
    std::optional<int> usage = static_cast<int>(std::clamp(std::lround(percent), 0L, 100L));
    if (sum.sm_unknown_seconds > 0) usage.reset();  // part of it unknown: no figure at all
    rows.push_back(
        {.timestamp_us = bucket, .user = sum.user, .pid = pid, .gpu = gpu, .usage_percent = usage});
  }
  sums_.erase(sums_.begin(), end);
  return rows;
}

std::vector<CsvRow> CsvIntervals::take_until(TimeUs until_us) {
  // Intervals that begin at or before until - interval end at or before until.
  constexpr TimeUs kLowest = std::numeric_limits<TimeUs>::min();
  return take(sums_.lower_bound(Key{until_us - interval_us_ + 1, 0, 0, kLowest}));
}

std::vector<CsvRow> CsvIntervals::take_all() {
  return take(sums_.end());
}

}  // namespace gpumeter::recorder
