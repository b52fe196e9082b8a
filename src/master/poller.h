// SPDX-License-Identifier: MIT
// The master's poller: each round polls every agent at once (all HTTP agents on one thread
// through one HttpClient, "self" beside them on a thread of its own), holds failing agents back
// with exponential backoff, and writes each outcome into the fleet state that the HTTP handlers
// read (docs/master.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <vector>

#include "master/backoff.h"
#include "master/fetch.h"
#include "master/fleet.h"
#include "master/http_client.h"

namespace gpumeter::master {

struct PolledNode {
  NodeIdentity identity;
  std::unique_ptr<StatusFetcher> fetcher;
};

struct PollerSettings {
  FleetSettings fleet;
  std::uint32_t max_backoff_rounds = 60;  // the cap on a failing agent's wait, in rounds
  std::size_t max_connections = 1024;     // HTTP polls in flight at once, at most
};

struct RoundCounts {
  std::size_t polled = 0;
  std::size_t skipped = 0;  // held back by backoff
};

class Poller {
 public:
  Poller(std::vector<PolledNode> nodes, PollerSettings settings);

  // One round: polls every node that backoff does not hold back, all at once, and returns when
  // each poll has ended (answered, failed or timed out): with at most `max_connections` agents,
  // within the longest timeout. When `stop` is requested it returns within milliseconds (or
  // once a "self" reading in progress is done) and records nothing of the polls cut short.
  // Not to be called concurrently.
  RoundCounts refresh(const std::stop_token& stop = {});

  const FleetState& fleet() const noexcept { return fleet_; }
  std::size_t max_connections() const noexcept { return client_.max_connections(); }

 private:
  void poll_http(const std::vector<std::size_t>& nodes, const std::stop_token& stop);
  void record(std::size_t node, PollOutcome outcome);

  std::vector<PolledNode> nodes_;
  std::vector<Backoff> backoff_;
  FleetState fleet_;
  HttpClient client_;
};

}  // namespace gpumeter::master
