#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/session.h"
#include "cli/terminal.h"

namespace gpumeter::cli {
namespace {

void add_global_options(CLI::App& app, GlobalOptions& options) {
  app.set_version_flag("--version", "gpumeter " GPUMETER_VERSION);
  app.add_option("--simulate", options.simulate,
                 "Read a simulated machine described by SCENARIO instead of the driver")
      ->option_text("SCENARIO");
  app.add_flag("--no-color", options.no_color,
               "No colours (also when NO_COLOR is set, or stdout is not a terminal)");
}

// CLI11 wants the arguments without the program name, last first.
std::vector<std::string> reversed_arguments(std::span<const std::string> args) {
  std::vector<std::string> reversed(args.begin() + (args.empty() ? 0 : 1), args.end());
  std::ranges::reverse(reversed);
  return reversed;
}

int run_chosen(const std::vector<Subcommand>& commands, const GlobalOptions& options,
               const Io& io) {
  const auto chosen =
      std::ranges::find_if(commands, [](const Subcommand& c) { return c.app->parsed(); });
  if (chosen == commands.end()) return 2;  // unreachable: CLI11 requires one subcommand
  if (chosen->run_without_session) return chosen->run_without_session(io.out, io.err);
  if (chosen->run_with_options) return chosen->run_with_options(options, io.out, io.err);
  if (chosen->run_offline) {
    return chosen->run_offline(
        Output{io.out, io.err, io.out_is_terminal,
               colors_wanted(options.no_color, io.no_color_env, io.out_is_terminal)});
  }
  auto session = open_session(options);
  if (!session) return report(io.err, session.error());
  Context context{*session, io.out, io.err, io.out_is_terminal,
                  colors_wanted(options.no_color, io.no_color_env, io.out_is_terminal)};
  return chosen->run(context);
}

int run_app(std::span<const std::string> args, const Io& io, const ServeCommands& serve) {
  CLI::App app{"Measures and accounts for the use of GPUs.", "gpumeter"};
  GlobalOptions options;
  add_global_options(app, options);
  // Global options may follow the subcommand; subcommands copy this setting when created.
  app.fallthrough();
  app.require_subcommand(1);
  const std::vector<Subcommand> commands{
      add_list_command(app),   add_available_command(app), add_info_command(app),
      serve.daemon(app, args), add_tasks_command(app),     add_run_command(app),
      add_limit_command(app),  add_report_command(app),    add_record_command(app),
      add_export_command(app), serve.master(app, args),    add_accounting_command(app),
      add_vgpu_command(app)};
  try {
    app.parse(reversed_arguments(args));
  } catch (const CLI::ParseError& error) {
    // --help and --version end here too, with status 0; every usage error is status 2.
    return app.exit(error, io.out, io.err) == 0 ? 0 : 2;
  }
  return run_chosen(commands, options, io);
}

}  // namespace

int report(std::ostream& err, const Error& error) {
  // The message as the source wrote it: "FILE:LINE: ..." stays first on the line for editors.
  err << error.message << '\n';
  return exit_status(error);
}

int run(std::span<const std::string> args, const Io& io, const ServeCommands& serve) {
  try {
    return run_app(args, io, serve);
  } catch (const std::exception& error) {
    // A bug or resource exhaustion, not an anticipated failure: say so and fail.
    io.err << "gpumeter: internal error: " << error.what() << '\n';
    return 1;
  }
}

int run(int argc, char** argv, const ServeCommands& serve) {
  const Io io{std::cout, std::cerr, isatty(STDOUT_FILENO) == 1, std::getenv("NO_COLOR")};
  try {
    const std::vector<std::string> args(argv, argv + argc);
    return run(args, io, serve);
  } catch (const std::exception& error) {
    io.err << "gpumeter: internal error: " << error.what() << '\n';
    return 1;
  }
}

}  // namespace gpumeter::cli
