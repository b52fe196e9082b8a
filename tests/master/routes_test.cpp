// SPDX-License-Identifier: MIT
// GET /api/v1/fleet on the real HTTP server, with a poller over real fake agents behind it.
#include "master/routes.h"

#include <gtest/gtest.h>

#include "master/fleet_json.h"
#include "master/poller.h"
#include "support/fake_agent.h"

namespace gpumeter::master::routes_test {

using namespace std::chrono_literals;

class FleetRoute : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<PolledNode> nodes;
    nodes.push_back({{"gpu01", agent.url()},
                     make_http_fetcher(*parse_agent_url(agent.url()), {.timeout = 1s})});
    poller = std::make_unique<Poller>(std::move(nodes), PollerSettings{});
    net::HttpConfig config{.listen = {.host = "127.0.0.1", .port = 0}, .token = "fleet-token"};
    auto opened = net::HttpServer::open(config);
    ASSERT_TRUE(opened) << opened.error().message;
    server = std::move(*opened);
    add_fleet_route(*server, [this] { return fleet_text(poller->fleet(), "agents"); });
    server->start();
  }

  httplib::Result get(const std::string& token) {
    httplib::Client client("127.0.0.1", server->port());
    if (!token.empty()) client.set_bearer_token_auth(token);
    return client.Get("/api/v1/fleet");
  }

  testing::FakeAgent agent{testing::serves_status("gpu01", 1'000)};
  std::unique_ptr<Poller> poller;
  std::unique_ptr<net::HttpServer> server;
};

TEST_F(FleetRoute, ServesTheFleetDocumentOfTheLastRound) {
  poller->refresh();
  const auto result = get("fleet-token");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(result->get_header_value("Cache-Control"), "no-store");
  const Json document = Json::parse(result->body);
  EXPECT_EQ(document["schema_version"], 1);
  ASSERT_EQ(document["nodes"].size(), 1U);
  EXPECT_EQ(document["nodes"][0]["state"], "ok");
  EXPECT_EQ(document["nodes"][0]["status"]["host"], "gpu01");
}

TEST_F(FleetRoute, BeforeAnyRoundNodesAreNotPolledYet) {
  const auto result = get("fleet-token");
  ASSERT_TRUE(result);
  const Json document = Json::parse(result->body);
  EXPECT_EQ(document["nodes"][0]["error"], "not polled yet");
}

TEST_F(FleetRoute, NeedsTheToken) {
  for (const char* token : {"", "wrong"}) {
    const auto result = get(token);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 401) << token;
    EXPECT_EQ(result->body.find("gpu01"), std::string::npos);
  }
}

}  // namespace gpumeter::master::routes_test
