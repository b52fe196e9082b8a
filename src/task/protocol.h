// SPDX-License-Identifier: MIT
// The task protocol (docs/task-protocol.md): parsing request lines and writing reply lines.
// Pure functions of their arguments, no I/O and no clock, and none of them throws: every
// malformed input becomes a ReplyError, so that they can be fed anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "core/model.h"
#include "task/limits.h"
#include "task/task.h"

namespace gpumeter::task {

inline constexpr int kProtocolVersion = 1;

// The stable error codes of replies.
enum class ReplyCode : std::uint8_t {
  bad_request,
  unknown_op,
  unsupported_version,
  too_large,
  unknown_task,
  unknown_process,
  not_permitted,
  limit_reached,
  internal,
};

// "bad_request", "unknown_op", ...: the words replies carry.
std::string_view to_string(ReplyCode code) noexcept;

// A client's correlation value, echoed in the reply: absent, an integer or a string.
using RequestId = std::variant<std::monostate, std::int64_t, std::string>;

struct ReplyError {
  ReplyCode code = ReplyCode::internal;
  std::string message;  // one line, for people
  RequestId id;         // echoed when the request carried a valid one
};

struct BeginRequest {
  std::string name;
  Labels labels;
  std::optional<Pid> pid;          // another process's (root only) or the caller's own
  std::optional<CpuTimes> rusage;  // the caller's own CPU time when it sent the request
};

struct EndRequest {
  TaskId task = 0;
  bool wait = true;                // reply once the figures are final
  std::optional<CpuTimes> rusage;  // the caller's own CPU time when it sent the request
};

// Where a page of ended tasks stops: the tasks that end before this one (by end time, then
// id) are the next page. Written in replies as "END_TIME_US:TASK".
struct QueryCursor {
  TimeUs end_us = 0;
  TaskId task = 0;
  friend auto operator<=>(const QueryCursor&, const QueryCursor&) = default;
};
std::string to_string(const QueryCursor& cursor);
std::optional<QueryCursor> parse_cursor(std::string_view text);

struct QueryRequest {
  TimeUs since_us = 0;
  std::size_t limit = 0;              // filled with Limits::query_default when absent
  std::optional<QueryCursor> before;  // only tasks that end before it ("before")
};

struct StatusRequest {};

struct Request {
  RequestId id;
  std::variant<BeginRequest, EndRequest, QueryRequest, StatusRequest> op;
};

// Parses one request line (without its newline). Errors: bad_request, unknown_op,
// unsupported_version, with the request's id when it could be read. A line longer than
// limits.line_bytes is too_large.
std::expected<Request, ReplyError> parse_request(std::string_view line, const Limits& limits);

// Whether the line holds only whitespace (such lines are ignored, not answered).
bool is_blank(std::string_view line) noexcept;

// The daemon's history recorder (docs/daemon.md), for the status reply.
struct HistoryStatus {
  std::optional<std::string> database;  // absent when the daemon writes no database
  bool failing = false;                 // the last write to the database failed
  std::optional<std::string> last_error;
  std::uint64_t queued_rows = 0;            // records waiting for the next write
  std::uint64_t written_rows = 0;           // since the daemon started
  std::uint64_t dropped_rows = 0;           // lost to the queue's bound while writes failed
  std::optional<TimeUs> recorded_until_us;  // process intervals recorded up to here
  std::optional<TimeUs> last_write_time_us;
  std::optional<std::string> csv_directory;  // absent when no CSV files are written
  std::optional<std::string> csv_error;      // the last CSV append's error; cleared by a success
};

// The daemon's description of itself, for the status reply.
struct StatusInfo {
  std::string version;
  Pid pid = 0;
  Uid uid = 0;
  TimeUs start_time_us = 0;
  // This run of the daemon: the high bits of its task ids (task.h), drawn at random at start,
  // so a client can tell a restart from a dropped connection.
  std::uint32_t instance = 0;
  std::int64_t interval_ms = 0;
  std::int64_t horizon_seconds = 0;
  std::string source;
  std::optional<TimeUs> last_sample_time_us;
  std::size_t open = 0;
  std::size_t retained = 0;
  std::uint64_t begun = 0;
  std::uint64_t abandoned = 0;
  std::uint64_t dropped = 0;   // retained tasks dropped early to keep within task_bytes
  std::size_t held_bytes = 0;  // the footprint of every open, ending and retained task
  Limits limits;
  Pid peer_pid = 0;
  Uid peer_uid = 0;
  std::optional<HistoryStatus> history;  // absent when the daemon keeps no history
};

// Reply lines, each ending in '\n'.
std::string error_reply(const ReplyError& error);
std::string begin_reply(const RequestId& id, const Task& task);
std::string end_reply(const RequestId& id, const Task& task);
// `ended` oldest end first, `open` oldest begin first. The reply keeps within `max_bytes`: it
// holds the newest ended tasks that fit, then the oldest open ones that fit; "truncated" when
// an ended task was left out (here or by `truncated`), with "next" the cursor to the older
// ones, and "open_truncated" when an open task was.
std::string query_reply(const RequestId& id, std::span<const Task* const> ended,
                        std::span<const Task* const> open, bool truncated, std::size_t max_bytes);
std::string status_reply(const RequestId& id, const StatusInfo& status);

}  // namespace gpumeter::task
