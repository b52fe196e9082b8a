// SPDX-License-Identifier: MIT
// JSON parsing that remembers where each value was, so that a scenario error can say
// "FILE:LINE: what was expected" both for syntax errors and for values of the wrong kind.
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/error.h"

namespace gpumeter::sim {

struct LocatedJson {
  nlohmann::json value;
  // JSON pointer ("/devices/0/name") → 1-based line where that value starts.
  std::unordered_map<std::string, int> lines;

  // The line of `pointer`, or of its nearest recorded ancestor (1 if none).
  int line_of(std::string_view pointer) const;
};

// The deepest nesting of arrays and objects accepted (a scenario needs about 8).
inline constexpr int kMaxJsonDepth = 64;

// Parses strict JSON. Errors: ErrorCode::invalid_input, "FILE:LINE: <what was expected>",
// also for a text nested deeper than kMaxJsonDepth (refused before parsing).
std::expected<LocatedJson, Error> parse_located_json(std::string_view text, std::string_view file);

// "devices[0].memory.total_bytes" for the pointer "/devices/0/memory/total_bytes".
std::string readable_path(std::string_view pointer);

}  // namespace gpumeter::sim
