// SPDX-License-Identifier: MIT
// In `gpumeter --simulate SCENARIO`, the host side of the simulated machine: processes a
// scenario describes with `"host": {...}` (user, command, start) are answered from the
// scenario; its other made-up pids have no description (never the unrelated real process
// that may hold the same pid); real processes it names (pid_env, pid_file) and pids it does
// not list fall through to the real procfs reader, so a test can name a process it spawned.
#pragma once

#include <expected>
#include <filesystem>
#include <memory>

#include "core/error.h"
#include "core/source.h"

namespace gpumeter::sim {

// Parses the scenario file and returns a ProcessSource over it, falling back to `fallback`.
// Errors: ErrorCode::invalid_input with "FILE:LINE: what was expected".
std::expected<std::unique_ptr<ProcessSource>, Error> open_scenario_host(
    const std::filesystem::path& scenario, std::unique_ptr<ProcessSource> fallback);

// The same, for a scenario parsed already (from the file at `path`, whose clock it shares).
std::unique_ptr<ProcessSource> open_scenario_host(const struct Scenario& scenario,
                                                  const std::filesystem::path& path,
                                                  std::unique_ptr<ProcessSource> fallback);

// The same, with the scenario parsed by the simulated libnvidia-ml.so.1 at `library`, loaded
// here and kept loaded by the source (sim/host_side_abi.h): the library's nvmlInit then uses
// that parse, so a simulated command parses its scenario once. Where the library does not
// export the host side (or cannot be loaded), the scenario is parsed here as above.
std::expected<std::unique_ptr<ProcessSource>, Error> open_scenario_host(
    const std::filesystem::path& scenario, const std::filesystem::path& library,
    std::unique_ptr<ProcessSource> fallback);

}  // namespace gpumeter::sim
