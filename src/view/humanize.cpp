// SPDX-License-Identifier: MIT
#include "view/humanize.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <ctime>

namespace gpumeter::view {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
constexpr double kTiB = 1024.0 * kGiB;

std::time_t to_time_t(TimeUs time_us) {
  return static_cast<std::time_t>(time_us / 1'000'000);
}

}  // namespace

std::string format_bytes(double bytes) {
  if (bytes >= kTiB) return fmt::format("{:.1f}TiB", bytes / kTiB);
  // Whole MiB up to 1023 MiB: rounding to 1024MiB would read oddly next to "1.0GiB".
  if (bytes >= kGiB - kMiB / 2) return fmt::format("{:.1f}GiB", bytes / kGiB);
  return fmt::format("{:.0f}MiB", std::max(0.0, bytes) / kMiB);
}

std::string format_memory(const Maybe<double>& used, const Maybe<double>& total,
                          std::string_view separator) {
  if (!used && !total) return std::string(kNotAvailable);
  const std::string left = used ? format_bytes(*used) : std::string(kNotAvailable);
  const std::string right = total ? format_bytes(*total) : std::string(kNotAvailable);
  return fmt::format("{}{}{}", left, separator, right);
}

std::string format_age(TimeUs duration_us) {
  struct Unit {
    std::int64_t seconds;
    char suffix;
  };
  static constexpr std::array<Unit, 4> kUnits{{{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}}};
  const std::int64_t total = std::max<std::int64_t>(0, duration_us / 1'000'000);
  for (std::size_t i = 0; i + 1 < kUnits.size(); ++i) {
    if (total < kUnits[i].seconds) continue;
    const Unit& next = kUnits[i + 1];
    return fmt::format("{}{} {}{}", total / kUnits[i].seconds, kUnits[i].suffix,
                       total % kUnits[i].seconds / next.seconds, next.suffix);
  }
  return fmt::format("{}s", total);
}

std::string format_whole(const Maybe<double>& value, std::string_view unit) {
  if (!value) return std::string(kNotAvailable);
  return fmt::format("{:.0f}{}", std::round(*value), unit);
}

std::string local_time(TimeUs time_us) {
  return fmt::format("{:%Y-%m-%d %H:%M:%S}", fmt::localtime(to_time_t(time_us)));
}

}  // namespace gpumeter::view
