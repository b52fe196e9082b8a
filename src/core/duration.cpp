// SPDX-License-Identifier: MIT
#include "core/duration.h"

#include <charconv>
#include <cstdint>
#include <limits>

namespace gpumeter {
namespace {

std::optional<std::int64_t> milliseconds_per_unit(std::string_view unit) {
  if (unit == "ms") return 1;
  if (unit.empty() || unit == "s") return 1'000;
  if (unit == "m") return 60'000;
  if (unit == "h") return 3'600'000;
  if (unit == "d") return 86'400'000;
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  std::int64_t count = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [rest, error] = std::from_chars(begin, end, count);
  if (error != std::errc{} || rest == begin || count < 0) return std::nullopt;
  const std::optional<std::int64_t> unit = milliseconds_per_unit({rest, end});
  constexpr std::int64_t kMaxMilliseconds = std::numeric_limits<std::int64_t>::max() / 1'000;
  if (!unit || count > kMaxMilliseconds / *unit) return std::nullopt;
  return std::chrono::milliseconds(count * *unit);
}

std::optional<std::chrono::seconds> parse_whole_seconds(std::string_view text) {
  const auto duration = parse_duration(text);
  if (!duration || duration->count() % 1'000 != 0) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(*duration);
}

}  // namespace gpumeter
