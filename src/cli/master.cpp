// SPDX-License-Identifier: MIT
// `gpumeter master`: polls the agents of a config file (or reads a Prometheus server) and
// serves the fleet: GET /api/v1/fleet and the dashboard (docs/master.md). `--once` polls once
// and prints the fleet document instead.
#include <sys/resource.h>

#include <cstdlib>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/master_fleet.h"
#include "cli/master_options.h"
#include "cli/master_serve.h"
#include "master/fleet_json.h"
#include "view/json.h"

namespace gpumeter::cli {
namespace {

// Each agent in flight holds a socket: take the whole hard limit of open files, as a soft
// limit of 1024 (a common default) would fail polls of a larger fleet with "cannot connect".
void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

int run_master(const CLI::App& master, const MasterOptions& options, const GlobalOptions& global,
               std::ostream& out, std::ostream& err) {
  MasterLog log(err);
  auto settings =
      resolve_master_options(master, options, hostname(), std::getenv("NVGPU_CLUSTER_CFG"));
  if (!settings) return report(err, settings.error());
  raise_open_file_limit();
  // Serving: the stop signals are blocked before the poller's threads start.
  std::optional<StopSignals> signals;
  if (!settings->once) signals.emplace();
  auto fleet = MasterFleet::open(*settings, global, log);
  if (!fleet) return report(err, fleet.error());
  if (signals) return serve_master(*settings, **fleet, *signals, log, err);
  (*fleet)->refresh();
  out << view::dump_json(master::fleet_json((*fleet)->state(), (*fleet)->source()), false) << '\n';
  return 0;
}

}  // namespace

Subcommand add_master_command(CLI::App& app) {
  auto options = std::make_shared<MasterOptions>();
  CLI::App* master = app.add_subcommand("master", kMasterSummary);
  add_master_options(*master, *options);
  Subcommand command{master};
  command.run_with_options = [options, master](const GlobalOptions& global, std::ostream& out,
                                               std::ostream& err) {
    return run_master(*master, *options, global, out, err);
  };
  return command;
}

}  // namespace gpumeter::cli
