// SPDX-License-Identifier: MIT
// `gpumeter tasks`: asks the running daemon for the tasks that ended recently and those still
// open, and prints them as a table or JSON. It reads no GPU, so it opens no source.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/tasks_table.h"
#include "core/duration.h"
#include "core/wall_clock.h"
#include "task/exchange.h"
#include "task/server.h"
#include "task/socket_path.h"

namespace gpumeter::cli {
namespace {

using nlohmann::json;

struct TasksOptions {
  std::string since;  // empty: every task the daemon retains
  bool json = false;
  std::string socket;  // empty: the default path
};

std::expected<std::filesystem::path, Error> socket_path(const TasksOptions& options) {
  if (!options.socket.empty()) return std::filesystem::path(options.socket);
  return task::default_socket_path(task::socket_environment());
}

std::string query_line(const TasksOptions& options, TimeUs now_us) {
  json query{{"op", "query"}, {"v", 1}, {"limit", 10'000}};
  if (const auto since = parse_whole_seconds(options.since)) {
    query["since_time_us"] =
        std::max<TimeUs>(0, now_us - std::chrono::microseconds(*since).count());
  }
  return query.dump();
}

std::expected<json, Error> ask_daemon(const TasksOptions& options, TimeUs now_us) {
  const auto path = socket_path(options);
  if (!path) return std::unexpected(path.error());
  const auto reply = task::exchange(*path, query_line(options, now_us));
  if (!reply) return std::unexpected(reply.error());
  json document = json::parse(*reply, nullptr, false);
  if (!document.is_object() || !document.contains("ok")) {
    return std::unexpected(
        Error{ErrorCode::io, fmt::format("{}: the daemon's reply is not JSON", path->string())});
  }
  if (document["ok"] != true) {
    const json& message = document["error"]["message"];
    return std::unexpected(
        Error{ErrorCode::io,
              fmt::format("the daemon refused: {}",
                          message.is_string() ? message.get<std::string>() : document.dump())});
  }
  return document;
}

int run_tasks(std::ostream& out, std::ostream& err, const TasksOptions& options) {
  const TimeUs now_us = wall_clock_us();
  const auto reply = ask_daemon(options, now_us);
  if (!reply) {
    err << "gpumeter: " << reply.error().message << '\n';
    return 1;
  }
  if (options.json) {
    const json document{{"tasks", reply->value("tasks", json::array())},
                        {"open", reply->value("open", json::array())},
                        {"truncated", reply->value("truncated", false)}};
    out << document.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
  } else {
    out << render_tasks_table(*reply, now_us, false);
  }
  return 0;
}

CLI::Validator since_validator() {
  return CLI::Validator(
      [](const std::string& text) {
        return parse_whole_seconds(text)
                   ? std::string{}
                   : fmt::format("\"{}\" is not a duration such as 90s, 10m or 2h", text);
      },
      "DURATION");
}

}  // namespace

Subcommand add_tasks_command(CLI::App& app) {
  auto options = std::make_shared<TasksOptions>();
  CLI::App* tasks =
      app.add_subcommand("tasks", "Show the tasks the running daemon measured (docs/daemon.md)");
  tasks->add_option("--since", options->since, "Only tasks that ended in the last DURATION")
      ->check(since_validator());
  tasks->add_flag("--json", options->json,
                  "Print JSON (the task records of docs/task-protocol.md)");
  tasks
      ->add_option("--socket", options->socket,
                   "The daemon's socket (default: $GPUMETER_SOCKET, else the daemon's default)")
      ->option_text("PATH");
  Subcommand command{tasks, nullptr};
  command.run_without_session = [options](std::ostream& out, std::ostream& err) {
    return run_tasks(out, err, *options);
  };
  return command;
}

}  // namespace gpumeter::cli
