#include "cli/simulate.h"

#include <fmt/format.h>
#include <stdlib.h>  // setenv: POSIX, not in <cstdlib>

#include <system_error>

#include "cli/install_layout.h"
#include "host/procfs.h"
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

}  // namespace gpumeter::cli
