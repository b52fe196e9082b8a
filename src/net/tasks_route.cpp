// SPDX-License-Identifier: MIT
#include "net/tasks_route.h"

#include <fmt/format.h>

#include <chrono>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <semaphore>
#include <utility>

#include "net/query_params.h"
#include "net/response.h"
#include "task/task_json.h"

namespace gpumeter::net {
namespace {

// A page of 1,000 tasks with the largest labels takes about 30 MB while its answer is built
// (the copies, the document, its text), and the server has several threads: 8 readers at once
// took the daemon from 34 MB to 170 MB. Two answers are built at a time; the other requests
// wait their turn, up to kTurnWait (then 503).
constexpr std::ptrdiff_t kTaskAnswersAtOnce = 2;
constexpr std::chrono::seconds kTurnWait{5};
using AnswerTurns = std::counting_semaphore<kTaskAnswersAtOnce>;

// Gives a taken turn back however the answer ends.
struct TurnHeld {
  AnswerTurns& turns;
  ~TurnHeld() { turns.release(); }
};

std::expected<std::optional<task::QueryCursor>, Error> before_param(
    const httplib::Request& request) {
  const auto text = query_param(request, "before");
  if (!text) return std::nullopt;
  const auto cursor = task::parse_cursor(*text);
  if (!cursor) {
    return std::unexpected(
        bad_param("before", fmt::format("\"{}\" is not the \"next\" of an earlier answer "
                                        "(END_TIME_US:TASK)",
                                        *text)));
  }
  return cursor;
}

// name=NAME, user=NAME, label=KEY=VALUE: each given one must match exactly.
std::expected<task::TaskFilter, Error> filter_params(const httplib::Request& request) {
  task::TaskFilter filter;
  filter.name = query_param(request, "name");
  filter.user = query_param(request, "user");
  if (auto label = query_param(request, "label")) {
    const std::string& text = *label;
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
      return std::unexpected(bad_param("label", fmt::format("\"{}\" is not KEY=VALUE", text)));
    }
    filter.label = std::pair(text.substr(0, equals), text.substr(equals + 1));
  }
  return filter;
}

nlohmann::json tasks_json(const std::vector<task::Task>& tasks) {
  nlohmann::json out = nlohmann::json::array();
  for (const task::Task& task : tasks) out.push_back(task::task_json(task));
  return out;
}

nlohmann::json totals_json(const std::vector<task::NameTotals>& totals) {
  nlohmann::json out = nlohmann::json::array();
  for (const task::NameTotals& t : totals) {
    out.push_back({{"name", t.name},
                   {"tasks", t.tasks},
                   {"duration_seconds", t.duration_seconds},
                   {"sm_busy_seconds", t.sm_busy_seconds},
                   {"energy_joules", t.energy_joules},
                   {"measured", t.known}});
  }
  return out;
}

void answer(const TasksSources& sources, const httplib::Request& request,
            httplib::Response& response) {
  const auto since =
      time_param(request, "since", std::numeric_limits<TimeUs>::min(), sources.now_us());
  if (!since) return reply_error(response, 400, since.error().message);
  const auto limit = page_size_param(request, "limit", kMaxTasksPerPage);
  if (!limit) return reply_error(response, 400, limit.error().message);
  const auto before = before_param(request);
  if (!before) return reply_error(response, 400, before.error().message);
  const auto filter = filter_params(request);
  if (!filter) return reply_error(response, 400, filter.error().message);
  const auto open = flag_param(request, "open");
  if (!open) return reply_error(response, 400, open.error().message);
  const auto page = sources.results.ended_since(*since, *limit, *before, *filter);
  nlohmann::json document{
      {"schema_version", 1},
      {"tasks", tasks_json(page.tasks)},
      {"truncated", page.truncated},
      {"next", page.next ? nlohmann::json(task::to_string(*page.next)) : nlohmann::json(nullptr)},
      {"matched", page.matched},
      {"totals", totals_json(sources.results.totals_by_name(*since, *filter))}};
  if (*open) {
    const auto running = sources.results.running(*limit, *filter);
    document["open"] = tasks_json(running.tasks);
    document["open_truncated"] = running.truncated;
    document["open_matched"] = running.matched;
  }
  reply_json(response, document);
}

}  // namespace

void add_tasks_route(HttpServer& server, TasksSources sources) {
  auto turns = std::make_shared<AnswerTurns>(kTaskAnswersAtOnce);
  server.get("/api/v1/tasks", [sources = std::move(sources), turns](const httplib::Request& request,
                                                                    httplib::Response& response) {
    if (!turns->try_acquire_for(kTurnWait)) {
      return reply_error(response, 503,
                         fmt::format("busy: {} other task answers were being built for {} s; "
                                     "ask again",
                                     kTaskAnswersAtOnce, kTurnWait.count()));
    }
    const TurnHeld held{*turns};
    answer(sources, request, response);
  });
}

}  // namespace gpumeter::net
