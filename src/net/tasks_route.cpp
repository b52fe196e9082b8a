#include "net/tasks_route.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "net/query_params.h"
#include "net/response.h"
#include "task/task_json.h"

namespace gpumeter::net {
namespace {

void answer(const TasksSources& sources, const httplib::Request& request,
            httplib::Response& response) {
  const auto since =
      time_param(request, "since", std::numeric_limits<TimeUs>::min(), sources.now_us());
  if (!since) return reply_error(response, 400, since.error().message);
  const auto page = sources.results.ended_since(*since, std::numeric_limits<std::size_t>::max());
  nlohmann::json tasks = nlohmann::json::array();
  for (const task::Task& task : page.tasks) tasks.push_back(task::task_json(task));
  reply_json(response, nlohmann::json{{"schema_version", 1}, {"tasks", std::move(tasks)}});
}

}  // namespace

void add_tasks_route(HttpServer& server, TasksSources sources) {
  server.get("/api/v1/tasks", [sources = std::move(sources)](const httplib::Request& request,
                                                             httplib::Response& response) {
    answer(sources, request, response);
  });
}

}  // namespace gpumeter::net
