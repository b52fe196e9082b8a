// SPDX-License-Identifier: MIT
// The poller against real HTTP agents on loopback: good ones, one down, one slower than the
// timeout, two answering garbage, one refusing the token, and "self"; fewer connections than
// agents, and a round stopped midway.
#include "master/poller.h"

#include <gtest/gtest.h>

#include <map>
#include <stop_token>
#include <thread>

#include "master/fleet_json.h"
#include "support/fake_agent.h"
#include "support/raw_agent.h"

namespace gpumeter::master::poller_test {

using namespace std::chrono_literals;
using testing::FakeAgent;

constexpr auto kTimeout = 300ms;

httplib::Server::Handler wants_token(const std::string& token, httplib::Server::Handler inner) {
  return [=](const httplib::Request& request, httplib::Response& response) {
    if (request.get_header_value("Authorization") != "Bearer " + token) {
      response.status = 401;
      response.set_header("WWW-Authenticate", "Bearer");
      response.set_content(R"({"error":"missing or wrong token"})", "application/json");
      return;
    }
    inner(request, response);
  };
}

PolledNode http_node(const std::string& name, const std::string& url,
                     std::optional<std::string> token = std::nullopt) {
  auto parsed = parse_agent_url(url);
  if (!parsed) throw std::runtime_error(parsed.error().message);
  return {
      {name, url},
      make_http_fetcher(*parsed, HttpFetchOptions{.token = std::move(token), .timeout = kTimeout})};
}

class Master : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto self = [] {
      return std::expected<Json, Error>(Json::parse(testing::status_body("master", 5'000)));
    };
    std::vector<PolledNode> nodes;
    nodes.push_back(http_node("good1", good1.url()));
    nodes.push_back(http_node("good2", good2.url(), "s3cret"));
    nodes.push_back(
        http_node("down", "http://127.0.0.1:" + std::to_string(testing::closed_port())));
    nodes.push_back(http_node("slow", slow.url()));
    nodes.push_back(http_node("html", html.url()));
    nodes.push_back(http_node("not-status", not_status.url()));
    nodes.push_back(http_node("wrong-token", locked.url(), "guess"));
    nodes.push_back(http_node("no-token", locked.url()));
    nodes.push_back(http_node("missing", missing.url()));
    nodes.push_back({{"master", "self"}, make_self_fetcher(self)});
    poller = std::make_unique<Poller>(std::move(nodes), PollerSettings{.fleet = {.interval = 1s}});
  }
  void TearDown() override { gate.open(); }

  std::map<std::string, NodeView> by_name() const {
    std::map<std::string, NodeView> nodes;
    for (NodeView& node : poller->fleet().nodes(FleetState::Clock::now())) {
      nodes.emplace(node.identity.name, std::move(node));
    }
    return nodes;
  }

  testing::Gate gate;
  FakeAgent good1{testing::serves_status("gpu01", 1'000)};
  FakeAgent good2{wants_token("s3cret", testing::serves_status("gpu02", 2'000))};
  FakeAgent slow{[this](const httplib::Request& request, httplib::Response& response) {
    gate.wait(10s);
    testing::serves_status("gpu04", 4'000)(request, response);
  }};
  FakeAgent html{testing::serves(200, "<html><body>It works!</body></html>", "text/html")};
  FakeAgent not_status{testing::serves(200, R"({"status":"ok"})", "application/json")};
  FakeAgent locked{wants_token("s3cret", testing::serves_status("gpu07", 7'000))};
  FakeAgent missing{testing::serves(404, "not found", "text/plain")};
  std::unique_ptr<Poller> poller;
};

TEST_F(Master, ClassifiesEveryAgent) {
  const RoundCounts counts = poller->refresh();
  EXPECT_EQ(counts.polled, 10U);
  EXPECT_EQ(counts.skipped, 0U);
  const auto nodes = by_name();

  EXPECT_EQ(nodes.at("good1").state, NodeState::ok);
  EXPECT_EQ(nodes.at("good1").error, "");
  ASSERT_NE(nodes.at("good1").status, nullptr);
  EXPECT_EQ(nodes.at("good1").status->parse()["host"], "gpu01");
  EXPECT_TRUE(nodes.at("good1").age_seconds);

  EXPECT_EQ(nodes.at("good2").state, NodeState::ok) << nodes.at("good2").error;
  EXPECT_EQ(nodes.at("good2").status->parse()["host"], "gpu02");

  EXPECT_EQ(nodes.at("down").state, NodeState::unreachable);
  EXPECT_EQ(nodes.at("down").error, "cannot connect (refused, or no route to the host)");
  EXPECT_EQ(nodes.at("down").status, nullptr);

  EXPECT_EQ(nodes.at("slow").state, NodeState::unreachable);
  EXPECT_EQ(nodes.at("slow").error, "no answer within 0.3s");

  EXPECT_EQ(nodes.at("html").state, NodeState::garbage);
  EXPECT_EQ(nodes.at("html").error, "not JSON (at byte 1)");

  EXPECT_EQ(nodes.at("not-status").state, NodeState::garbage);
  EXPECT_EQ(nodes.at("not-status").error, "not a status document: schema_version: expected 1");

  EXPECT_EQ(nodes.at("wrong-token").state, NodeState::unauthorized);
  EXPECT_EQ(nodes.at("wrong-token").error, "HTTP 401: the agent refused the token");
  EXPECT_EQ(nodes.at("no-token").state, NodeState::unauthorized);
  EXPECT_EQ(nodes.at("no-token").error, "HTTP 401: the agent wants a token");

  EXPECT_EQ(nodes.at("missing").state, NodeState::garbage);
  EXPECT_EQ(nodes.at("missing").error, "HTTP 404 (is the URL an agent's?)");

  EXPECT_EQ(nodes.at("master").state, NodeState::ok);
  EXPECT_EQ(nodes.at("master").status->parse()["host"], "master");
}

TEST_F(Master, FailingAgentsBackOffAndGoodOnesArePolledEveryRound) {
  for (int round = 0; round < 7; ++round) poller->refresh();
  const auto nodes = by_name();
  // Rounds 1, 2 and 4 poll a failing agent (waits of 1, 2, then 4 rounds); 3, 5, 6, 7 skip it.
  for (const char* failing : {"down", "slow", "html", "wrong-token", "missing"}) {
    const PollCounters& counters = nodes.at(failing).counters;
    EXPECT_EQ(counters.attempts, 3U) << failing;
    EXPECT_EQ(counters.failures, 3U) << failing;
    EXPECT_EQ(counters.skipped, 4U) << failing;
    EXPECT_EQ(counters.consecutive_failures, 3U) << failing;
  }
  EXPECT_EQ(nodes.at("good1").counters.attempts, 7U);
  EXPECT_EQ(nodes.at("good1").counters.skipped, 0U);
  EXPECT_EQ(good1.requests(), 7);
  EXPECT_EQ(html.requests(), 3);
}

TEST(MasterAgent, GoodDataKeepsItsAgeWhileTheAgentFails) {
  std::atomic<bool> failing{false};
  const auto good = testing::serves_status("gpu09", 9'000);
  FakeAgent agent{[&](const httplib::Request& request, httplib::Response& response) {
    if (!failing) return good(request, response);
    response.status = 503;
    response.set_content(R"({"error":"no snapshot yet"})", "application/json");
  }};
  std::vector<PolledNode> nodes;
  nodes.push_back(http_node("gpu09", agent.url()));
  Poller poller(std::move(nodes), PollerSettings{});
  const auto node = [&] { return poller.fleet().nodes(FleetState::Clock::now()).at(0); };

  poller.refresh();
  const NodeView before = node();
  ASSERT_EQ(before.state, NodeState::ok) << before.error;

  failing = true;
  poller.refresh();
  const NodeView during = node();
  EXPECT_EQ(during.state, NodeState::unreachable);
  EXPECT_EQ(during.error, "HTTP 503: no snapshot yet");
  ASSERT_NE(during.status, nullptr);
  EXPECT_EQ(during.status, before.status);  // the very document of the good poll
  EXPECT_GE(*during.age_seconds, *before.age_seconds);

  failing = false;
  poller.refresh();  // one failure: the next round polls again
  EXPECT_EQ(node().state, NodeState::ok);
  EXPECT_EQ(node().counters.attempts, 3U);
  EXPECT_EQ(node().counters.failures, 1U);
}

TEST_F(Master, FleetDocumentSaysSoForEachNode) {
  poller->refresh();
  const Json document = fleet_json(poller->fleet(), "agents");
  ASSERT_EQ(document["nodes"].size(), 10U);
  std::map<std::string, std::string> states;
  for (const Json& node : document["nodes"]) {
    states[node["name"]] = node["state"];
    EXPECT_EQ(node["status"].is_null(), node["state"] != "ok") << node["name"];
    EXPECT_EQ(node["error"].is_null(), node["state"] == "ok") << node["name"];
  }
  EXPECT_EQ(states, (std::map<std::string, std::string>{{"good1", "ok"},
                                                        {"good2", "ok"},
                                                        {"down", "unreachable"},
                                                        {"slow", "unreachable"},
                                                        {"html", "garbage"},
                                                        {"not-status", "garbage"},
                                                        {"wrong-token", "unauthorized"},
                                                        {"no-token", "unauthorized"},
                                                        {"missing", "garbage"},
                                                        {"master", "ok"}}));
}

TEST(MasterPoller, PollsEveryAgentWhenFewerConnectionsMayBeOpen) {
  FakeAgent agent{testing::serves_status("gpu01", 1'000)};
  std::vector<PolledNode> nodes;
  for (int i = 0; i < 5; ++i) nodes.push_back(http_node(std::to_string(i), agent.url()));
  Poller poller(std::move(nodes), PollerSettings{.max_connections = 2});
  EXPECT_EQ(poller.max_connections(), 2U);
  EXPECT_EQ(poller.refresh().polled, 5U);
  for (const NodeView& node : poller.fleet().nodes(FleetState::Clock::now())) {
    EXPECT_EQ(node.state, NodeState::ok) << node.error;
  }
  EXPECT_EQ(agent.requests(), 5);
}

TEST(MasterPoller, SelfWithoutADriverIsUnreachable) {
  std::vector<PolledNode> nodes;
  nodes.push_back({{"master", "self"}, make_self_fetcher([] {
                     return std::expected<Json, Error>(std::unexpected(
                         Error{ErrorCode::driver_failed, "NVML: driver not loaded"}));
                   })});
  Poller poller(std::move(nodes), PollerSettings{});
  poller.refresh();
  const NodeView node = poller.fleet().nodes(FleetState::Clock::now()).at(0);
  EXPECT_EQ(node.state, NodeState::unreachable);
  EXPECT_EQ(node.error, "NVML: driver not loaded");
}

TEST(MasterPoller, AStoppedRoundEndsAtOnceAndRecordsNothing) {
  testing::RawAgent silent(
      [](int fd, const std::stop_token& stop) { testing::wait_for_close(fd, stop); });
  std::vector<PolledNode> nodes;
  nodes.push_back({{"silent", silent.url()},
                   make_http_fetcher(*parse_agent_url(silent.url()), {.timeout = 60s})});
  Poller poller(std::move(nodes), PollerSettings{.fleet = {.interval = 60s}});
  std::stop_source stop;
  const std::jthread stopper([&] {
    while (silent.accepted() == 0) std::this_thread::sleep_for(1ms);
    stop.request_stop();
  });
  EXPECT_EQ(poller.refresh(stop.get_token()).polled, 1U);
  // Had the round waited for the 60 s timeout, the poll would count as an attempt and failure.
  const NodeView node = poller.fleet().nodes(FleetState::Clock::now()).at(0);
  EXPECT_EQ(node.counters.attempts, 0U);
  EXPECT_EQ(node.counters.failures, 0U);
}

}  // namespace gpumeter::master::poller_test
