// SPDX-License-Identifier: MIT
#include "master/prometheus_poller.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <set>
#include <span>
#include <vector>

#include "master/prometheus_status.h"
#include "master/status_check.h"

namespace gpumeter::master {
namespace {

struct Targets {
  std::map<std::string, std::string> instance_of_host;  // hosts seen within the lookback
  std::map<std::string, double> up;                     // by instance
};

std::map<std::string, std::string> hosts_to_instances(const std::vector<PromSample>& samples) {
  std::map<std::string, std::string> hosts;
  for (const PromSample& sample : samples) {
    const auto host = sample.labels.find("host");
    const auto instance = sample.labels.find("instance");
    if (host == sample.labels.end()) continue;
    hosts[host->second] = instance == sample.labels.end() ? "" : instance->second;
  }
  return hosts;
}

std::map<std::string, double> up_by_instance(const std::vector<PromSample>& samples) {
  std::map<std::string, double> up;
  for (const PromSample& sample : samples) {
    const auto instance = sample.labels.find("instance");
    if (instance != sample.labels.end()) up[instance->second] = sample.value;
  }
  return up;
}

// Two scrape targets whose series carry one host label are two nodes, named
// "host (instance)", never one merged node: the master's fleet document flags them
// (same_host_as) so that the clash gets fixed where it comes from. Returns the original host
// of each new name.
std::map<std::string, std::string> split_shared_hosts(
    const std::vector<PromSample>& seen, std::span<std::vector<PromSample>* const> readings) {
  std::map<std::string, std::string> original;
  std::map<std::string, std::set<std::string>> instances;
  for (const PromSample& sample : seen) {
    const auto host = sample.labels.find("host");
    const auto instance = sample.labels.find("instance");
    if (host != sample.labels.end() && instance != sample.labels.end())
      instances[host->second].insert(instance->second);
  }
  for (std::vector<PromSample>* samples : readings) {
    for (PromSample& sample : *samples) {
      const auto host = sample.labels.find("host");
      const auto instance = sample.labels.find("instance");
      if (host == sample.labels.end() || instance == sample.labels.end()) continue;
      const auto shared = instances.find(host->second);
      if (shared == instances.end() || shared->second.size() < 2) continue;
      std::string name = fmt::format("{} ({})", host->second, instance->second);
      original[name] = host->second;
      host->second = std::move(name);
    }
  }
  return original;
}

}  // namespace

PrometheusPoller::PrometheusPoller(const AgentUrl& url, PrometheusSettings settings)
    : origin_(url.origin() + url.base_path),
      settings_(std::move(settings)),
      client_(url, settings_.client),
      fleet_(settings_.fleet) {}

void PrometheusPoller::refresh(const std::stop_token& stop) {
  const std::array<std::string, 5> queries{
      fmt::format("max by (host, instance) (last_over_time(gpumeter_gpu_info[{}]))",
                  settings_.lookback),
      "up", kGpuSeriesQuery, kGpuTimesQuery, kUsersQuery};
  std::vector<QueryResult> answers = client_.query_all(queries, stop);
  if (stop.stop_requested()) return;
  // The first failure in the order of the queries speaks for the round.
  for (const QueryResult& answer : answers) {
    if (!answer) return fail_all(fmt::format("Prometheus at {}: {}", origin_, answer.error()));
  }
  fleet_.set_fleet_error({});
  const std::vector<PromSample> first_seen = *answers[0];
  const std::array<std::vector<PromSample>*, 4> renamed{&*answers[0], &*answers[2], &*answers[3],
                                                        &*answers[4]};
  const std::map<std::string, std::string> original_hosts = split_shared_hosts(first_seen, renamed);
  QueryResult& seen = answers[0];
  QueryResult& up = answers[1];
  PrometheusReadings readings{.gpu_series = std::move(*answers[2]),
                              .gpu_times = std::move(*answers[3]),
                              .users = std::move(*answers[4])};

  const Targets targets{hosts_to_instances(*seen), up_by_instance(*up)};
  std::map<std::string, Json> documents = status_documents(readings);
  // A split node's document keeps the name the machine gives itself.
  for (auto& [name, document] : documents) {
    if (const auto host = original_hosts.find(name); host != original_hosts.end())
      document["host"] = host->second;
  }
  const auto now = FleetState::Clock::now();
  std::set<std::string> hosts;
  for (const auto& [host, instance] : targets.instance_of_host) hosts.insert(host);
  for (const auto& [host, document] : documents) hosts.insert(host);
  for (const std::string& host : hosts) {
    const auto instance = targets.instance_of_host.find(host);
    const std::string address = instance == targets.instance_of_host.end() ? "" : instance->second;
    const std::size_t index = node(host, address);
    const auto scraped = targets.up.find(address);
    if (scraped != targets.up.end() && scraped->second == 0) {
      fleet_.record(
          index,
          PollOutcome::failed(NodeState::unreachable,
                              fmt::format("Prometheus cannot scrape {} (up is 0)", address)),
          now);
    } else if (auto document = documents.find(host); document == documents.end()) {
      fleet_.record(index,
                    PollOutcome::failed(NodeState::unreachable, "no current samples in Prometheus"),
                    now);
    } else if (auto checked = check_status_document(document->second); !checked) {
      fleet_.record(index, PollOutcome::failed(NodeState::garbage, checked.error()), now);
    } else {
      fleet_.record(index, PollOutcome::good(document->second), now);
    }
  }
  const std::vector<NodeView> known = fleet_.nodes(now);  // in the order of their indexes
  for (std::size_t index = 0; index < known.size(); ++index) {
    if (!hosts.contains(known[index].identity.name)) {
      fleet_.record(
          index,
          PollOutcome::failed(NodeState::unreachable,
                              fmt::format("no samples in Prometheus for {}", settings_.lookback)),
          now);
    }
  }
}

void PrometheusPoller::fail_all(const std::string& error) {
  fleet_.set_fleet_error(error);
  const auto now = FleetState::Clock::now();
  for (std::size_t i = 0; i < fleet_.size(); ++i) {
    fleet_.record(i, PollOutcome::failed(NodeState::unreachable, error), now);
  }
}

std::size_t PrometheusPoller::node(const std::string& host, const std::string& instance) {
  if (auto index = fleet_.find(host)) return *index;
  return fleet_.add({host, instance.empty() ? origin_ : instance});
}

}  // namespace gpumeter::master
