// `--simulate SCENARIO`: run against the simulated NVML library instead of the driver. The
// scenario is parsed here first (so a bad one is reported as FILE:LINE before anything is
// loaded), then the environment points the NVML loader at the simulated library, which
// reads the same scenario. The variables stay set for any child process.
#pragma once

#include <expected>
#include <filesystem>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/source.h"

namespace gpumeter::cli {

struct Simulation {
  std::unique_ptr<ProcessSource> host;  // the scenario's processes, then the real procfs
  std::string label;                    // "simulated: <scenario file name>"
};

// Errors: ErrorCode::invalid_input for a scenario that cannot be read or parsed (the
// message names file and line), ErrorCode::io when our own executable cannot be located.
// Sets GPUMETER_SIM_SCENARIO and GPUMETER_NVML_LIBRARY.
std::expected<Simulation, Error> start_simulation(const std::filesystem::path& scenario);

// Where the simulated library lies relative to the executable: the build tree mirrors the
// install tree, <prefix>/bin/gpumeter and <prefix>/lib/gpumeter/sim/libnvidia-ml.so.1.
std::filesystem::path simulated_library_path(const std::filesystem::path& executable);

}  // namespace gpumeter::cli
