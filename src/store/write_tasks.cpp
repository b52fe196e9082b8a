// SPDX-License-Identifier: MIT
// Task results: one row per ended task.
#include <nlohmann/json.hpp>

#include "store/sql_integers.h"
#include "store/write_parts.h"

namespace gpumeter::store {
namespace {

constexpr const char* kInsertTask = R"sql(
INSERT OR REPLACE INTO tasks (host_id, task_id, name, labels, pid, process_start_time_us, uid,
                              user, begin_us, end_us, abandoned, usage_error, cpu_user_seconds,
                              cpu_system_seconds, peak_rss_bytes, host_complete, gpus)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17))sql";

}  // namespace

std::expected<void, Error> write_tasks(sqlite::Connection& connection, std::int64_t host_id,
                                       std::span<const TaskRecord> tasks) {
  for (const TaskRecord& task : tasks) {
    auto statement = connection.cached(kInsertTask);
    if (!statement) return std::unexpected(std::move(statement.error()));
    const std::string labels = nlohmann::json(task.labels).dump();
    const std::string gpus = gpus_json(task.gpus);
    (*statement)
        ->bind_all(host_id, static_cast<std::int64_t>(task.id), std::string_view(task.name),
                   std::string_view(labels), std::int64_t{task.owner.pid}, task.owner.start_time_us,
                   as_int64(task.uid), task.user, task.begin_us, task.end_us,
                   std::int64_t{task.abandoned ? 1 : 0}, task.usage_error, task.cpu_user_seconds,
                   task.cpu_system_seconds, as_int64(task.peak_rss_bytes),
                   std::int64_t{task.host_complete ? 1 : 0}, std::string_view(gpus));
    if (auto done = (*statement)->run(); !done) return done;
  }
  return {};
}

}  // namespace gpumeter::store
