// SPDX-License-Identifier: MIT
// The fleet state on its own, with explicit times: ages, staleness and counters.
#include "master/fleet.h"

#include <gtest/gtest.h>

#include "master/fleet_json.h"
#include "support/fake_agent.h"

namespace gpumeter::master::fleet_test {

using namespace std::chrono_literals;
using Clock = FleetState::Clock;

PollOutcome reading_at(std::int64_t time_us) {
  return PollOutcome::good(Json::parse(testing::status_body("node1", time_us)));
}

class Fleet : public ::testing::Test {
 protected:
  FleetState fleet{FleetSettings{.interval = 5s, .stale_after = 3}};
  std::size_t node = fleet.add({"node1", "http://node1:9416"});
  Clock::time_point t0 = Clock::now();

  NodeView at(Clock::time_point when) const { return fleet.nodes(when).at(node); }
};

TEST_F(Fleet, ANewNodeIsNotPolledYet) {
  const NodeView view = at(t0);
  EXPECT_EQ(view.identity.name, "node1");
  EXPECT_EQ(view.state, NodeState::unreachable);
  EXPECT_EQ(view.error, "not polled yet");
  EXPECT_FALSE(view.age_seconds);
  EXPECT_EQ(view.status, nullptr);
}

TEST_F(Fleet, AgeCountsFromWhenTheReadingFirstArrived) {
  fleet.record(node, reading_at(1'000), t0);
  EXPECT_EQ(at(t0 + 2s).state, NodeState::ok);
  EXPECT_DOUBLE_EQ(*at(t0 + 2s).age_seconds, 2.0);
  // A new reading starts the age again.
  fleet.record(node, reading_at(2'000), t0 + 5s);
  EXPECT_DOUBLE_EQ(*at(t0 + 6s).age_seconds, 1.0);
}

TEST_F(Fleet, FailuresKeepTheLastGoodDocumentAndItsAge) {
  fleet.record(node, reading_at(1'000), t0);
  fleet.record(node, PollOutcome::failed(NodeState::unreachable, "no answer within 2s"), t0 + 5s);
  const NodeView view = at(t0 + 7s);
  EXPECT_EQ(view.state, NodeState::unreachable);
  EXPECT_EQ(view.error, "no answer within 2s");
  ASSERT_NE(view.status, nullptr);
  EXPECT_EQ(view.status->time_us, 1'000);
  EXPECT_EQ(view.status->parse()["time_us"], 1'000);
  EXPECT_DOUBLE_EQ(*view.age_seconds, 7.0);
  // A long outage stays "unreachable": the failure says more than "stale" would.
  EXPECT_EQ(at(t0 + 1h).state, NodeState::unreachable);
}

TEST_F(Fleet, TheSameReadingServedAgainTurnsStaleAfterTheLimit) {
  fleet.record(node, reading_at(1'000), t0);
  fleet.record(node, reading_at(1'000), t0 + 10s);
  EXPECT_EQ(at(t0 + 15s).state, NodeState::ok);  // exactly 3 intervals: not yet
  fleet.record(node, reading_at(1'000), t0 + 16s);
  const NodeView view = at(t0 + 16s);
  EXPECT_EQ(view.state, NodeState::stale);
  EXPECT_EQ(view.error, "the same reading for 16s (more than 3 poll intervals)");
  EXPECT_DOUBLE_EQ(*view.age_seconds, 16.0);
  fleet.record(node, reading_at(3'000), t0 + 20s);
  EXPECT_EQ(at(t0 + 20s).state, NodeState::ok);
}

TEST_F(Fleet, CountsAttemptsFailuresAndSkippedRounds) {
  fleet.record(node, PollOutcome::failed(NodeState::garbage, "not JSON (at byte 1)"), t0);
  fleet.record(node, PollOutcome::failed(NodeState::garbage, "not JSON (at byte 1)"), t0 + 5s);
  fleet.record_skipped(node);
  PollCounters counters = at(t0).counters;
  EXPECT_EQ(counters.attempts, 2U);
  EXPECT_EQ(counters.failures, 2U);
  EXPECT_EQ(counters.skipped, 1U);
  EXPECT_EQ(counters.consecutive_failures, 2U);
  fleet.record(node, reading_at(1'000), t0 + 15s);
  counters = at(t0).counters;
  EXPECT_EQ(counters.attempts, 3U);
  EXPECT_EQ(counters.failures, 2U);
  EXPECT_EQ(counters.consecutive_failures, 0U);
}

TEST_F(Fleet, FindsNodesByName) {
  const std::size_t other = fleet.add({"node2", "self"});
  EXPECT_EQ(fleet.find("node2"), other);
  EXPECT_EQ(fleet.find("node1"), node);
  EXPECT_FALSE(fleet.find("node3"));
  EXPECT_EQ(fleet.size(), 2U);
}

TEST_F(Fleet, DocumentHasEveryNodeWithItsStateAgeErrorStatusAndCounters) {
  fleet.add({"node2", "self"});
  fleet.record(node, reading_at(1'000), t0);
  fleet.record(node, PollOutcome::failed(NodeState::unauthorized, "HTTP 401"), t0 + 5s);
  const auto nodes = fleet.nodes(t0 + 6s);
  const Json document = fleet_json(nodes, "agents", "");
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["source"], "agents");
  EXPECT_TRUE(document["error"].is_null());
  ASSERT_EQ(document["nodes"].size(), 2U);
  const Json& first = document["nodes"][0];
  EXPECT_EQ(first["name"], "node1");
  EXPECT_EQ(first["url"], "http://node1:9416");
  EXPECT_EQ(first["state"], "unauthorized");
  EXPECT_EQ(first["age_seconds"], 6.0);
  EXPECT_EQ(first["error"], "HTTP 401");
  EXPECT_EQ(first["status"]["host"], "node1");
  EXPECT_EQ(first["poll"]["attempts"], 2);
  EXPECT_EQ(first["poll"]["failures"], 1);
  const Json& second = document["nodes"][1];
  EXPECT_EQ(second["url"], "self");
  EXPECT_TRUE(second["age_seconds"].is_null());
  EXPECT_TRUE(second["status"].is_null());
  EXPECT_EQ(second["error"], "not polled yet");
}

// Two nodes whose readings give one host name are flagged on both sides, in the tree and in
// the text, and kept apart; a node with a name of its own is flagged with none.
TEST_F(Fleet, NodesThatNameTheSameHostAreFlaggedNotMerged) {
  const std::size_t twin = fleet.add({"node1-again", "http://10.0.0.9:9416"});
  const std::size_t other = fleet.add({"node3", "http://node3:9416"});
  fleet.record(node, reading_at(1'000), t0);
  fleet.record(twin, PollOutcome::good(Json::parse(testing::status_body("node1", 2'000))), t0);
  fleet.record(other, PollOutcome::good(Json::parse(testing::status_body("node3", 2'000))), t0);
  const auto nodes = fleet.nodes(t0 + 1s);
  for (const Json& document :
       {fleet_json(nodes, "agents", ""), Json::parse(fleet_text(nodes, "agents", ""))}) {
    ASSERT_EQ(document["nodes"].size(), 3U);
    EXPECT_EQ(document["nodes"][0]["same_host_as"], Json::array({"node1-again"}));
    EXPECT_EQ(document["nodes"][1]["same_host_as"], Json::array({"node1"}));
    EXPECT_EQ(document["nodes"][2]["same_host_as"], Json::array());
  }
}

TEST_F(Fleet, TextIsTheSameDocumentWithEachStatusAsReceived) {
  const std::string received = Json::parse(testing::status_body("node1", 1'000)).dump(2);
  fleet.record(node, PollOutcome::good(Json::parse(received), received), t0);
  fleet.add({"node2", "self"});
  fleet.set_fleet_error("a \"quoted\" problem");
  const auto nodes = fleet.nodes(t0 + 1s);
  const std::string text = fleet_text(nodes, "agents", fleet.fleet_error());
  EXPECT_EQ(Json::parse(text), fleet_json(nodes, "agents", fleet.fleet_error()));
  EXPECT_NE(text.find(received), std::string::npos);  // byte for byte, indentation included
  EXPECT_EQ(Json::parse(fleet_text(std::span<const NodeView>{}, "agents", "")),
            fleet_json(std::span<const NodeView>{}, "agents", ""));
}

TEST_F(Fleet, AByteOrderMarkDoesNotReachTheFleetDocument) {
  const std::string received = "\xEF\xBB\xBF" + testing::status_body("node1", 1'000);
  fleet.record(node, PollOutcome::good(Json::parse(received), received), t0);
  const auto nodes = fleet.nodes(t0);
  EXPECT_EQ(nodes[0].status->text, received.substr(3));
  EXPECT_TRUE(Json::accept(fleet_text(nodes, "agents", "")));
}

TEST_F(Fleet, FleetErrorIsCarried) {
  fleet.set_fleet_error("Prometheus at http://prom:9090: cannot connect");
  const Json document = fleet_json(fleet, "prometheus");
  EXPECT_EQ(document["error"], "Prometheus at http://prom:9090: cannot connect");
}

}  // namespace gpumeter::master::fleet_test
