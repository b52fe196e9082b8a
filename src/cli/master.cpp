// `gpumeter master`: polls the agents of a config file (or reads a Prometheus server) and
// serves the fleet: GET /api/v1/fleet and the dashboard (docs/master.md). `--once` polls once
// and prints the fleet document instead.
#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/master_options.h"
#include "cli/master_self.h"
#include "view/json.h"
#include "cli/secret_file.h"
#include "net/master_fleet_json.h"
#include "net/master_poller.h"
#include "net/master_prometheus_poller.h"

namespace gpumeter::cli {
namespace {

// Lines from any thread, whole.
class MasterLog {
 public:
  explicit MasterLog(std::ostream& err) : err_(err) {}
  void line(const std::string& text) {
    const std::lock_guard lock(mutex_);
    err_ << "gpumeter master: " << text << '\n' << std::flush;
  }

 private:
  std::mutex mutex_;
  std::ostream& err_;
};

// Where the fleet comes from: the agents, or a Prometheus server.
struct FleetSource {
  std::function<void()> refresh;
  const net::FleetState* fleet = nullptr;
  std::string_view name;  // "agents" or "prometheus"
};

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

std::expected<net::PolledNode, Error> http_node(const MasterAgentConfig& agent,
                                                const net::AgentUrl& endpoint, MasterLog& log) {
  net::HttpFetchOptions options{.ca_file = agent.ca_file, .timeout = agent.timeout};
  if (agent.token_file) {
    auto token = read_secret_file(*agent.token_file);
    if (!token) return std::unexpected(std::move(token.error()));
    options.token = std::move(*token);
    if (!endpoint.https && !is_loopback(endpoint.host)) {
      log.line(
          fmt::format("warning: the token for {} travels in clear text (use https)", agent.url));
    }
  }
  return net::PolledNode{{agent.name, agent.url},
                         net::make_http_fetcher(endpoint, std::move(options))};
}

std::expected<std::vector<net::PolledNode>, Error> polled_nodes(const MasterSettings& settings,
                                                                SelfReading& self, MasterLog& log) {
  std::vector<net::PolledNode> nodes;
  for (const MasterAgentConfig& agent : settings.config.agents) {
    if (!agent.endpoint) {
      nodes.push_back(
          {{agent.name, "self"}, net::make_self_fetcher([&self] { return self.read(); })});
      continue;
    }
    auto node = http_node(agent, *agent.endpoint, log);
    if (!node) return std::unexpected(std::move(node.error()));
    nodes.push_back(std::move(*node));
  }
  return nodes;
}

net::FleetSettings fleet_settings(const MasterConfig& config) {
  return {.interval = config.interval, .stale_after = config.stale_after};
}

// Everything the master runs, kept alive while it serves.
struct Fleet {
  std::unique_ptr<SelfReading> self;  // for a "self" agent
  std::unique_ptr<net::Poller> poller;
  std::unique_ptr<net::PrometheusPoller> prometheus;

  FleetSource source() {
    if (prometheus) return {[this] { prometheus->refresh(); }, &prometheus->fleet(), "prometheus"};
    return {[this] { poller->refresh(); }, &poller->fleet(), "agents"};
  }
};

std::expected<std::unique_ptr<Fleet>, Error> open_fleet(const MasterSettings& settings,
                                                        const GlobalOptions& global,
                                                        MasterLog& log) {
  auto fleet = std::make_unique<Fleet>();
  const MasterConfig& config = settings.config;
  if (settings.prometheus) {
    if (!config.agents.empty()) {
      log.line(
          fmt::format("reading the fleet from Prometheus: the {} [[agent]] tables are "
                      "not polled",
                      config.agents.size()));
    }
    fleet->prometheus = std::make_unique<net::PrometheusPoller>(
        *settings.prometheus, net::PrometheusSettings{.fleet = fleet_settings(config),
                                                      .client = {.timeout = config.timeout}});
    return fleet;
  }
  fleet->self = std::make_unique<SelfReading>(global);
  auto nodes = polled_nodes(settings, *fleet->self, log);
  if (!nodes) return std::unexpected(std::move(nodes.error()));
  const auto backoff_rounds =
      static_cast<std::uint32_t>(std::max<std::int64_t>(1, config.max_backoff / config.interval));
  fleet->poller = std::make_unique<net::Poller>(
      std::move(*nodes), net::PollerSettings{.fleet = fleet_settings(config),
                                             .max_backoff_rounds = backoff_rounds,
                                             .max_threads = config.threads});
  return fleet;
}

int run_master(const CLI::App& master, const MasterOptions& options, const GlobalOptions& global,
               std::ostream& out, std::ostream& err) {
  MasterLog log(err);
  auto settings = resolve_master_options(master, options, hostname());
  if (!settings) return report(err, settings.error());
  auto fleet = open_fleet(*settings, global, log);
  if (!fleet) return report(err, fleet.error());
  FleetSource source = (*fleet)->source();
  source.refresh();
  out << view::dump_json(net::fleet_json(*source.fleet, source.name), false) << '\n';
  return 0;
}

}  // namespace

Subcommand add_master_command(CLI::App& app) {
  auto options = std::make_shared<MasterOptions>();
  CLI::App* master = app.add_subcommand(
      "master", "Poll many agents and serve the fleet: JSON and the dashboard (docs/master.md)");
  add_master_options(*master, *options);
  Subcommand command{master};
  command.run_with_options = [options, master](const GlobalOptions& global, std::ostream& out,
                                               std::ostream& err) {
    return run_master(*master, *options, global, out, err);
  };
  return command;
}

}  // namespace gpumeter::cli
