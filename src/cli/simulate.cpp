// SPDX-License-Identifier: MIT
#include "cli/simulate.h"

#include <fmt/format.h>
#include <stdlib.h>  // setenv: POSIX, not in <cstdlib>

#include <system_error>

#include "cli/install_layout.h"
#include "host/procfs.h"
#include "sim/jetson_board.h"
#include "sim/scenario_host.h"

namespace gpumeter::cli {
namespace {

std::expected<void, Error> set_environment(const char* name, const std::filesystem::path& value) {
  if (setenv(name, value.c_str(), 1) != 0) {
    return std::unexpected(Error{ErrorCode::internal, fmt::format("cannot set {}", name)});
  }
  return {};
}

}  // namespace

std::expected<Simulation, Error> start_simulation(const std::filesystem::path& scenario) {
  auto executable = own_executable();
  if (!executable) return std::unexpected(std::move(executable.error()));
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(scenario, error);
  auto set = set_environment("GPUMETER_SIM_SCENARIO", error ? scenario : absolute);
  if (!set) return std::unexpected(std::move(set.error()));
  // The library parses the scenario for us (its messages name the file as given) and keeps
  // the parse for its nvmlInit.
  const std::filesystem::path library = simulated_library_path(*executable);
  auto host =
      sim::open_scenario_host(scenario, library, std::make_unique<host::ProcfsProcessSource>());
  if (!host) {
    // Whatever went wrong, the scenario named on the command line is at fault: bad input.
    return std::unexpected(Error{ErrorCode::invalid_input, std::move(host.error().message)});
  }
  return Simulation{std::move(*host), fmt::format("simulated: {}", scenario.filename().string()),
                    library};
}

namespace {

// A bundled Jetson scenario's file, from its name: beside the installed executable, or in the
// build tree, which mirrors the install tree.
std::expected<std::filesystem::path, Error> jetson_scenario_path(const std::string& scenario) {
  std::error_code error;
  if (std::filesystem::is_regular_file(scenario, error)) return scenario;
  const bool name =
      !scenario.empty() &&
      scenario.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
  if (name) {
    auto executable = own_executable();
    if (!executable) return std::unexpected(std::move(executable.error()));
    const std::filesystem::path bundled = private_directory(*executable) / ".." / ".." / "share" /
                                          "gpumeter" / "scenarios" /
                                          fmt::format("jetson-{}.json", scenario);
    if (std::filesystem::is_regular_file(bundled, error)) return bundled.lexically_normal();
  }
  return std::unexpected(Error{
      ErrorCode::invalid_input,
      fmt::format("--simulate-jetson {}: no such scenario file, and not a bundled board (expected "
                  "orin-nano, nano, or a scenario file with a \"jetson\" block)",
                  scenario)});
}

}  // namespace

std::expected<JetsonSimulation, Error> start_jetson_simulation(const std::string& scenario) {
  auto path = jetson_scenario_path(scenario);
  if (!path) return std::unexpected(std::move(path.error()));
  auto loaded = sim::load_scenario(*path);
  if (!loaded) return std::unexpected(Error{ErrorCode::invalid_input, loaded.error().message});
  auto host =
      sim::open_scenario_host(*loaded, *path, std::make_unique<host::ProcfsProcessSource>());
  auto board = sim::SimulatedJetson::start(std::move(*loaded), *path);
  if (!board) return std::unexpected(std::move(board.error()));
  std::filesystem::path root = (*board)->root();
  return JetsonSimulation{std::move(host), fmt::format("simulated: {}", path->filename().string()),
                          std::shared_ptr<const void>(std::move(*board)), std::move(root)};
}

}  // namespace gpumeter::cli
