// SPDX-License-Identifier: MIT
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <string_view>
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
  app.add_option("--simulate-jetson", options.simulate_jetson,
                 "Read a simulated Jetson board: a scenario file with a \"jetson\" block, or a "
                 "bundled board (orin-nano, nano)")
      ->option_text("SCENARIO");
  app.add_option("--source", options.source,
                 "Read the GPUs through this source only: nvml (the NVIDIA driver) or jetson "
                 "(a Jetson board's kernel files); default: the first that opens")
      ->check(CLI::IsMember({"nvml", "jetson"}))
      ->option_text("SOURCE");
  app.add_option("--jetson-root", options.jetson_root,
                 "Read a Jetson board's kernel files under DIR instead of / (a copy of a "
                 "board's /sys, /proc and /etc)")
      ->option_text("DIR");
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
  const Output output{io.out, io.err, io.out_is_terminal,
                      colors_wanted(options.no_color, io.no_color_env, io.out_is_terminal)};
  if (chosen->instead_of_session) {
    if (const std::optional<int> status = chosen->instead_of_session(output)) return *status;
  }
  auto session = open_session(options);
  if (!session) return report(io.err, session.error());
  Context context{*session, io.out, io.err, io.out_is_terminal,
                  colors_wanted(options.no_color, io.no_color_env, io.out_is_terminal)};
  return chosen->run(context);
}

struct Command {
  std::string_view name;
  std::function<Subcommand(CLI::App&)> add;
};

// Every subcommand, in the order `gpumeter --help` lists them.
std::vector<Command> command_table(std::span<const std::string> args, const ServeCommands& serve) {
  return {{"list", add_list_command},
          {"top", [args, serve](CLI::App& app) { return add_top_command(app, serve, args); }},
          {"available",
           [args, serve](CLI::App& app) { return add_available_command(app, serve, args); }},
          {"info", add_info_command},
          {"daemon", [args, serve](CLI::App& app) { return serve.daemon(app, args); }},
          {"tasks", add_tasks_command},
          {"run", add_run_command},
          {"limit", add_limit_command},
          {"report", [args, serve](CLI::App& app) { return add_report_command(app, serve, args); }},
          {"record", add_record_command},
          {"export", add_export_command},
          {"master", [args, serve](CLI::App& app) { return serve.master(app, args); }},
          {"accounting", add_accounting_command},
          {"vgpu", add_vgpu_command}};
}

// The subcommand a command line names, found by a first parse over the bare names, so that
// only that command registers its options: registering every command's is a fifth of what a
// one-shot `list` does itself (docs/benchmarks.md, "Start-up"). None when the line asks for
// the overall help or the version, or is wrong: the parse over every command answers those.
std::optional<std::string_view> named_command(std::span<const Command> table,
                                              std::span<const std::string> args) {
  CLI::App probe;
  GlobalOptions ignored;
  add_global_options(probe, ignored);
  probe.fallthrough();
  probe.require_subcommand(1);
  for (const Command& command : table) {
    probe.add_subcommand(std::string(command.name))
        ->fallthrough(false)
        ->prefix_command()
        ->allow_extras()
        ->set_help_flag();
  }
  try {
    probe.parse(reversed_arguments(args));
  } catch (const CLI::Error&) {
    return std::nullopt;
  }
  for (const Command& command : table) {
    if (probe.got_subcommand(std::string(command.name))) return command.name;
  }
  return std::nullopt;
}

// The global options that take a value, whose value is not a command's name.
constexpr std::array kValuedGlobals{"--simulate", "--simulate-jetson", "--source", "--jetson-root"};

// The first word of the line that is neither an option nor a global option's value: what the
// user meant as the command.
std::optional<std::string> first_word(std::span<const std::string> args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") return std::nullopt;
    if (!arg.starts_with('-')) return arg;
    if (std::ranges::find(kValuedGlobals, arg) != kValuedGlobals.end()) ++i;
  }
  return std::nullopt;
}

// A usage error said better than CLI11's words for it, or none: a missing or unknown command
// (CLI11: "A subcommand is required", "The following argument was not expected"), and a
// command given to `run` without `--` before it.
std::optional<std::string> clearer_usage_error(const CLI::ParseError& error,
                                               std::span<const Command> table,
                                               std::optional<std::string_view> named,
                                               std::span<const std::string> args) {
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  const bool required = dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  std::vector<std::string_view> names;
  for (const Command& command : table) names.push_back(command.name);
  if (!named && (extras || required)) {
    const std::optional<std::string> word = first_word(args);
    if (!word) {
      return fmt::format(
          "gpumeter: a command is required: one of {} (gpumeter --help says what "
          "each does)",
          fmt::join(names, ", "));
    }
    if (std::ranges::find(names, *word) == names.end()) {
      return fmt::format(
          "gpumeter: unknown command \"{}\": expected one of {} (gpumeter --help "
          "says what each does)",
          *word, fmt::join(names, ", "));
    }
  }
  if (named == "run" && extras && std::ranges::find(args, "--") == args.end()) {
    return fmt::format(
        "gpumeter run: {}. Put the command after --, so that its options are "
        "its own: gpumeter run [OPTIONS] -- COMMAND [ARGS...]",
        error.what());
  }
  return std::nullopt;
}

int run_app(std::span<const std::string> args, const Io& io, const ServeCommands& serve) {
  CLI::App app{"Measures and accounts for the use of GPUs.", "gpumeter"};
  GlobalOptions options;
  add_global_options(app, options);
  // Global options may follow the subcommand; subcommands copy this setting when created.
  app.fallthrough();
  app.require_subcommand(1);
  const std::vector<Command> table = command_table(args, serve);
  const std::optional<std::string_view> named = named_command(table, args);
  std::vector<Subcommand> commands;
  for (const Command& command : table) {
    if (!named || command.name == *named) commands.push_back(command.add(app));
  }
  try {
    app.parse(reversed_arguments(args));
  } catch (const CLI::ParseError& error) {
    if (auto clearer = clearer_usage_error(error, table, named, args)) {
      io.err << *clearer << '\n';
      return 2;
    }
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
