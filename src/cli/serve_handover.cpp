// SPDX-License-Identifier: MIT
#include "cli/serve_handover.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/install_layout.h"

namespace gpumeter::cli {
namespace {

int hand_over(const std::vector<std::string>& args, std::ostream& err) {
  auto executable = own_executable();
  if (!executable) return report(err, executable.error());
  const std::filesystem::path serve = serve_executable_path(*executable);
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  ::execv(serve.c_str(), argv.data());
  const int failure = errno;
  return report(
      err, Error{ErrorCode::io,
                 fmt::format("gpumeter: cannot start {}: {} (it runs `gpumeter daemon`, "
                             "`gpumeter master`, `report --prometheus`, `available --fleet` and "
                             "`top --connect`)",
                             serve.string(), std::strerror(failure))});
}

Subcommand handed_over(CLI::App& app, const char* name, const char* summary,
                       std::span<const std::string> args) {
  CLI::App* command = app.add_subcommand(name, summary);
  // Everything after the name, --help included, is gpumeter-serve's to parse.
  command->fallthrough(false)->prefix_command()->allow_extras()->set_help_flag();
  return {.app = command,
          .run_without_session = [line = std::vector<std::string>(args.begin(), args.end())](
                                     std::ostream&, std::ostream& err) {
            return hand_over(line, err);
          }};
}

}  // namespace

const ServeCommands& handed_over_commands() {
  static constexpr ServeCommands kCommands{
      .daemon =
          [](CLI::App& app, std::span<const std::string> args) {
            return handed_over(app, "daemon", kDaemonSummary, args);
          },
      .master =
          [](CLI::App& app, std::span<const std::string> args) {
            return handed_over(app, "master", kMasterSummary, args);
          },
      // The options were checked here; gpumeter-serve reads them again.
      .fleet_report =
          [](const Output& output, const ReportSettings&, std::span<const std::string> args) {
            return hand_over(std::vector<std::string>(args.begin(), args.end()), output.err);
          },
      .fleet_available =
          [](const Output& output, const FleetAvailableRequest&,
             std::span<const std::string> args) {
            return hand_over(std::vector<std::string>(args.begin(), args.end()), output.err);
          },
      .remote_top =
          [](const Output& output, const RemoteTopRequest&, std::span<const std::string> args) {
            return hand_over(std::vector<std::string>(args.begin(), args.end()), output.err);
          }};
  return kCommands;
}

}  // namespace gpumeter::cli
