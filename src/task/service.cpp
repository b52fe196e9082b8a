// SPDX-License-Identifier: MIT
#include "task/service.h"

#include <fmt/format.h>

#include <utility>

#include "task/edge_figures.h"

namespace gpumeter::task {
namespace {

// How long an end waits for the sampler before answering with what there is: the sampler
// should pass the end within one interval; three and a margin cover a slow round.
constexpr TimeUs kWaitMarginUs = 5'000'000;

Outcome refused(const RequestId& id, ReplyError error) {
  error.id = id;
  return Outcome{error_reply(error), std::nullopt, id, false};
}

Outcome ready(const RequestId& id, std::string reply) {
  return Outcome{std::move(reply), std::nullopt, id, false};
}

}  // namespace

Service::Service(Monitor& monitor, ServiceConfig config, ResultSink* results)
    : monitor_(monitor),
      config_(std::move(config)),
      results_(results),
      registry_(config_.limits, config_.daemon.instance) {}

Caller Service::identify(Pid pid, Uid uid) {
  return Caller{pid, uid, monitor_.key_for(pid)};
}

Outcome Service::handle(std::string_view line, const Caller& caller, TimeUs now_us) {
  auto request = parse_request(line, config_.limits);
  if (!request) {
    Outcome outcome = refused(request.error().id, request.error());
    outcome.close = request.error().code == ReplyCode::too_large;
    return outcome;
  }
  const RequestId& id = request->id;
  if (const auto* begin_request = std::get_if<BeginRequest>(&request->op)) {
    return begin(id, *begin_request, caller, now_us);
  }
  if (const auto* end_request = std::get_if<EndRequest>(&request->op)) {
    return end(id, *end_request, caller, now_us);
  }
  if (const auto* query_request = std::get_if<QueryRequest>(&request->op)) {
    return query(id, *query_request, caller);
  }
  return status(id, caller);
}

Outcome Service::too_large() const {
  const ReplyError error{
      ReplyCode::too_large,
      fmt::format("a request line may hold at most {} bytes; closing", config_.limits.line_bytes),
      {}};
  return Outcome{error_reply(error), std::nullopt, {}, true};
}

std::string Service::too_many_connections() const {
  return error_reply(ReplyError{
      ReplyCode::limit_reached,
      fmt::format("the daemon serves at most {} connections; closing", config_.limits.connections),
      {}});
}

std::expected<Task, ReplyError> Service::draft(const BeginRequest& request, const Caller& caller) {
  Task task{.name = request.name, .labels = request.labels};
  if (!request.pid || *request.pid == caller.pid) {
    if (!caller.key) {
      return std::unexpected(
          ReplyError{ReplyCode::unknown_process, "the calling process cannot be identified", {}});
    }
    task.owner = *caller.key;
    task.uid = caller.uid;
  } else if (request.rusage) {
    return std::unexpected(
        ReplyError{ReplyCode::bad_request,
                   "\"rusage\" describes the caller; it cannot come with another \"pid\"",
                   {}});
  } else if (caller.uid != 0) {
    return std::unexpected(
        ReplyError{ReplyCode::not_permitted, "only root may mark tasks for another process", {}});
  } else {
    const auto key = monitor_.key_for(*request.pid);
    if (!key) {
      return std::unexpected(
          ReplyError{ReplyCode::unknown_process, fmt::format("no process {}", *request.pid), {}});
    }
    task.owner = *key;
    task.uid = monitor_.uid_of(*request.pid);
  }
  if (task.uid) task.user = monitor_.user_name(*task.uid);
  return task;
}

EdgeReading Service::read_edge(const ProcessKey& owner, bool begins) {
  const EdgeReading reading = monitor_.read_edge(owner, begins);
  // The mark read before a reset belongs to the tasks already open; at an end, to all.
  if (reading.peak_rss_bytes) registry_.note_peak_rss(owner, *reading.peak_rss_bytes);
  return reading;
}

Outcome Service::begin(const RequestId& id, const BeginRequest& request, const Caller& caller,
                       TimeUs now_us) {
  auto task = draft(request, caller);
  if (!task) return refused(id, std::move(task.error()));
  task->begin_us = now_us;
  const EdgeReading reading = read_edge(task->owner, true);
  task->begin_edge = TaskEdge{request.rusage, reading.cpu, reading.rss_bytes, reading.gpu_memory};
  // After the reset the mark is the resident amount, the start of this task's peak.
  if (reading.peak_reset) task->peak_rss_bytes = reading.rss_bytes.value_or(0);
  const ProcessKey owner = task->owner;
  auto opened = registry_.begin(std::move(*task));
  if (!opened) {
    // The monitor may keep what it read of the owner until unwatched: nothing is left open.
    if (registry_.active(owner) == 0) monitor_.unwatch(owner);
    return refused(id, std::move(opened.error()));
  }
  if (registry_.active(opened->owner) == 1) monitor_.watch(opened->owner);
  if (results_ != nullptr) results_->opened(*opened);
  return ready(id, begin_reply(id, *opened));
}

Outcome Service::end(const RequestId& id, const EndRequest& request, const Caller& caller,
                     TimeUs now_us) {
  const Task* open = registry_.find_open(request.task);
  TaskEdge edge;
  if (open != nullptr) {
    const bool own = caller.key == open->owner;
    if (request.rusage && !own) {
      return refused(id, ReplyError{ReplyCode::bad_request,
                                    "\"rusage\" describes the caller; this task is another "
                                    "process's",
                                    {}});
    }
    const EdgeReading reading = read_edge(open->owner, false);
    edge = TaskEdge{request.rusage, reading.cpu, reading.rss_bytes, reading.gpu_memory};
  }
  auto ended = registry_.end(request.task, caller, now_us, std::move(edge));
  if (!ended) return refused(id, std::move(ended.error()));
  if (results_ != nullptr) results_->ending(*ended);
  if (request.wait) return Outcome{{}, ended->id, id, false};
  return ready(id, end_reply(id, *ended));
}

Outcome Service::query(const RequestId& id, const QueryRequest& request,
                       const Caller& caller) const {
  const bool sees_all = caller.uid == 0 || caller.uid == config_.daemon.uid;
  const auto visible = [&](const Task& task) { return sees_all || task.uid == caller.uid; };
  const QueryResult result =
      registry_.query(request.since_us, request.before, request.limit, visible);
  return ready(
      id, query_reply(id, result.ended, result.open, result.truncated, config_.limits.reply_bytes));
}

Outcome Service::status(const RequestId& id, const Caller& caller) const {
  StatusInfo info = config_.daemon;
  info.last_sample_time_us = monitor_.last_sample_time_us();
  info.open = registry_.open_count();
  info.retained = registry_.retained_count();
  info.begun = registry_.begun();
  info.abandoned = registry_.abandoned();
  info.dropped = registry_.dropped();
  info.held_bytes = registry_.held_bytes();
  info.limits = config_.limits;
  info.peer_pid = caller.pid;
  info.peer_uid = caller.uid;
  if (config_.history) info.history = config_.history();
  return ready(id, status_reply(id, info));
}

void Service::check_owners(TimeUs now_us) {
  for (const ProcessKey& owner : registry_.owners()) {
    if (monitor_.key_for(owner.pid) == owner) {
      registry_.seen_alive(owner, now_us);
    } else {
      for (const Task& abandoned : registry_.abandon(owner)) {
        if (results_ != nullptr) results_->ending(abandoned);
      }
    }
  }
}

std::optional<Task> Service::settle(const Task& ending) {
  const Window window{ending.begin_us, ending.end_us.value_or(ending.begin_us)};
  std::expected<TaskFigures, std::string> figures =
      window.length_us() > 0 ? monitor_.figures(ending.owner, window)
                             : std::unexpected(std::string("the task lasted no time"));
  if (figures) apply_edges(ending, *figures);
  auto settled = registry_.settle(ending.id, std::move(figures));
  if (!settled) return settled;
  if (registry_.active(settled->owner) == 0) monitor_.unwatch(settled->owner);
  if (results_ != nullptr) results_->settled(*settled);
  return settled;
}

std::vector<Task> Service::settle_each(const std::vector<Task>& due) {
  std::vector<Task> settled;
  settled.reserve(due.size());
  for (const Task& task : due) {
    if (auto done = settle(task)) settled.push_back(std::move(*done));
  }
  return settled;
}

std::vector<Task> Service::advance(TimeUs now_us) {
  const auto round = monitor_.last_sample_time_us();
  if (round && round != checked_round_us_) {
    checked_round_us_ = round;
    check_owners(now_us);
  }
  const TimeUs patience = 3 * config_.interval_us + kWaitMarginUs;
  std::vector<Task> due;
  for (const auto& [id, task] : registry_.ending()) {
    const TimeUs end_us = task.end_us.value_or(task.begin_us);
    const bool passed = round.has_value() && *round >= monitor_.complete_after(end_us);
    if (passed || now_us >= end_us + patience) due.push_back(task);
  }
  return settle_each(due);
}

std::vector<Task> Service::settle_all() {
  std::vector<Task> due;
  due.reserve(registry_.ending().size());
  for (const auto& [id, task] : registry_.ending()) due.push_back(task);
  return settle_each(due);
}

std::string Service::end_reply_for(const RequestId& id, const Task& task) {
  return end_reply(id, task);
}

}  // namespace gpumeter::task
