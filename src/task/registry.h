// SPDX-License-Identifier: MIT
// The task registry: open tasks by process, tasks that ended and wait for their figures, and a
// bounded ring of tasks whose figures are final. No I/O and no clock: callers pass times in.
// Every collection is bounded by Limits, so a client that floods begins without ends hits
// limit_reached instead of growing the daemon.
#pragma once

#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/process_key.h"
#include "task/limits.h"
#include "task/protocol.h"
#include "task/task.h"

namespace gpumeter::task {

// Who is asking: the peer of a connection.
struct Caller {
  Pid pid = 0;
  Uid uid = 0;
  std::optional<ProcessKey> key;  // absent when the peer's process could not be identified
};

// Points into the registry: valid until it next changes. Pointers, not copies, so that a query
// costs no more memory than its reply.
struct QueryResult {
  std::vector<const Task*> ended;  // ended and ending tasks, oldest end first
  std::vector<const Task*> open;   // oldest begin first
  bool truncated = false;          // more ended tasks matched than the limit
};

// The memory a task holds, estimated from its parts (the strings, the nodes of its label map,
// its figures): what Limits::task_bytes counts. An estimate, not malloc's exact count, but it
// grows with everything a client controls.
std::size_t footprint(const Task& task) noexcept;

// A random instance number for a daemon's registry, 1 .. kTaskInstanceLimit - 1: two runs of
// the daemon share one with a chance of about one in a million.
std::uint32_t random_instance();

class Registry {
 public:
  // Ids are `instance` << kTaskSequenceBits plus a sequence number from 1; instance 0 (tests)
  // gives 1, 2, 3, ... Precondition: instance < kTaskInstanceLimit.
  explicit Registry(Limits limits, std::uint32_t instance = 0);

  // Opens `draft` (its id and state are assigned) at draft.begin_us. Open and ending tasks
  // both count towards the limits, since both hold memory until the sampler catches up; so
  // does their footprint towards Limits::task_bytes (retained tasks make room first).
  // Errors: limit_reached.
  std::expected<Task, ReplyError> begin(Task draft);

  // Ends an open task at end_us with what was read at its end: it becomes `ending`. Only the
  // owning process or root may. Errors: unknown_task, not_permitted.
  std::expected<Task, ReplyError> end(TaskId id, const Caller& caller, TimeUs end_us,
                                      TaskEdge edge = {});

  // The open task `id`; null when there is none.
  const Task* find_open(TaskId id) const;

  // A reading of `owner`'s resident high-water mark: each of its open tasks whose peak is
  // tracked (Task::peak_rss_bytes) takes it as its peak when higher. Call it before the mark
  // is reset, so that the tasks open before the reset keep what the mark held.
  void note_peak_rss(const ProcessKey& owner, std::uint64_t mark);

  // Ends every open task of `owner` at its last-seen time, flagged abandoned; returns them.
  std::vector<Task> abandon(const ProcessKey& owner);

  // Records that `owner` was alive at `time_us`.
  void seen_alive(const ProcessKey& owner, TimeUs time_us);

  // Gives an ending task its figures, or the reason it has none, and retains it (dropping the
  // oldest retained tasks beyond the count limit or Limits::task_bytes). Returns the task, or
  // nothing if it was not ending.
  std::optional<Task> settle(TaskId id, std::expected<TaskFigures, std::string> figures);

  // The processes that have open tasks.
  std::vector<ProcessKey> owners() const;
  // Open plus ending tasks of `owner`: the sampler watches it while this is above 0.
  std::size_t active(const ProcessKey& owner) const;
  const std::map<TaskId, Task>& ending() const noexcept { return ending_; }

  // Tasks that ended at or after since_us and before `before` (at most `limit`, the newest),
  // and the open ones; only those `visible` accepts.
  QueryResult query(TimeUs since_us, std::optional<QueryCursor> before, std::size_t limit,
                    const std::function<bool(const Task&)>& visible) const;

  std::size_t open_count() const noexcept { return open_.size(); }
  std::size_t retained_count() const noexcept { return ended_.size() + ending_.size(); }
  std::uint64_t begun() const noexcept { return begun_; }
  std::uint64_t abandoned() const noexcept { return abandoned_; }
  // Retained tasks dropped before their time to keep within Limits::task_bytes.
  std::uint64_t dropped() const noexcept { return dropped_; }
  // The footprint of every open, ending and retained task.
  std::size_t held_bytes() const noexcept { return active_bytes_ + retained_bytes_; }

 private:
  struct OwnerState {
    std::size_t open = 0;
    std::size_t active = 0;  // open + ending
    TimeUs last_seen_us = 0;
  };

  Task close(std::map<TaskId, Task>::iterator open, TimeUs end_us, bool abandoned);
  // Drops the oldest retained tasks while more than `count` are kept or all tasks hold more
  // than `bytes`.
  void trim_retained(std::size_t count, std::size_t bytes);

  Limits limits_;
  std::map<TaskId, Task> open_;
  std::map<TaskId, Task> ending_;
  std::deque<Task> ended_;
  std::map<ProcessKey, OwnerState> owners_;
  TaskId next_id_ = 1;
  std::uint64_t begun_ = 0;
  std::uint64_t abandoned_ = 0;
  std::uint64_t dropped_ = 0;
  std::size_t active_bytes_ = 0;    // open and ending tasks
  std::size_t retained_bytes_ = 0;  // ended_
};

}  // namespace gpumeter::task
