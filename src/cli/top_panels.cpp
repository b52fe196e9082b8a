// SPDX-License-Identifier: MIT
#include "cli/top_panels.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/report_database.h"
#include "cli/report_table.h"
#include "cli/tasks_table.h"
#include "store/location.h"
#include "task/exchange.h"
#include "task/socket_path.h"
#include "view/report_time.h"
#include "view/usage_report.h"

namespace gpumeter::cli {
namespace {

constexpr TimeUs kTaskWindowUs = 600'000'000;  // the tasks of the last ten minutes

void read_tasks(const TopPanelSources& sources, TimeUs now_us, top::Panes& panes) {
  const auto path = sources.socket.empty()
                        ? task::default_socket_path(task::socket_environment())
                        : std::expected<std::filesystem::path, Error>(sources.socket);
  if (!path) {
    panes.tasks_note = path.error().message;
    return;
  }
  const nlohmann::json query{{"op", "query"},
                             {"v", 1},
                             {"limit", 1000},
                             {"since_time_us", std::max<TimeUs>(0, now_us - kTaskWindowUs)}};
  const auto reply = task::exchange(*path, query.dump());
  if (!reply) {
    panes.tasks_note = fmt::format("no tasks: {} (tasks are measured by `gpumeter daemon`)",
                                   reply.error().message);
    return;
  }
  const nlohmann::json document = nlohmann::json::parse(*reply, nullptr, false);
  if (!document.is_object() || document.value("ok", false) != true) {
    panes.tasks_note = fmt::format("no tasks: {} answered {}", path->string(), *reply);
    return;
  }
  panes.tasks = pane_lines(render_tasks_table(document, now_us, false));
}

void read_users(const TopPanelSources& sources, TimeUs now_us, top::Panes& panes) {
  auto store = open_report_database(
      report_database_candidates(sources.database, store::location_environment()));
  if (!store) {
    panes.users_note = "no history: " + store.error().message;
    return;
  }
  const store::UsageQuery query{.since_us = view::period_start(view::CalendarPeriod::day, now_us),
                                .until_us = now_us,
                                .group_by = {store::GroupBy::user},
                                .local_time = true};
  auto report =
      view::build_usage_report(*store, query, sources.quotas ? &*sources.quotas : nullptr);
  if (!report) {
    panes.users_note = "no history: " + report.error().message;
    return;
  }
  panes.users = pane_lines(render_usage_table(*report, false));
}

}  // namespace

std::vector<std::string> pane_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

top::Panes read_panels(const TopPanelSources& sources, TimeUs now_us) {
  top::Panes panes;
  read_tasks(sources, now_us, panes);
  read_users(sources, now_us, panes);
  return panes;
}

}  // namespace gpumeter::cli
