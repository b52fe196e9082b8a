// The master's poller: each round polls every agent at once (on a bounded pool of threads),
// holds failing agents back with exponential backoff, and writes each outcome into the fleet
// state that the HTTP handlers read (docs/master.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/master_backoff.h"
#include "net/master_fetch.h"
#include "net/master_fleet.h"
#include "net/master_pool.h"

namespace gpumeter::net {

struct PolledNode {
  NodeIdentity identity;
  std::unique_ptr<StatusFetcher> fetcher;
};

struct PollerSettings {
  FleetSettings fleet;
  std::uint32_t max_backoff_rounds = 60;  // the cap on a failing agent's wait, in rounds
  std::size_t max_threads = 256;          // polls at once; fewer when there are fewer nodes
};

struct RoundCounts {
  std::size_t polled = 0;
  std::size_t skipped = 0;  // held back by backoff
};

class Poller {
 public:
  Poller(std::vector<PolledNode> nodes, PollerSettings settings);

  // One round: polls every node that backoff does not hold back, all at once, and returns when
  // each poll has ended (answered, failed or timed out). Not to be called concurrently.
  RoundCounts refresh();

  const FleetState& fleet() const noexcept { return fleet_; }
  std::size_t threads() const noexcept { return pool_.threads(); }

 private:
  void poll(std::size_t node);

  std::vector<PolledNode> nodes_;
  std::vector<Backoff> backoff_;
  FleetState fleet_;
  WorkerPool pool_;
};

}  // namespace gpumeter::net
