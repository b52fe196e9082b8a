// SPDX-License-Identifier: MIT
#include "master/poller.h"

#include <exception>
#include <thread>
#include <utility>

namespace gpumeter::master {
namespace {

PollOutcome fetch_directly(StatusFetcher& fetcher) {
  try {
    return fetcher.fetch();
  } catch (const std::exception& error) {
    // Fetchers report failures as outcomes; this is a bug or exhaustion, kept to this node.
    return PollOutcome::failed(NodeState::unreachable,
                               std::string("internal error: ") + error.what());
  }
}

}  // namespace

Poller::Poller(std::vector<PolledNode> nodes, PollerSettings settings)
    : nodes_(std::move(nodes)),
      backoff_(nodes_.size(), Backoff(settings.max_backoff_rounds)),
      fleet_(settings.fleet),
      client_(settings.max_connections) {
  for (PolledNode& node : nodes_) fleet_.add(node.identity);
}

RoundCounts Poller::refresh(const std::stop_token& stop) {
  RoundCounts counts;
  std::vector<std::size_t> http;
  std::vector<std::size_t> direct;
  for (std::size_t node = 0; node < nodes_.size(); ++node) {
    if (!backoff_[node].due()) {
      fleet_.record_skipped(node);
      ++counts.skipped;
      continue;
    }
    (nodes_[node].fetcher->request() != nullptr ? http : direct).push_back(node);
    ++counts.polled;
  }
  // "self" reads this machine while the agents answer; joined before returning.
  const std::jthread reader([this, &direct] {
    for (const std::size_t node : direct) record(node, fetch_directly(*nodes_[node].fetcher));
  });
  poll_http(http, stop);
  return counts;
}

void Poller::poll_http(const std::vector<std::size_t>& nodes, const std::stop_token& stop) {
  if (nodes.empty()) return;
  std::vector<HttpRequest> requests;
  requests.reserve(nodes.size());
  for (const std::size_t node : nodes) requests.push_back(*nodes_[node].fetcher->request());
  // Each answer is read as it comes, while the slower agents are still awaited: a round ends
  // about when its slowest poll does, not after reading every answer on top of that.
  client_.run_all(
      requests,
      [&](std::size_t i, HttpResult result) {
        record(nodes[i], nodes_[nodes[i]].fetcher->read_answer(std::move(result)));
      },
      stop);
}

void Poller::record(std::size_t node, PollOutcome outcome) {
  // Each node's backoff is touched by its own poll only, and polls of one node never overlap.
  if (outcome.state == NodeState::ok) {
    backoff_[node].succeeded();
  } else {
    backoff_[node].failed();
  }
  fleet_.record(node, std::move(outcome), FleetState::Clock::now());
}

}  // namespace gpumeter::master
