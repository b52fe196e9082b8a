// SPDX-License-Identifier: MIT
// The task service: carries out protocol requests against the registry and the monitor. It
// sees lines and peers, never sockets, so that every request can be tested without one. Not
// synchronised: the server calls it from its one thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "task/monitor.h"
#include "task/protocol.h"
#include "task/registry.h"
#include "task/result_sink.h"

namespace gpumeter::task {

struct ServiceConfig {
  Limits limits;
  StatusInfo daemon;               // version, pid, uid, start, interval, horizon, source
  TimeUs interval_us = 1'000'000;  // the sampler's interval
  // The history recorder's state for the status reply; unset when the daemon keeps none.
  std::function<HistoryStatus()> history;
};

// The result of one request: a reply now, or a reply once a task's figures are final.
struct Outcome {
  std::string reply;              // the reply line; empty while `waiting`
  std::optional<TaskId> waiting;  // the end reply waits for this task to settle
  RequestId id;                   // echoed in the reply written later
  bool close = false;             // close the connection once the reply is sent
};

class Service {
 public:
  // The monitor, and `results` when given, must outlive the service. Every task opened,
  // ending and settled is handed to `results` too.
  Service(Monitor& monitor, ServiceConfig config, ResultSink* results = nullptr);

  // The caller behind a connection, identified once when it is accepted.
  Caller identify(Pid pid, Uid uid);

  // Carries out one request line read at now_us (blank lines excluded).
  Outcome handle(std::string_view line, const Caller& caller, TimeUs now_us);

  // The reply to a line longer than the limit; the connection is closed after it.
  Outcome too_large() const;
  // The reply to a connection over the connection limit.
  std::string too_many_connections() const;

  // Called every turn of the server's loop: once per sampler round, ends the tasks of
  // processes that exited; settles the ending tasks whose samples are complete (a round at
  // or after monitor.complete_after(end)), or whose wait ran out. Returns the tasks settled.
  std::vector<Task> advance(TimeUs now_us);
  // Settles every ending task with what there is (shutdown).
  std::vector<Task> settle_all();
  bool has_ending() const noexcept { return !registry_.ending().empty(); }

  // The end reply of a settled task.
  static std::string end_reply_for(const RequestId& id, const Task& task);

 private:
  Outcome begin(const RequestId& id, const BeginRequest& request, const Caller& caller,
                TimeUs now_us);
  Outcome end(const RequestId& id, const EndRequest& request, const Caller& caller, TimeUs now_us);
  Outcome query(const RequestId& id, const QueryRequest& request, const Caller& caller) const;
  Outcome status(const RequestId& id, const Caller& caller) const;
  std::expected<Task, ReplyError> draft(const BeginRequest& request, const Caller& caller);
  // The owner's CPU and memory now; at a begin, its high-water mark is reset after reading.
  EdgeReading read_edge(const ProcessKey& owner, bool begins);
  void check_owners(TimeUs now_us);
  std::optional<Task> settle(const Task& ending);
  std::vector<Task> settle_each(const std::vector<Task>& due);

  Monitor& monitor_;
  ServiceConfig config_;
  ResultSink* results_;
  Registry registry_;
  std::optional<TimeUs> checked_round_us_;
};

}  // namespace gpumeter::task
