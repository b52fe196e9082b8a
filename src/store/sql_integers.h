// SPDX-License-Identifier: MIT
// Integers as SQLite stores them: signed 64-bit.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>

namespace gpumeter::store {

// A nullable column's value. Unsigned counters past INT64_MAX are clamped, never wrapped to
// negative numbers.
template <std::integral T>
std::optional<std::int64_t> as_int64(const std::optional<T>& value) {
  if (!value) return std::nullopt;
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  if constexpr (std::unsigned_integral<T> && sizeof(T) >= sizeof(std::int64_t)) {
    if (*value > static_cast<T>(kMax)) return kMax;
  }
  return static_cast<std::int64_t>(*value);
}

}  // namespace gpumeter::store
