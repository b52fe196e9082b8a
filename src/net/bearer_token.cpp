// SPDX-License-Identifier: MIT
#include "net/bearer_token.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace gpumeter::net {

std::string_view bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size()) return {};
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return {};
  }
  std::string_view rest = authorization.substr(kScheme.size());
  if (!rest.starts_with(' ')) return {};
  rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
  while (rest.ends_with(' ')) rest.remove_suffix(1);
  return rest;
}

bool same_token(std::string_view given, std::string_view expected) noexcept {
  // Every byte of `expected` is visited whatever `given` holds; differences are OR-ed, never
  // branched on.
  unsigned difference = given.size() == expected.size() ? 0U : 1U;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const unsigned theirs = i < given.size() ? static_cast<unsigned char>(given[i]) : 0U;
    difference |= theirs ^ static_cast<unsigned char>(expected[i]);
  }
  return difference == 0U;
}

}  // namespace gpumeter::net
