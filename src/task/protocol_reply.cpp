#include <nlohmann/json.hpp>
#include <utility>

#include "task/protocol.h"
#include "task/task_json.h"

namespace gpumeter::task {
namespace {

using nlohmann::json;

json id_json(const RequestId& id) {
  if (const auto* number = std::get_if<std::int64_t>(&id)) return *number;
  if (const auto* text = std::get_if<std::string>(&id)) return *text;
  return nullptr;
}

json envelope(const RequestId& id, bool ok) {
  json reply{{"v", kProtocolVersion}, {"ok", ok}};
  if (!std::holds_alternative<std::monostate>(id)) reply["id"] = id_json(id);
  return reply;
}

// Strings came from clients as valid UTF-8 (the parser checks), but a reply must never fail to
// be written, so anything else is replaced rather than thrown over.
std::string line(const json& reply) {
  return reply.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}

json limits_json(const Limits& limits) {
  return json{{"line_bytes", limits.line_bytes},
              {"open_tasks_per_process", limits.open_tasks_per_process},
              {"open_tasks", limits.open_tasks},
              {"retained_tasks", limits.retained_tasks},
              {"connections", limits.connections},
              {"pending_requests_per_connection", limits.pending_requests_per_connection}};
}

template <class T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json history_json(const std::optional<HistoryStatus>& history) {
  if (!history) return nullptr;
  json csv = nullptr;
  if (history->csv_directory) {
    csv = json{{"directory", *history->csv_directory}, {"last_error", or_null(history->csv_error)}};
  }
  return json{{"database", or_null(history->database)},
              {"state", history->failing ? "failing" : "ok"},
              {"last_error", or_null(history->last_error)},
              {"queued_rows", history->queued_rows},
              {"written_rows", history->written_rows},
              {"dropped_rows", history->dropped_rows},
              {"recorded_until_us", or_null(history->recorded_until_us)},
              {"last_write_time_us", or_null(history->last_write_time_us)},
              {"csv", csv}};
}

json tasks_json(std::span<const Task> tasks) {
  json array = json::array();
  for (const Task& task : tasks) array.push_back(task_json(task));
  return array;
}

}  // namespace

std::string_view to_string(ReplyCode code) noexcept {
  switch (code) {
    case ReplyCode::bad_request: return "bad_request";
    case ReplyCode::unknown_op: return "unknown_op";
    case ReplyCode::unsupported_version: return "unsupported_version";
    case ReplyCode::too_large: return "too_large";
    case ReplyCode::unknown_task: return "unknown_task";
    case ReplyCode::unknown_process: return "unknown_process";
    case ReplyCode::not_permitted: return "not_permitted";
    case ReplyCode::limit_reached: return "limit_reached";
    case ReplyCode::internal: return "internal";
  }
  return "internal";
}

std::string error_reply(const ReplyError& error) {
  json reply = envelope(error.id, false);
  reply["error"] = json{{"code", to_string(error.code)}, {"message", error.message}};
  return line(reply);
}

std::string begin_reply(const RequestId& id, const Task& task) {
  json reply = envelope(id, true);
  reply["task"] = task.id;
  reply["pid"] = task.owner.pid;
  reply["begin_time_us"] = task.begin_us;
  return line(reply);
}

std::string end_reply(const RequestId& id, const Task& task) {
  json reply = envelope(id, true);
  reply.update(task_json(task));
  return line(reply);
}

std::string query_reply(const RequestId& id, std::span<const Task> ended,
                        std::span<const Task> open, bool truncated) {
  json reply = envelope(id, true);
  reply["tasks"] = tasks_json(ended);
  reply["open"] = tasks_json(open);
  reply["truncated"] = truncated;
  return line(reply);
}

std::string status_reply(const RequestId& id, const StatusInfo& status) {
  json reply = envelope(id, true);
  reply["daemon"] = json{{"version", status.version},
                         {"pid", status.pid},
                         {"uid", status.uid},
                         {"start_time_us", status.start_time_us},
                         {"instance", status.instance}};
  reply["sampler"] =
      json{{"interval_ms", status.interval_ms},
           {"horizon_seconds", status.horizon_seconds},
           {"source", status.source},
           {"last_sample_time_us",
            status.last_sample_time_us ? json(*status.last_sample_time_us) : json(nullptr)}};
  reply["tasks"] = json{{"open", status.open},
                        {"retained", status.retained},
                        {"begun", status.begun},
                        {"abandoned", status.abandoned}};
  reply["limits"] = limits_json(status.limits);
  reply["peer"] = json{{"pid", status.peer_pid}, {"uid", status.peer_uid}};
  reply["history"] = history_json(status.history);
  return line(reply);
}

}  // namespace gpumeter::task
