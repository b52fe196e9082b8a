// SPDX-License-Identifier: MIT
#include "net/query_time.h"

#include <charconv>
#include <cstdint>

#include "core/duration.h"
#include "view/report_time.h"

namespace gpumeter::net {
namespace {

using std::chrono::microseconds;

// The longest step read, in seconds (about 3,200 years): far from overflowing µs.
constexpr std::int64_t kMaxSeconds = 100'000'000'000;

// Reads fixed-width decimal fields from the front of a text.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::optional<int> digits(std::size_t count) {
    if (text_.size() < count) return std::nullopt;
    int value = 0;
    const std::string_view field = text_.substr(0, count);
    const auto [end, error] = std::from_chars(field.begin(), field.end(), value);
    if (error != std::errc{} || end != field.end()) return std::nullopt;
    text_.remove_prefix(count);
    return value;
  }
  bool skip(char c) {
    if (!text_.starts_with(c)) return false;
    text_.remove_prefix(1);
    return true;
  }
  // ".250" after the seconds: µs, the digits past the sixth ignored.
  std::int64_t fraction_us() {
    if (!skip('.')) return 0;
    std::int64_t us = 0;
    std::int64_t scale = 100'000;
    while (!text_.empty() && text_.front() >= '0' && text_.front() <= '9') {
      us += (text_.front() - '0') * scale;
      scale /= 10;
      text_.remove_prefix(1);
    }
    return us;
  }
  std::string_view rest() const { return text_; }

 private:
  std::string_view text_;
};

// "Z", "+02:00", "-0530": the offset east of UTC in seconds.
std::optional<std::int64_t> zone_offset(std::string_view text) {
  if (text == "Z" || text == "z") return 0;
  Reader reader(text);
  const int sign = reader.skip('+') ? 1 : (reader.skip('-') ? -1 : 0);
  const auto hours = sign != 0 ? reader.digits(2) : std::nullopt;
  reader.skip(':');
  const auto minutes = hours ? reader.digits(2) : std::nullopt;
  if (!minutes || !reader.rest().empty() || *hours > 23 || *minutes > 59) return std::nullopt;
  return sign * (*hours * 3600 + *minutes * 60);
}

std::optional<TimeUs> iso8601_with_zone(std::string_view text) {
  Reader reader(text);
  const auto year = reader.digits(4);
  const auto month = year && reader.skip('-') ? reader.digits(2) : std::nullopt;
  const auto day = month && reader.skip('-') ? reader.digits(2) : std::nullopt;
  const auto hour = day && reader.skip('T') ? reader.digits(2) : std::nullopt;
  const auto minute = hour && reader.skip(':') ? reader.digits(2) : std::nullopt;
  if (!minute) return std::nullopt;
  const auto second = reader.skip(':') ? reader.digits(2) : std::optional<int>(0);
  if (!second) return std::nullopt;
  const std::int64_t fraction = reader.fraction_us();
  const auto offset = zone_offset(reader.rest());
  const std::chrono::year_month_day date{std::chrono::year(*year),
                                         std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!offset || !date.ok() || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  const auto midnight = std::chrono::sys_days(date).time_since_epoch();
  const std::int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(midnight).count() +
                               std::int64_t{*hour} * 3600 + std::int64_t{*minute} * 60 + *second -
                               *offset;
  return seconds * 1'000'000 + fraction;
}

std::optional<TimeUs> unix_seconds(std::string_view text) {
  std::int64_t seconds = 0;
  const auto [end, error] = std::from_chars(text.begin(), text.end(), seconds);
  if (text.empty() || error != std::errc{} || end != text.end()) return std::nullopt;
  // Checked before the product, which would overflow for a large count.
  if (seconds < kEarliestQueryTimeUs / 1'000'000 || seconds > kLatestQueryTimeUs / 1'000'000)
    return std::nullopt;
  return seconds * 1'000'000;
}

std::optional<TimeUs> before_now(std::chrono::seconds ago, TimeUs now_us) {
  // parse_duration keeps µs within 64 bits; a duration longer than the range ends before it.
  if (ago.count() > (kLatestQueryTimeUs - kEarliestQueryTimeUs) / 1'000'000) return std::nullopt;
  return now_us - std::chrono::duration_cast<microseconds>(ago).count();
}

std::optional<TimeUs> any_form(std::string_view text, TimeUs now_us) {
  if (text.starts_with('@')) return unix_seconds(text.substr(1));
  if (const auto ago = parse_whole_seconds(text)) return before_now(*ago, now_us);
  if (const auto zoned = iso8601_with_zone(text)) return zoned;
  return view::parse_report_time(text, now_us);
}

}  // namespace

std::optional<TimeUs> parse_query_time(std::string_view text, TimeUs now_us) {
  const auto time = any_form(text, now_us);
  if (!time || *time < kEarliestQueryTimeUs || *time > kLatestQueryTimeUs) return std::nullopt;
  return time;
}

std::optional<std::chrono::seconds> parse_step(std::string_view text) {
  const auto step = parse_whole_seconds(text);
  if (!step || step->count() < 1 || step->count() > kMaxSeconds) return std::nullopt;
  return step;
}

}  // namespace gpumeter::net
