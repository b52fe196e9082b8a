#include "view/duration.h"

#include <charconv>
#include <cstdint>
#include <limits>

namespace gpumeter::view {
namespace {

std::optional<std::int64_t> seconds_per_unit(std::string_view suffix) {
  if (suffix.empty() || suffix == "s") return 1;
  if (suffix == "m") return 60;
  if (suffix == "h") return 3600;
  if (suffix == "d") return 86400;
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::seconds> parse_duration(std::string_view text) {
  std::int64_t count = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [rest, error] = std::from_chars(begin, end, count);
  if (error != std::errc{} || rest == begin || count < 0) return std::nullopt;
  const std::optional<std::int64_t> unit = seconds_per_unit({rest, end});
  // Callers count in µs since the epoch: a duration whose µs overflow 64 bits is refused here,
  // before any conversion can wrap it into a plausible-looking time.
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1'000'000;
  if (!unit || count > kMaxSeconds / *unit) return std::nullopt;
  return std::chrono::seconds(count * *unit);
}

}  // namespace gpumeter::view
