// SPDX-License-Identifier: MIT
// Why a value is absent. Sources carry absence as a value with a reason; renderers flatten it
// to `null` / `N/A` (and only the C ABI turns it into sentinels).
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string_view>

namespace gpumeter {

enum class Unavailable : std::uint8_t {
  not_supported,  // the GPU, driver or kernel does not offer this value
  no_permission,  // it exists, but we may not read it
  gpu_lost,       // the GPU fell off the bus or needs a reset
  process_gone,   // the process exited between two calls
  error,          // the source failed in some other way (kept apart from "no data")
  no_data,        // nothing was sampled for the time asked about
  mig,            // the GPU is in MIG mode, under which the driver does not report this
};

// A value, or the reason it is absent.
template <class T>
using Maybe = std::expected<T, Unavailable>;

// The value, or nothing where only whether it is known matters (a nullable column, a JSON null).
template <class T>
std::optional<T> value_of(const Maybe<T>& maybe) {
  if (!maybe) return std::nullopt;
  return *maybe;
}

// "not_supported", "no_permission", ...: stable words used in JSON and logs.
std::string_view to_string(Unavailable reason) noexcept;
// The reason a word of to_string() names (a document gpumeter wrote); nullopt for another.
std::optional<Unavailable> unavailable_from_string(std::string_view word) noexcept;

}  // namespace gpumeter
