// SPDX-License-Identifier: MIT
#include "cli/duration_option.h"

#include <fmt/format.h>

#include <string>

#include "core/duration.h"

namespace gpumeter::cli {

CLI::Validator duration_validator(std::chrono::milliseconds at_least) {
  return CLI::Validator(
      [at_least](const std::string& text) {
        const auto duration = parse_duration(text);
        if (!duration) {
          return fmt::format("\"{}\" is not a duration such as 100ms, 1s, 10m or 1h", text);
        }
        if (*duration < at_least) {
          return fmt::format("\"{}\" is shorter than {}ms", text, at_least.count());
        }
        return std::string{};
      },
      "DURATION");
}

}  // namespace gpumeter::cli
