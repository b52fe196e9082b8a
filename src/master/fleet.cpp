// SPDX-License-Identifier: MIT
#include "master/fleet.h"

#include <fmt/format.h>

#include <utility>

namespace gpumeter::master {

std::size_t FleetState::add(NodeIdentity identity) {
  const std::lock_guard lock(mutex_);
  records_.push_back(Record{.identity = std::move(identity)});
  return records_.size() - 1;
}

std::optional<std::size_t> FleetState::find(const std::string& name) const {
  const std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (records_[i].identity.name == name) return i;
  }
  return std::nullopt;
}

std::size_t FleetState::size() const {
  const std::lock_guard lock(mutex_);
  return records_.size();
}

void FleetState::record(std::size_t node, PollOutcome outcome, Clock::time_point now) {
  const std::lock_guard lock(mutex_);
  Record& record = records_.at(node);
  ++record.counters.attempts;
  record.last = outcome.state;
  record.error = std::move(outcome.error);
  if (outcome.state != NodeState::ok) {
    ++record.counters.failures;
    ++record.counters.consecutive_failures;
    return;
  }
  record.counters.consecutive_failures = 0;
  if (!record.status || outcome.document->time_us != record.status->time_us) {
    record.reading_seen = now;
  }
  record.status = std::move(outcome.document);
}

void FleetState::record_skipped(std::size_t node) {
  const std::lock_guard lock(mutex_);
  ++records_.at(node).counters.skipped;
}

void FleetState::set_fleet_error(std::string error) {
  const std::lock_guard lock(mutex_);
  fleet_error_ = std::move(error);
}

std::string FleetState::fleet_error() const {
  const std::lock_guard lock(mutex_);
  return fleet_error_;
}

std::vector<NodeView> FleetState::nodes(Clock::time_point now) const {
  const std::lock_guard lock(mutex_);
  std::vector<NodeView> views;
  views.reserve(records_.size());
  for (const Record& record : records_) views.push_back(view(record, now));
  return views;
}

NodeView FleetState::view(const Record& record, Clock::time_point now) const {
  NodeView node{.identity = record.identity,
                .state = record.last,
                .error = record.error,
                .status = record.status,
                .counters = record.counters};
  if (!record.status) return node;
  const std::chrono::duration<double> age = now - record.reading_seen;
  node.age_seconds = age.count();
  if (record.last == NodeState::ok && age > settings_.interval * settings_.stale_after) {
    node.state = NodeState::stale;
    node.error = fmt::format("the same reading for {:.0f}s (more than {} poll intervals)",
                             age.count(), settings_.stale_after);
  }
  return node;
}

}  // namespace gpumeter::master
