// SPDX-License-Identifier: MIT
// transform / and_then for Maybe<T>: the standard library of g++ 12 ships std::expected
// without its monadic members. Internal to src/nvml/.
#pragma once

#include <functional>
#include <type_traits>
#include <utility>

#include "core/unavailable.h"

namespace gpumeter::nvml {

// f(value) when there is one, else the same reason.
template <class T, class F>
auto map_maybe(const Maybe<T>& value, F&& f)
    -> Maybe<std::remove_cvref_t<std::invoke_result_t<F, const T&>>> {
  if (!value) return std::unexpected(value.error());
  return std::invoke(std::forward<F>(f), *value);
}

// f(value), which itself returns a Maybe, when there is a value, else the same reason.
template <class T, class F>
auto then_maybe(const Maybe<T>& value, F&& f) -> std::invoke_result_t<F, const T&> {
  if (!value) return std::unexpected(value.error());
  return std::invoke(std::forward<F>(f), *value);
}

}  // namespace gpumeter::nvml
