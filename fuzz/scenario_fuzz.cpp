// SPDX-License-Identifier: MIT
// Scenario files (src/sim): the JSON a test, a demo or a user hands to `--simulate`.
// Promise: any text parses or gives an invalid_input error that names the file.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "sim/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumeter;
  const auto scenario = sim::parse_scenario(fuzz::text_of(data, size), "fuzz.json");
  if (!scenario) {
    fuzz::check(scenario.error().code == ErrorCode::invalid_input, "scenario: not invalid_input");
    fuzz::check(scenario.error().message.starts_with("fuzz.json"), "scenario: error without file");
  }
  return 0;
}
