// SPDX-License-Identifier: MIT
// The check of a duration option (`--interval` of `daemon` and `run`).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>

namespace gpumeter::cli {

// A CLI11 check of a duration (core/duration.h) of at least `at_least` (`--interval` of
// `daemon` and `run`), with a message that says what was expected.
CLI::Validator duration_validator(std::chrono::milliseconds at_least);

}  // namespace gpumeter::cli
