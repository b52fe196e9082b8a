// SPDX-License-Identifier: MIT
// Prometheus mode of the master: instead of polling agents, each round asks a Prometheus
// server that scrapes them, and rebuilds every host's status document from the exported
// metrics (docs/master.md, "Prometheus mode"). Nodes are the `host` labels it finds.
#pragma once

#include <stop_token>
#include <string>

#include "master/fleet.h"
#include "master/http_client.h"
#include "master/prometheus_client.h"

namespace gpumeter::master {

struct PrometheusSettings {
  FleetSettings fleet;
  ClientOptions client;
  std::string lookback = "1h";  // hosts seen within it are listed, reachable or not
};

class PrometheusPoller {
 public:
  PrometheusPoller(const AgentUrl& url, PrometheusSettings settings);

  // One round: five instant queries at once, within the timeout. A failed query leaves every
  // node's last good document in place, marks the nodes unreachable, and sets the fleet's
  // error. When `stop` is requested it returns at once and records nothing.
  void refresh(const std::stop_token& stop = {});

  const FleetState& fleet() const noexcept { return fleet_; }

 private:
  void fail_all(const std::string& error);
  std::size_t node(const std::string& host, const std::string& instance);

  std::string origin_;
  PrometheusSettings settings_;
  PrometheusClient client_;
  FleetState fleet_;
};

}  // namespace gpumeter::master
