// SPDX-License-Identifier: MIT
#include "sim/clock.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string_view>

namespace gpumeter::sim {
namespace {

std::optional<std::int64_t> integer_variable(const char* name) noexcept {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::nullopt;
  const std::string_view view(text);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec != std::errc() || end != view.data() + view.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::int64_t> epoch_from_environment() noexcept {
  return integer_variable(kEpochVariable);
}

std::int64_t now_us() noexcept {
  if (auto fixed = integer_variable(kNowVariable)) return *fixed;
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count();
}

}  // namespace gpumeter::sim
