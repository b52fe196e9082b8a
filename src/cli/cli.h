// SPDX-License-Identifier: MIT
// The command-line interface: `gpumeter [GLOBAL OPTIONS] SUBCOMMAND [OPTIONS]`.
#pragma once

#include <ostream>
#include <span>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace gpumeter::cli {

struct Subcommand;             // cli/commands.h
struct Output;                 // cli/commands.h
struct ReportSettings;         // cli/report_options.h
struct FleetAvailableRequest;  // cli/available_fleet.h
struct RemoteTopRequest;       // cli/top_live.h

// Where a run writes, and what it knows about its surroundings. Passed in, so that tests can
// run the CLI in-process with string streams and a chosen environment.
struct Io {
  std::ostream& out;
  std::ostream& err;
  bool out_is_terminal = false;
  const char* no_color_env = nullptr;  // NO_COLOR's value, or null when unset
};

// Adds a command that needs the network libraries; `args` is the whole command line, for one
// that hands it over to another executable.
using AddServeCommand = Subcommand (*)(CLI::App& app, std::span<const std::string> args);

// `report --prometheus`: the fleet's report from a Prometheus server, once the options are
// resolved; `args` is the whole command line. Returns the exit status.
using FleetReport = int (*)(const Output& output, const ReportSettings& settings,
                            std::span<const std::string> args);

// `available --fleet`: the free GPUs of a master's fleet; `args` is the whole command line.
using FleetAvailable = int (*)(const Output& output, const FleetAvailableRequest& request,
                               std::span<const std::string> args);

// `top --connect`: a running daemon's view; `args` is the whole command line.
using RemoteTop = int (*)(const Output& output, const RemoteTopRequest& request,
                          std::span<const std::string> args);

// The commands that need the network libraries (libmicrohttpd, OpenSSL, libcurl): `daemon`,
// `master`, `report --prometheus`, `available --fleet` and `top --connect`. The `gpumeter`
// executable adds ones that hand the command line over to gpumeter-serve (cli/serve_handover.h),
// which adds the real ones (cli/serve_commands.h), so that the one-shot commands never load those
// libraries (docs/architecture.md).
struct ServeCommands {
  AddServeCommand daemon = nullptr;
  AddServeCommand master = nullptr;
  FleetReport fleet_report = nullptr;
  FleetAvailable fleet_available = nullptr;
  RemoteTop remote_top = nullptr;
};

// Runs one command line (args[0] is the program name) and returns the exit status:
// 0 success, 1 nothing suitable found (e.g. no free GPU), 2 bad usage, bad input or no
// driver. Never throws.
int run(std::span<const std::string> args, const Io& io, const ServeCommands& serve);

// run() on the process's own arguments, streams and environment.
int run(int argc, char** argv, const ServeCommands& serve);

}  // namespace gpumeter::cli
