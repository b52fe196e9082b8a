#include "master/prometheus_poller.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <set>

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
  QueryResult& seen = answers[0];
  QueryResult& up = answers[1];
  PrometheusReadings readings{.gpu_series = std::move(*answers[2]),
                              .gpu_times = std::move(*answers[3]),
                              .users = std::move(*answers[4])};

  const Targets targets{hosts_to_instances(*seen), up_by_instance(*up)};
  std::map<std::string, Json> documents = status_documents(readings);
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
