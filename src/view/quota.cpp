// SPDX-License-Identifier: MIT
#include "view/quota.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "core/bounded_file.h"
#include "core/text.h"

namespace gpumeter::view {
namespace {

constexpr std::string_view kLineBlanks = " \t\r";

constexpr std::string_view kExpectedLine =
    "expected `USER = HOURSh per day|week|month` or `USER = unlimited`, e.g. "
    "`alice = 500h per month`";

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  while (!(text = trim(text, kLineBlanks)).empty()) {
    const auto end = text.find_first_of(" \t");
    out.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end);
  }
  return out;
}

bool is_user_name(std::string_view name) {
  if (name.empty() || name.front() == '-') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    if (!plain && !(c == '$' && i + 1 == name.size())) return false;
  }
  return true;
}

std::optional<double> parse_hours(std::string_view word) {
  if (word.size() < 2 || word.back() != 'h') return std::nullopt;
  word.remove_suffix(1);
  double hours = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), hours);
  if (error != std::errc{} || end != word.data() + word.size()) return std::nullopt;
  if (!std::isfinite(hours) || hours < 0 || word.front() == '-' || word.front() == '+')
    return std::nullopt;
  return hours;
}

std::optional<CalendarPeriod> parse_period(std::string_view word) {
  if (word == "day") return CalendarPeriod::day;
  if (word == "week") return CalendarPeriod::week;
  if (word == "month") return CalendarPeriod::month;
  return std::nullopt;
}

// The value after `=`: an absent Quota for "unlimited", else the error's text.
std::expected<std::optional<Quota>, std::string> parse_value(std::string_view value) {
  const std::vector<std::string_view> parts = words(value);
  if (parts.size() == 1 && parts[0] == "unlimited") return std::nullopt;
  if (parts.empty()) return std::unexpected(std::string(kExpectedLine));
  const auto hours = parse_hours(parts[0]);
  if (!hours) {
    return std::unexpected(fmt::format(
        "expected GPU-hours such as `500h` or `12.5h`, or `unlimited`, found `{}`", parts[0]));
  }
  if (parts.size() < 3 || parts[1] != "per")
    return std::unexpected(
        fmt::format("expected `per day`, `per week` or `per month` after `{}`", parts[0]));
  const auto period = parse_period(parts[2]);
  if (!period) {
    return std::unexpected(
        fmt::format("expected day, week or month after `per`, found `{}`", parts[2]));
  }
  if (parts.size() > 3)
    return std::unexpected(fmt::format("unexpected `{}` after `per {}`", parts[3], parts[2]));
  return Quota{*hours, *period};
}

struct Entry {
  std::string name;
  std::optional<Quota> quota;
};

std::expected<std::optional<Entry>, std::string> parse_line(std::string_view line) {
  line = trim(line.substr(0, line.find('#')), kLineBlanks);
  if (line.empty()) return std::nullopt;
  const auto equals = line.find('=');
  if (equals == std::string_view::npos) return std::unexpected(std::string(kExpectedLine));
  const std::string_view name = trim(line.substr(0, equals), kLineBlanks);
  if (!is_user_name(name)) {
    return std::unexpected(
        fmt::format("`{}` is not a user name (letters, digits, `.`, `_`, `-`) or `default`; {}",
                    name, kExpectedLine));
  }
  auto quota = parse_value(line.substr(equals + 1));
  if (!quota) return std::unexpected(std::move(quota.error()));
  return Entry{std::string(name), *quota};
}

}  // namespace

std::optional<Quota> QuotaFile::quota_for(std::string_view user) const {
  if (const auto own = users.find(user); own != users.end()) return own->second;
  return default_quota.value_or(std::nullopt);
}

std::expected<QuotaFile, Error> parse_quota_file(std::string_view text, const std::string& name) {
  QuotaFile file{.name = name};
  std::map<std::string, int, std::less<>> first_line;
  int number = 0;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    ++number;
    auto parsed = parse_line(line);
    if (!parsed) {
      return std::unexpected(
          Error{ErrorCode::invalid_input, fmt::format("{}:{}: {}", name, number, parsed.error())});
    }
    const std::optional<Entry>& entry = *parsed;
    if (!entry) continue;
    const auto [seen, inserted] = first_line.try_emplace(entry->name, number);
    if (!inserted) {
      return std::unexpected(
          Error{ErrorCode::invalid_input,
                fmt::format("{}:{}: {} is given a quota twice (first on line {})", name, number,
                            entry->name, seen->second)});
    }
    if (entry->name == "default") {
      file.default_quota = entry->quota;
    } else {
      file.users.emplace(entry->name, entry->quota);
    }
  }
  return file;
}

std::expected<QuotaFile, Error> read_quota_file(const std::filesystem::path& path) {
  const auto cannot_read = [&](std::string_view why) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("cannot read the quota file {}: {}", path.string(), why)});
  };
  auto text = read_file_at_most(path, kMaxQuotaFileBytes);
  if (!text) {
    if (text.error().kind == BoundedReadError::Kind::too_large) {
      return cannot_read("larger than 1 MiB (expected a quota file of at most 1 MiB)");
    }
    if (text.error().errno_value == EISDIR) return cannot_read("it is a directory");
    return cannot_read(std::strerror(text.error().errno_value));
  }
  return parse_quota_file(*text, path.string());
}

std::string to_string(const Quota& quota) {
  return fmt::format("{}h/{}", quota.gpu_hours, period_name(quota.period));
}

std::string_view period_name(CalendarPeriod period) {
  switch (period) {
    case CalendarPeriod::hour: return "hour";
    case CalendarPeriod::day: return "day";
    case CalendarPeriod::week: return "week";
    case CalendarPeriod::month: return "month";
  }
  return "month";
}

}  // namespace gpumeter::view
