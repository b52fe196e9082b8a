// SPDX-License-Identifier: MIT
// How long the master takes to refresh 200 agents: real HTTP on loopback, 200 fake agents, each
// an httplib server on its own port (as real agents are: one listening socket each, whose
// backlog httplib 0.11 fixes at 5), each answering with a real status document: the
// `list --json` rendering of a simulated machine. Cases: all healthy, with the typical 8-GPU
// document and with a heavy one (8 GPUs x 64 processes); and 10 agents slower than a 1 s
// timeout plus 10 with nothing listening, polled every round (no backoff): the worst round.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/session.h"
#include "master/fleet_json.h"
#include "master/poller.h"
#include "support/fake_agent.h"
#include "view/json.h"
#include "view/list_json.h"

namespace {

using namespace std::chrono_literals;
using gpumeter::master::PolledNode;
using gpumeter::master::testing::FakeServer;

constexpr int kAgents = 200;

std::string simulated_status(const std::string& scenario) {
  auto session = gpumeter::cli::open_session({.simulate = scenario});
  if (!session) return {};
  auto snapshot = session->snapshot();
  if (!snapshot) return {};
  return gpumeter::view::dump_json(gpumeter::view::list_json(*snapshot), true);
}

struct Fleet {
  std::vector<std::unique_ptr<FakeServer>> servers;
  std::vector<std::string> urls;
  gpumeter::master::testing::Gate gate;  // holds the slow agents' answers
  ~Fleet() { gate.open(); }
};

// `slow` agents answer after 5 s; `down` URLs have nothing listening; the rest answer at once.
std::unique_ptr<Fleet> start_fleet(const std::string& body, int slow, int down) {
  auto fleet = std::make_unique<Fleet>();
  const int answering = kAgents - down;
  for (int agent = 0; agent < answering; ++agent) {
    auto server = std::make_unique<FakeServer>(2);
    Fleet* shared = fleet.get();
    server->routes().Get("/api/v1/status",
                         [=](const httplib::Request&, httplib::Response& response) {
                           if (agent < slow) shared->gate.wait(5s);
                           response.set_content(body, "application/json");
                         });
    server->start();
    fleet->urls.push_back(server->url());
    fleet->servers.push_back(std::move(server));
  }
  for (int i = 0; i < down; ++i) {
    fleet->urls.push_back("http://127.0.0.1:" +
                          std::to_string(gpumeter::master::testing::closed_port()));
  }
  return fleet;
}

gpumeter::master::Poller make_poller(const Fleet& fleet) {
  std::vector<PolledNode> nodes;
  for (std::size_t i = 0; i < fleet.urls.size(); ++i) {
    const auto url = gpumeter::master::parse_agent_url(fleet.urls[i]);
    nodes.push_back({{"agent" + std::to_string(i), fleet.urls[i]},
                     gpumeter::master::make_http_fetcher(*url, {.timeout = 1s})});
  }
  // No backoff: every round polls every agent, the failing ones too.
  return gpumeter::master::Poller(std::move(nodes), {.max_backoff_rounds = 1});
}

void refresh_fleet(benchmark::State& state, const char* scenario, int slow, int down) {
  const std::string body = simulated_status(scenario);
  if (body.empty()) {
    state.SkipWithError("cannot read the simulated machine");
    return;
  }
  const auto fleet = start_fleet(body, slow, down);
  gpumeter::master::Poller poller = make_poller(*fleet);
  std::size_t ok = 0;
  for (auto _ : state) {
    poller.refresh();
    ok = 0;
    for (const auto& node : poller.fleet().nodes(std::chrono::steady_clock::now())) {
      ok += node.state == gpumeter::master::NodeState::ok ? 1 : 0;
    }
  }
  state.counters["agents"] = kAgents;
  state.counters["ok"] = static_cast<double>(ok);
  state.counters["document_bytes"] = static_cast<double>(body.size());
}

void BM_Refresh200Agents(benchmark::State& state) {
  refresh_fleet(state, GPUMETER_SCENARIO_DIR "/dgx-8gpu.json", 0, 0);
}
void BM_Refresh200AgentsHeavyDocuments(benchmark::State& state) {
  refresh_fleet(state, GPUMETER_BENCH_SCENARIO, 0, 0);
}
void BM_Refresh200AgentsTenSlowTenDown(benchmark::State& state) {
  refresh_fleet(state, GPUMETER_SCENARIO_DIR "/dgx-8gpu.json", 10, 10);
}

// GET /api/v1/fleet's body for 200 nodes: the fleet document rendered and written out, as
// the route does for every request.
void fleet_document(benchmark::State& state, const char* scenario) {
  const std::string body = simulated_status(scenario);
  if (body.empty()) {
    state.SkipWithError("cannot read the simulated machine");
    return;
  }
  gpumeter::master::FleetState fleet({});
  const auto now = std::chrono::steady_clock::now();
  for (int i = 0; i < kAgents; ++i) {
    const std::size_t node = fleet.add({"agent" + std::to_string(i), "http://agent:9416"});
    fleet.record(
        node, gpumeter::master::PollOutcome::good(gpumeter::master::Json::parse(body), body), now);
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = gpumeter::master::fleet_text(fleet, "agents");
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["fleet_bytes"] = static_cast<double>(bytes);
}

void BM_FleetDocument200(benchmark::State& state) {
  fleet_document(state, GPUMETER_SCENARIO_DIR "/dgx-8gpu.json");
}
void BM_FleetDocument200Heavy(benchmark::State& state) {
  fleet_document(state, GPUMETER_BENCH_SCENARIO);
}

BENCHMARK(BM_FleetDocument200)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FleetDocument200Heavy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Refresh200Agents)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Refresh200AgentsHeavyDocuments)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3);
BENCHMARK(BM_Refresh200AgentsTenSlowTenDown)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(3);

}  // namespace

BENCHMARK_MAIN();
