// SPDX-License-Identifier: MIT
#include "cli/serve_commands.h"

#include "cli/available_fleet.h"
#include "cli/commands.h"
#include "cli/report_prometheus.h"
#include "cli/top_connect.h"

namespace gpumeter::cli {

const ServeCommands& serve_commands() {
  static constexpr ServeCommands kCommands{
      .daemon = [](CLI::App& app, std::span<const std::string>) { return add_daemon_command(app); },
      .master = [](CLI::App& app, std::span<const std::string>) { return add_master_command(app); },
      .fleet_report = run_fleet_report,
      .fleet_available = run_fleet_available,
      .remote_top = run_remote_top};
  return kCommands;
}

}  // namespace gpumeter::cli
