// SPDX-License-Identifier: MIT
#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <ranges>
#include <utility>
#include <vector>

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
              {"pending_requests_per_connection", limits.pending_requests_per_connection},
              {"name_bytes", limits.name_bytes},
              {"labels", limits.labels},
              {"label_key_bytes", limits.label_key_bytes},
              {"label_value_bytes", limits.label_value_bytes},
              {"labels_bytes", limits.labels_bytes},
              {"query_max", limits.query_max},
              {"reply_bytes", limits.reply_bytes},
              {"unsent_bytes_per_connection", limits.unsent_bytes_per_connection},
              {"stalled_ms", limits.stalled_ms},
              {"task_bytes", limits.task_bytes}};
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

// Room in a query reply for everything but its tasks: the envelope, the keys, the cursor.
constexpr std::size_t kQueryEnvelopeBytes = 1'024;

// Appends each task's JSON, in the order `tasks` gives them, while `budget` allows; returns
// how many were added. Dumped one at a time so that a large reply is never held twice.
template <class Range>
std::size_t add_within(const Range& tasks, std::vector<std::string>& out, std::size_t& budget) {
  std::size_t added = 0;
  for (const Task* task : tasks) {
    std::string text = task_json(*task).dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() + 1 > budget) break;
    budget -= text.size() + 1;
    out.push_back(std::move(text));
    ++added;
  }
  return added;
}

void append_array(std::string& line, std::string_view key, const std::vector<std::string>& items,
                  bool reversed) {
  line += fmt::format(",\"{}\":[", key);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) line += ',';
    line += items[reversed ? items.size() - 1 - i : i];
  }
  line += ']';
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

std::string query_reply(const RequestId& id, std::span<const Task* const> ended,
                        std::span<const Task* const> open, bool truncated, std::size_t max_bytes) {
  std::size_t budget = max_bytes > kQueryEnvelopeBytes ? max_bytes - kQueryEnvelopeBytes : 0;
  std::vector<std::string> newest_first;
  const std::size_t kept = add_within(std::views::reverse(ended), newest_first, budget);
  std::vector<std::string> open_items;
  const std::size_t open_kept = add_within(open, open_items, budget);
  truncated = truncated || kept < ended.size();
  json reply = envelope(id, true);
  reply["truncated"] = truncated;
  reply["open_truncated"] = open_kept < open.size();
  reply["next"] = truncated && kept > 0
                      ? json(to_string(QueryCursor{ended[ended.size() - kept]->end_us.value_or(0),
                                                   ended[ended.size() - kept]->id}))
                      : json(nullptr);
  std::string text = reply.dump(-1, ' ', false, json::error_handler_t::replace);
  text.pop_back();  // the closing brace: the task arrays follow
  append_array(text, "tasks", newest_first, true);
  append_array(text, "open", open_items, false);
  text += "}\n";
  return text;
}

std::string to_string(const QueryCursor& cursor) {
  return fmt::format("{}:{}", cursor.end_us, cursor.task);
}

std::optional<QueryCursor> parse_cursor(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  QueryCursor cursor;
  const std::string_view end = text.substr(0, colon);
  const std::string_view task = text.substr(colon + 1);
  const auto [end_stop, end_error] = std::from_chars(end.begin(), end.end(), cursor.end_us);
  const auto [task_stop, task_error] = std::from_chars(task.begin(), task.end(), cursor.task);
  if (end_error != std::errc{} || end_stop != end.end() || end.empty() || cursor.end_us < 0 ||
      task_error != std::errc{} || task_stop != task.end() || task.empty()) {
    return std::nullopt;
  }
  return cursor;
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
  reply["tasks"] = json{{"open", status.open},       {"retained", status.retained},
                        {"begun", status.begun},     {"abandoned", status.abandoned},
                        {"dropped", status.dropped}, {"held_bytes", status.held_bytes}};
  reply["limits"] = limits_json(status.limits);
  reply["peer"] = json{{"pid", status.peer_pid}, {"uid", status.peer_uid}};
  reply["history"] = history_json(status.history);
  return line(reply);
}

}  // namespace gpumeter::task
