// SPDX-License-Identifier: MIT
// `--simulate SCENARIO`: run against the simulated NVML library instead of the driver. The
// scenario is parsed here first (so a bad one is reported as FILE:LINE before anything is
// loaded); the NVML loader is then given the simulated library's path, and the library reads
// the same scenario from $GPUMETER_SIM_SCENARIO (its configuration, as a driver has its own),
// which stays set for any child process.
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
  std::filesystem::path library;        // the simulated libnvidia-ml.so.1, for the NVML loader
};

// Errors: ErrorCode::invalid_input for a scenario that cannot be read or parsed (the
// message names file and line), ErrorCode::io when our own executable cannot be located.
// Sets GPUMETER_SIM_SCENARIO.
std::expected<Simulation, Error> start_simulation(const std::filesystem::path& scenario);

struct JetsonSimulation {
  std::unique_ptr<ProcessSource> host;  // the scenario's processes, then the real procfs
  std::string label;                    // "simulated: <scenario file name>"
  std::shared_ptr<const void> board;    // the simulated board: keep it while its files are read
  std::filesystem::path root;           // where the board's files are
};

// `--simulate-jetson SCENARIO`: a scenario file with a "jetson" block, or the name of a bundled
// one (`orin-nano`, `nano`: <prefix>/share/gpumeter/scenarios/jetson-NAME.json). Errors as for
// start_simulation, and invalid_input for a scenario that is no Jetson board or a name that is
// neither a file nor a bundled scenario.
std::expected<JetsonSimulation, Error> start_jetson_simulation(const std::string& scenario);

}  // namespace gpumeter::cli
