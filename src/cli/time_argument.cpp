// SPDX-License-Identifier: MIT
#include "cli/time_argument.h"

#include <charconv>
#include <chrono>
#include <ctime>

#include "core/duration.h"

namespace gpumeter::cli {
namespace {

// Reads `digits` decimal digits at `at`, moving past them.
std::optional<int> number(std::string_view text, std::size_t& at, std::size_t digits) {
  if (at + digits > text.size()) return std::nullopt;
  int value = 0;
  const char* begin = text.data() + at;
  const auto [end, error] = std::from_chars(begin, begin + digits, value);
  if (error != std::errc{} || end != begin + digits) return std::nullopt;
  at += digits;
  return value;
}

bool expect(std::string_view text, std::size_t& at, std::string_view separators) {
  if (at >= text.size() || separators.find(text[at]) == std::string_view::npos) return false;
  ++at;
  return true;
}

std::optional<std::tm> calendar_time(std::string_view text) {
  std::size_t at = 0;
  std::tm time{};
  const auto year = number(text, at, 4);
  if (!year || !expect(text, at, "-")) return std::nullopt;
  const auto month = number(text, at, 2);
  if (!month || !expect(text, at, "-")) return std::nullopt;
  const auto day = number(text, at, 2);
  if (!day) return std::nullopt;
  time = std::tm{.tm_mday = *day, .tm_mon = *month - 1, .tm_year = *year - 1900, .tm_isdst = -1};
  if (at == text.size()) return time;
  const auto hour = expect(text, at, "T ") ? number(text, at, 2) : std::nullopt;
  const auto minute = hour && expect(text, at, ":") ? number(text, at, 2) : std::nullopt;
  if (!minute) return std::nullopt;
  time.tm_hour = *hour;
  time.tm_min = *minute;
  if (at == text.size()) return time;
  const auto second = expect(text, at, ":") ? number(text, at, 2) : std::nullopt;
  if (!second || at != text.size()) return std::nullopt;
  time.tm_sec = *second;
  return time;
}

std::optional<TimeUs> local_time(std::string_view text) {
  const auto wanted = calendar_time(text);
  if (!wanted) return std::nullopt;
  std::tm normalised = *wanted;
  const std::time_t seconds = std::mktime(&normalised);
  // mktime rolls 2026-02-30 over into March: such a date does not exist.
  if (seconds == -1 || normalised.tm_mday != wanted->tm_mday ||
      normalised.tm_mon != wanted->tm_mon || normalised.tm_hour != wanted->tm_hour ||
      normalised.tm_min != wanted->tm_min) {
    return std::nullopt;
  }
  return static_cast<TimeUs>(seconds) * 1'000'000;
}

}  // namespace

std::optional<TimeUs> parse_time_argument(std::string_view text, TimeUs now_us) {
  if (text == "now") return now_us;
  if (text.starts_with('@')) {
    std::int64_t seconds = 0;
    const auto [end, error] = std::from_chars(text.data() + 1, text.data() + text.size(), seconds);
    if (error != std::errc{} || end != text.data() + text.size() || text.size() == 1)
      return std::nullopt;
    return seconds * 1'000'000;
  }
  if (const auto ago = parse_duration(text))
    return now_us - std::chrono::duration_cast<std::chrono::microseconds>(*ago).count();
  return local_time(text);
}

}  // namespace gpumeter::cli
