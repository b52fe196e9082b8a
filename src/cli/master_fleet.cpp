// SPDX-License-Identifier: MIT
#include "cli/master_fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "net/listen_address.h"
#include "net/token_file.h"

namespace gpumeter::cli {
namespace {

// The agent's token, or an error that says which agent of which file wants it.
std::expected<std::string, Error> agent_token(const std::filesystem::path& config_file,
                                              const MasterAgentConfig& agent,
                                              const std::filesystem::path& token_file) {
  auto token = net::read_token_file(token_file);
  if (token) return token;
  return std::unexpected(Error{
      token.error().code, fmt::format("{}:{}: the token of agent \"{}\": {}", config_file.string(),
                                      agent.line, agent.name, token.error().message)});
}

std::expected<master::PolledNode, Error> http_node(const MasterSettings& settings,
                                                   const MasterAgentConfig& agent,
                                                   const master::AgentUrl& endpoint,
                                                   MasterLog& log) {
  master::HttpFetchOptions options{.ca_file = agent.ca_file, .timeout = agent.timeout};
  if (agent.token_file) {
    auto token = agent_token(settings.config_file, agent, *agent.token_file);
    if (!token) return std::unexpected(std::move(token.error()));
    options.token = std::move(*token);
    if (!endpoint.https && !net::is_loopback(endpoint.host)) {
      log.line(
          fmt::format("warning: the token for {} travels in clear text (use https)", agent.url));
    }
  }
  return master::PolledNode{{agent.name, agent.url},
                            master::make_http_fetcher(endpoint, std::move(options))};
}

std::expected<std::vector<master::PolledNode>, Error> polled_nodes(const MasterSettings& settings,
                                                                   SelfReading& self,
                                                                   MasterLog& log) {
  std::vector<master::PolledNode> nodes;
  for (const MasterAgentConfig& agent : settings.config.agents) {
    if (!agent.endpoint) {
      nodes.push_back(
          {{agent.name, "self"}, master::make_self_fetcher([&self] { return self.read(); })});
      continue;
    }
    auto node = http_node(settings, agent, *agent.endpoint, log);
    if (!node) return std::unexpected(std::move(node.error()));
    nodes.push_back(std::move(*node));
  }
  return nodes;
}

master::FleetSettings fleet_settings(const MasterConfig& config) {
  return {.interval = config.interval, .stale_after = config.stale_after};
}

master::PollerSettings poller_settings(const MasterConfig& config) {
  // Backoff counts rounds: max-backoff in intervals, at least one.
  const auto rounds = std::max<std::int64_t>(1, config.max_backoff / config.interval);
  return {
      .fleet = fleet_settings(config),
      .max_backoff_rounds = static_cast<std::uint32_t>(std::min<std::int64_t>(rounds, UINT32_MAX)),
      .max_connections = config.connections};
}

}  // namespace

void MasterLog::line(const std::string& text) {
  const std::lock_guard lock(mutex_);
  err_ << "gpumeter master: " << text << '\n' << std::flush;
}

std::expected<std::unique_ptr<MasterFleet>, Error> MasterFleet::open(const MasterSettings& settings,
                                                                     const GlobalOptions& global,
                                                                     MasterLog& log) {
  std::unique_ptr<MasterFleet> fleet(new MasterFleet());
  const MasterConfig& config = settings.config;
  if (settings.prometheus) {
    if (!config.agents.empty()) {
      log.line(
          fmt::format("reading the fleet from Prometheus: the {} [[agent]] tables are not "
                      "polled",
                      config.agents.size()));
    }
    fleet->prometheus_ = std::make_unique<master::PrometheusPoller>(
        *settings.prometheus, master::PrometheusSettings{.fleet = fleet_settings(config),
                                                         .client = {.timeout = config.timeout}});
    return fleet;
  }
  fleet->self_ = std::make_unique<SelfReading>(global);
  auto nodes = polled_nodes(settings, *fleet->self_, log);
  if (!nodes) return std::unexpected(std::move(nodes.error()));
  fleet->poller_ = std::make_unique<master::Poller>(std::move(*nodes), poller_settings(config));
  return fleet;
}

void MasterFleet::refresh(const std::stop_token& stop) {
  if (prometheus_) {
    prometheus_->refresh(stop);
  } else {
    poller_->refresh(stop);
  }
}

const master::FleetState& MasterFleet::state() const noexcept {
  return prometheus_ ? prometheus_->fleet() : poller_->fleet();
}

}  // namespace gpumeter::cli
