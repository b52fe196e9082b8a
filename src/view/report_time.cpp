// SPDX-License-Identifier: MIT
#include "view/report_time.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "core/duration.h"

namespace gpumeter::view {
namespace {

std::tm local_tm(TimeUs time_us) {
  const std::time_t seconds = static_cast<std::time_t>(time_us / kSecondUs);
  std::tm fields{};
  localtime_r(&seconds, &fields);
  return fields;
}

// mktime() normalises out-of-range fields (the 32nd day is the next month's first), which is
// what period arithmetic wants; -1 lets it decide whether daylight saving time applies.
TimeUs from_local(std::tm fields) {
  fields.tm_isdst = -1;
  return static_cast<TimeUs>(std::mktime(&fields)) * kSecondUs;
}

// Reads the fixed-width fields of a date, one at a time.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  // `digits` decimal digits (no sign) whose value lies in [low, high], stored in `into`.
  bool field(std::size_t digits, int low, int high, int& into) {
    if (text_.size() < digits) return false;
    int value = 0;
    for (std::size_t i = 0; i < digits; ++i) {
      if (text_[i] < '0' || text_[i] > '9') return false;
      value = value * 10 + (text_[i] - '0');
    }
    if (value < low || value > high) return false;
    text_.remove_prefix(digits);
    into = value;
    return true;
  }
  bool skip(char c) {
    if (text_.empty() || text_.front() != c) return false;
    text_.remove_prefix(1);
    return true;
  }
  bool skip_any(std::string_view set) {
    if (text_.empty() || set.find(text_.front()) == std::string_view::npos) return false;
    text_.remove_prefix(1);
    return true;
  }
  bool done() const { return text_.empty(); }

 private:
  std::string_view text_;
};

// "HH:MM" or "HH:MM:SS" after a date; false when malformed.
bool read_clock(Cursor& cursor, std::tm& fields) {
  if (!cursor.field(2, 0, 23, fields.tm_hour) || !cursor.skip(':') ||
      !cursor.field(2, 0, 59, fields.tm_min)) {
    return false;
  }
  if (cursor.done()) return true;
  return cursor.skip(':') && cursor.field(2, 0, 59, fields.tm_sec) && cursor.done();
}

// "-DD", then optionally " HH:MM[:SS]" or "THH:MM[:SS]"; false when malformed.
bool read_day_and_clock(Cursor& cursor, std::tm& fields) {
  if (!cursor.skip('-') || !cursor.field(2, 1, 31, fields.tm_mday)) return false;
  if (cursor.done()) return true;
  return cursor.skip_any(" T") && read_clock(cursor, fields);
}

std::optional<TimeUs> parse_local_date(std::string_view text) {
  Cursor cursor(text);
  std::tm fields{};
  int year = 0;
  int month = 0;
  if (!cursor.field(4, 1970, 9999, year) || !cursor.skip('-') || !cursor.field(2, 1, 12, month))
    return std::nullopt;
  fields.tm_year = year - 1900;
  fields.tm_mon = month - 1;
  fields.tm_mday = 1;
  if (!cursor.done() && !read_day_and_clock(cursor, fields)) return std::nullopt;
  const TimeUs time = from_local(fields);
  // A day past the month's end comes back normalised into the next month: refuse it.
  const std::tm check = local_tm(time);
  if (check.tm_mday != fields.tm_mday || check.tm_mon != fields.tm_mon) return std::nullopt;
  return time;
}

}  // namespace

std::optional<TimeUs> parse_report_time(std::string_view text, TimeUs now_us) {
  if (text == "now") return now_us;
  if (text == "today") return period_start(CalendarPeriod::day, now_us);
  if (const auto date = parse_local_date(text)) return date;
  const auto ago = parse_whole_seconds(text);
  // Past 100,000,000,000 s (about 3,200 years) the µs would overflow.
  if (!ago || ago->count() > 100'000'000'000) return std::nullopt;
  return now_us - ago->count() * 1'000'000;
}

TimeUs period_start(CalendarPeriod period, TimeUs time_us) {
  std::tm fields = local_tm(time_us);
  fields.tm_sec = 0;
  fields.tm_min = 0;
  if (period == CalendarPeriod::hour) {
    // An hour is 3600 s everywhere but in zones with half-hour offsets, where local and UTC
    // hours differ: take the local one.
    return from_local(fields);
  }
  fields.tm_hour = 0;
  if (period == CalendarPeriod::week) fields.tm_mday -= (fields.tm_wday + 6) % 7;
  if (period == CalendarPeriod::month) fields.tm_mday = 1;
  return from_local(fields);
}

TimeUs next_period_start(CalendarPeriod period, TimeUs start_us) {
  if (period == CalendarPeriod::hour) return start_us + 3600 * kSecondUs;
  std::tm fields = local_tm(start_us);
  switch (period) {
    case CalendarPeriod::day: fields.tm_mday += 1; break;
    case CalendarPeriod::week: fields.tm_mday += 7; break;
    default: fields.tm_mon += 1; break;
  }
  return from_local(fields);
}

std::string local_minute(TimeUs time_us) {
  return fmt::format("{:%Y-%m-%d %H:%M}", local_tm(time_us));
}

}  // namespace gpumeter::view
