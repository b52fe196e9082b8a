// SPDX-License-Identifier: MIT
// How subcommands plug into the application: each one registers its options on the CLI11
// app and returns the function that runs it once the command line is parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>

#include "cli/cli.h"
#include "cli/session.h"

namespace gpumeter::cli {

// What a subcommand gets to run with.
struct Context {
  Session& session;
  std::ostream& out;
  std::ostream& err;
  bool out_is_terminal = false;
  bool color = false;
};

// What a command that reads only files (`report` reads the history database) gets to run with.
struct Output {
  std::ostream& out;
  std::ostream& err;
  bool out_is_terminal = false;
  bool color = false;
};

struct Subcommand {
  CLI::App* app = nullptr;           // parsed() tells whether it was chosen
  std::function<int(Context&)> run;  // returns the exit status
  // Set instead of `run` by a command that reads no GPU (`tasks` asks the daemon): it runs
  // without opening the sources, so it works where no driver is installed.
  std::function<int(std::ostream& out, std::ostream& err)> run_without_session;
  // Set instead of `run` by a command that opens the sources itself (`run`, which carries on
  // without a GPU and checks its own options first).
  std::function<int(const GlobalOptions& options, std::ostream& out, std::ostream& err)>
      run_with_options;
  // Set instead of `run` by a command that reads no GPU but prints for a person (colours).
  std::function<int(const Output& output)> run_offline;
  // Set beside `run` by a command that some of its options turn into one that reads no GPU
  // of this machine (`available --fleet`): a status ends the command before any source is
  // opened; none goes on to `run`.
  std::function<std::optional<int>(const Output& output)> instead_of_session;
};

// The one-line summaries of the commands that gpumeter-serve runs (cli/cli.h, ServeCommands),
// which `gpumeter --help` lists too.
inline constexpr const char* kDaemonSummary =
    "Sample continuously and answer what marked tasks used (docs/daemon.md)";
inline constexpr const char* kMasterSummary =
    "Poll many agents and serve the fleet: JSON and the dashboard (docs/master.md)";

Subcommand add_list_command(CLI::App& app);
// `top --connect` runs as `serve` says (handed over to gpumeter-serve, or there).
Subcommand add_top_command(CLI::App& app, const ServeCommands& serve,
                           std::span<const std::string> args);
// `available --fleet` runs as `serve` says (handed over to gpumeter-serve, or there).
Subcommand add_available_command(CLI::App& app, const ServeCommands& serve,
                                 std::span<const std::string> args);
Subcommand add_info_command(CLI::App& app);
Subcommand add_daemon_command(CLI::App& app);
Subcommand add_tasks_command(CLI::App& app);
Subcommand add_run_command(CLI::App& app);
Subcommand add_limit_command(CLI::App& app);
// `report --prometheus` runs as `serve` says (handed over to gpumeter-serve, or there).
Subcommand add_report_command(CLI::App& app, const ServeCommands& serve,
                              std::span<const std::string> args);
Subcommand add_record_command(CLI::App& app);
Subcommand add_export_command(CLI::App& app);
Subcommand add_master_command(CLI::App& app);
Subcommand add_accounting_command(CLI::App& app);
Subcommand add_vgpu_command(CLI::App& app);

// Reports an error on stderr as one line and returns its exit status.
int report(std::ostream& err, const Error& error);

}  // namespace gpumeter::cli
