// SPDX-License-Identifier: MIT
// The fleet as the master last saw it: for every node its last poll's outcome, its last good
// status document and how old that reading is, and its poll counters. Pollers write it from
// their threads; HTTP handlers read it from theirs (every member is safe to call concurrently).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "master/node.h"

namespace gpumeter::master {

struct NodeIdentity {
  std::string name;
  std::string url;  // as configured, or "self"
};

struct PollCounters {
  std::uint64_t attempts = 0;  // polls made
  std::uint64_t failures = 0;  // polls that did not yield a status document
  std::uint64_t skipped = 0;   // rounds in which backoff left the node out
  std::uint32_t consecutive_failures = 0;
};

// One node, as handed to renderers.
struct NodeView {
  NodeIdentity identity;
  NodeState state = NodeState::unreachable;
  std::string error;                             // empty when ok
  std::optional<double> age_seconds;             // of the last good reading; none before the first
  std::shared_ptr<const StatusDocument> status;  // the last good status document, if any
  PollCounters counters;
};

struct FleetSettings {
  std::chrono::milliseconds interval{5000};  // between poll rounds
  std::uint32_t stale_after = 3;             // intervals without a new reading: stale
};

class FleetState {
 public:
  using Clock = std::chrono::steady_clock;

  explicit FleetState(FleetSettings settings) : settings_(settings) {}

  // Adds a node (in the state unreachable, "not polled yet") and returns its index.
  std::size_t add(NodeIdentity identity);
  // The index of the node named `name`, if any.
  std::optional<std::size_t> find(const std::string& name) const;
  std::size_t size() const;

  // A poll's outcome, received at `now`. A good document whose reading time differs from the
  // previous one's starts the age again; the same reading served again keeps its age.
  // Precondition: `node` < size(); a good outcome holds a checked status document.
  void record(std::size_t node, PollOutcome outcome, Clock::time_point now);
  // A round in which backoff left the node out.
  void record_skipped(std::size_t node);

  // A problem with the whole fleet's source (the Prometheus server), or none.
  void set_fleet_error(std::string error);
  std::string fleet_error() const;

  // Every node in the order added, with its state and age as of `now`.
  std::vector<NodeView> nodes(Clock::time_point now) const;

 private:
  struct Record {
    NodeIdentity identity;
    NodeState last = NodeState::unreachable;
    std::string error = "not polled yet";
    std::shared_ptr<const StatusDocument> status;
    Clock::time_point reading_seen;  // when the master first received that reading
    PollCounters counters;
  };
  NodeView view(const Record& record, Clock::time_point now) const;

  FleetSettings settings_;
  mutable std::mutex mutex_;
  std::vector<Record> records_;
  std::string fleet_error_;
};

}  // namespace gpumeter::master
