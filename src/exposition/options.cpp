// SPDX-License-Identifier: MIT
#include <fmt/format.h>

#include <charconv>

#include "exposition/metrics.h"

namespace gpumeter::exposition {
namespace {

constexpr std::size_t kMostTopProcesses = 10'000;

std::expected<ProcessLimit, Error> refuse(std::string_view text) {
  return std::unexpected(
      Error{ErrorCode::invalid_input,
            fmt::format("expected top:N (N from 1 to {}), users or none, not '{}'",
                        kMostTopProcesses, text)});
}

}  // namespace

std::expected<ProcessLimit, Error> parse_process_limit(std::string_view text) {
  if (text == "users") return ProcessLimit{.series = ProcessSeries::users};
  if (text == "none") return ProcessLimit{.series = ProcessSeries::none};
  constexpr std::string_view kTop = "top:";
  if (!text.starts_with(kTop)) return refuse(text);
  const std::string_view digits = text.substr(kTop.size());
  std::size_t top = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), top);
  if (error != std::errc{} || end != digits.data() + digits.size() || top == 0 ||
      top > kMostTopProcesses) {
    return refuse(text);
  }
  return ProcessLimit{.series = ProcessSeries::top, .top = top};
}

std::string to_string(const ProcessLimit& limit) {
  switch (limit.series) {
    case ProcessSeries::top: return fmt::format("top:{}", limit.top);
    case ProcessSeries::users: return "users";
    case ProcessSeries::none: return "none";
  }
  return "none";
}

}  // namespace gpumeter::exposition
