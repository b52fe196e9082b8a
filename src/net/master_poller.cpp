#include "net/master_poller.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <utility>

namespace gpumeter::net {

Poller::Poller(std::vector<PolledNode> nodes, PollerSettings settings)
    : nodes_(std::move(nodes)),
      backoff_(nodes_.size(), Backoff(settings.max_backoff_rounds)),
      fleet_(settings.fleet),
      pool_(std::clamp<std::size_t>(nodes_.size(), 1,
                                    std::max<std::size_t>(settings.max_threads, 1))) {
  for (PolledNode& node : nodes_) fleet_.add(node.identity);
}

RoundCounts Poller::refresh() {
  RoundCounts counts;
  std::vector<std::function<void()>> jobs;
  for (std::size_t node = 0; node < nodes_.size(); ++node) {
    if (!backoff_[node].due()) {
      fleet_.record_skipped(node);
      ++counts.skipped;
      continue;
    }
    jobs.emplace_back([this, node] { poll(node); });
    ++counts.polled;
  }
  pool_.run(std::move(jobs));
  return counts;
}

void Poller::poll(std::size_t node) {
  PollOutcome outcome;
  try {
    outcome = nodes_[node].fetcher->fetch();
  } catch (const std::exception& error) {
    // Fetchers report failures as outcomes; this is a bug or exhaustion, kept to this node.
    outcome =
        PollOutcome::failed(NodeState::unreachable, std::string("internal error: ") + error.what());
  }
  // Each node's backoff is touched by its own poll only, and polls of one node never overlap.
  if (outcome.state == NodeState::ok) {
    backoff_[node].succeeded();
  } else {
    backoff_[node].failed();
  }
  fleet_.record(node, std::move(outcome), FleetState::Clock::now());
}

}  // namespace gpumeter::net
