// SPDX-License-Identifier: MIT
#include "task/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <utility>

namespace gpumeter::task {
namespace {

ReplyError refusal(ReplyCode code, std::string message) {
  return ReplyError{code, std::move(message), {}};
}

bool ends_before(const Task& a, const Task& b) {
  return std::pair(a.end_us.value_or(0), a.id) < std::pair(b.end_us.value_or(0), b.id);
}

// What a node of a std::map<std::string, std::string> costs besides its characters: the tree
// links, two std::string and malloc's own header.
constexpr std::size_t kNodeBytes = 112;

// By size, not capacity, so that a copy of a task counts the same as the task. Short strings
// live inside the std::string itself (15 characters in libstdc++).
std::size_t text_bytes(const std::string& text) noexcept {
  constexpr std::size_t kInline = 15;
  constexpr std::size_t kMallocBytes = 16;
  return text.size() <= kInline ? 0 : text.size() + 1 + kMallocBytes;
}

std::size_t figures_bytes(const TaskFigures& figures) noexcept {
  std::size_t bytes = sizeof(TaskFigures) + figures.usage.gpus.capacity() * sizeof(GpuUsage);
  for (const auto& [index, uuid] : figures.gpu_uuids) bytes += kNodeBytes + text_bytes(uuid);
  return bytes;
}

}  // namespace

std::size_t footprint(const Task& task) noexcept {
  std::size_t bytes = sizeof(Task) + text_bytes(task.name);
  for (const auto& [key, value] : task.labels) {
    bytes += kNodeBytes + text_bytes(key) + text_bytes(value);
  }
  if (task.user) bytes += text_bytes(*task.user);
  if (task.figures) bytes += figures_bytes(*task.figures);
  if (task.figures_error) bytes += text_bytes(*task.figures_error);
  return bytes;
}

std::uint32_t random_instance() {
  std::random_device entropy;
  return std::uniform_int_distribution<std::uint32_t>(1, kTaskInstanceLimit - 1)(entropy);
}

Registry::Registry(Limits limits, std::uint32_t instance)
    : limits_(limits), next_id_((TaskId{instance} << kTaskSequenceBits) + 1) {}

std::expected<Task, ReplyError> Registry::begin(Task draft) {
  if (open_.size() + ending_.size() >= limits_.open_tasks) {
    return std::unexpected(refusal(
        ReplyCode::limit_reached, fmt::format("the daemon has {} tasks open", limits_.open_tasks)));
  }
  OwnerState& owner = owners_[draft.owner];
  if (owner.active >= limits_.open_tasks_per_process) {
    if (owner.active == 0) owners_.erase(draft.owner);
    return std::unexpected(refusal(ReplyCode::limit_reached,
                                   fmt::format("process {} has {} tasks open", draft.owner.pid,
                                               limits_.open_tasks_per_process)));
  }
  const std::size_t bytes = footprint(draft);
  if (active_bytes_ + bytes > limits_.task_bytes) {
    if (owner.active == 0) owners_.erase(draft.owner);
    return std::unexpected(
        refusal(ReplyCode::limit_reached,
                fmt::format("open tasks hold {} of the {} bytes the daemon keeps for tasks",
                            active_bytes_, limits_.task_bytes)));
  }
  if (owner.active == 0) owner.last_seen_us = draft.begin_us;
  active_bytes_ += bytes;
  // Room for the new task comes from the oldest retained ones.
  trim_retained(limits_.retained_tasks, limits_.task_bytes);
  ++owner.open;
  ++owner.active;
  draft.id = next_id_++;
  ++begun_;
  draft.state = TaskState::open;
  return open_.emplace(draft.id, std::move(draft)).first->second;
}

Task Registry::close(std::map<TaskId, Task>::iterator open, TimeUs end_us, bool abandoned) {
  Task task = std::move(open->second);
  open_.erase(open);
  --owners_[task.owner].open;
  task.state = TaskState::ending;
  task.end_us = std::max(end_us, task.begin_us);
  task.abandoned = abandoned;
  if (abandoned) ++abandoned_;
  ending_.emplace(task.id, task);
  return task;
}

std::expected<Task, ReplyError> Registry::end(TaskId id, const Caller& caller, TimeUs end_us,
                                              TaskEdge edge) {
  const auto open = open_.find(id);
  if (open == open_.end()) {
    return std::unexpected(
        refusal(ReplyCode::unknown_task,
                fmt::format("no open task {} (it ended, was abandoned, or never existed)", id)));
  }
  const bool owner = caller.key && *caller.key == open->second.owner;
  if (!owner && caller.uid != 0) {
    return std::unexpected(
        refusal(ReplyCode::not_permitted,
                fmt::format("task {} belongs to process {}; only it or root may end it", id,
                            open->second.owner.pid)));
  }
  open->second.end_edge = std::move(edge);
  return close(open, end_us, false);
}

const Task* Registry::find_open(TaskId id) const {
  const auto open = open_.find(id);
  return open == open_.end() ? nullptr : &open->second;
}

void Registry::note_peak_rss(const ProcessKey& owner, std::uint64_t mark) {
  const auto state = owners_.find(owner);
  if (state == owners_.end() || state->second.open == 0) return;
  for (auto& [id, task] : open_) {
    if (task.owner == owner && task.peak_rss_bytes) {
      task.peak_rss_bytes = std::max(*task.peak_rss_bytes, mark);
    }
  }
}

std::vector<Task> Registry::abandon(const ProcessKey& owner) {
  const auto state = owners_.find(owner);
  if (state == owners_.end()) return {};
  const TimeUs last_seen = state->second.last_seen_us;
  std::vector<Task> closed;
  for (auto it = open_.begin(); it != open_.end();) {
    const auto next = std::next(it);
    if (it->second.owner == owner) closed.push_back(close(it, last_seen, true));
    it = next;
  }
  return closed;
}

void Registry::seen_alive(const ProcessKey& owner, TimeUs time_us) {
  const auto state = owners_.find(owner);
  if (state != owners_.end())
    state->second.last_seen_us = std::max(state->second.last_seen_us, time_us);
}

std::optional<Task> Registry::settle(TaskId id, std::expected<TaskFigures, std::string> figures) {
  const auto ending = ending_.find(id);
  if (ending == ending_.end()) return std::nullopt;
  Task task = std::move(ending->second);
  ending_.erase(ending);
  active_bytes_ -= std::min(active_bytes_, footprint(task));
  task.state = TaskState::ended;
  if (figures)
    task.figures = std::move(*figures);
  else
    task.figures_error = std::move(figures.error());
  const auto state = owners_.find(task.owner);
  if (state != owners_.end() && --state->second.active == 0) owners_.erase(state);
  ended_.push_back(task);
  retained_bytes_ += footprint(task);
  trim_retained(limits_.retained_tasks, limits_.task_bytes);
  return task;
}

void Registry::trim_retained(std::size_t count, std::size_t bytes) {
  while (!ended_.empty() && (ended_.size() > count || active_bytes_ + retained_bytes_ > bytes)) {
    retained_bytes_ -= std::min(retained_bytes_, footprint(ended_.front()));
    // Beyond the count limit a task is merely old; beyond the bytes it is dropped early.
    if (ended_.size() <= count) ++dropped_;
    ended_.pop_front();
  }
}

std::vector<ProcessKey> Registry::owners() const {
  std::vector<ProcessKey> keys;
  for (const auto& [key, state] : owners_) {
    if (state.open > 0) keys.push_back(key);
  }
  return keys;
}

std::size_t Registry::active(const ProcessKey& owner) const {
  const auto state = owners_.find(owner);
  return state == owners_.end() ? 0 : state->second.active;
}

QueryResult Registry::query(TimeUs since_us, std::optional<QueryCursor> before, std::size_t limit,
                            const std::function<bool(const Task&)>& visible) const {
  QueryResult result;
  const auto wanted = [&](const Task& task) {
    const QueryCursor at{task.end_us.value_or(0), task.id};
    return at.end_us >= since_us && (!before || at < *before) && visible(task);
  };
  for (const Task& task : ended_) {
    if (wanted(task)) result.ended.push_back(&task);
  }
  for (const auto& [id, task] : ending_) {
    if (wanted(task)) result.ended.push_back(&task);
  }
  std::ranges::stable_sort(result.ended,
                           [](const Task* a, const Task* b) { return ends_before(*a, *b); });
  if (result.ended.size() > limit) {
    result.truncated = true;
    result.ended.erase(result.ended.begin(),
                       result.ended.end() - static_cast<std::ptrdiff_t>(limit));
  }
  for (const auto& [id, task] : open_) {
    if (visible(task)) result.open.push_back(&task);
  }
  return result;
}

}  // namespace gpumeter::task
