// SPDX-License-Identifier: MIT
// The agent's routes over a sampler whose sources a test scripts: nothing to serve before the
// first round (503), the snapshot after it; the usage route without a database.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "net/agent_routes.h"
#include "support/sampler_fakes.h"

namespace gpumeter::net::status_routes_test {

constexpr TimeUs kNow = 1'714'564'800'000'000;  // 2024-05-01T12:00:00Z

class Routes : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_.gpus.resize(1);
    gpus_.gpus[0].uuid = "GPU-aaaa";
    gpus_.gpus[0].processes = std::vector<GpuProcess>{gpumeter::testing::on_gpu(7, 1 << 20)};
    HttpConfig config;
    config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
    auto opened = HttpServer::open(config);
    ASSERT_TRUE(opened.has_value());
    server_ = std::move(*opened);
    add_agent_routes(*server_, AgentSources{.sampler = sampler_, .now_us = [] { return kNow; }});
    server_->start();
  }
  std::pair<int, nlohmann::json> get(const std::string& path) {
    httplib::Client client("127.0.0.1", server_->port());
    const auto result = client.Get(path);
    if (!result) return {0, nullptr};
    return {result->status, nlohmann::json::parse(result->body)};
  }

  gpumeter::testing::ScriptedGpus gpus_;
  gpumeter::testing::ScriptedHost host_;
  Sampler sampler_{gpus_, host_, SamplerConfig{}};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(Routes, NothingToServeBeforeTheFirstRound) {
  for (const char* path : {"/api/v1/status", "/gpu_status", "/api/v1/history?gpu=0", "/healthz"}) {
    const auto [status, document] = get(path);
    EXPECT_EQ(status, 503) << path;
  }
  EXPECT_EQ(get("/api/v1/status").second["error"], "no sample yet: the sampler is starting");
}

TEST_F(Routes, TheSnapshotOnceARoundRan) {
  ASSERT_TRUE(sampler_.sample_once(kNow - 100'000).has_value());
  const auto [status, document] = get("/api/v1/status");
  ASSERT_EQ(status, 200);
  EXPECT_EQ(document["time_us"], kNow - 100'000);
  EXPECT_EQ(document["gpus"][0]["uuid"], "GPU-aaaa");
  EXPECT_EQ(document["gpus"][0]["processes"][0]["pid"], 7);
  const auto [flat_status, flat] = get("/gpu_status");
  ASSERT_EQ(flat_status, 200);
  EXPECT_EQ(flat["gpus"][0]["pids"], "7");
  EXPECT_EQ(flat["gpus"][0]["memory_used"], nullptr);  // the script reads no memory figure
  const auto [health_status, health] = get("/healthz");
  EXPECT_EQ(health_status, 200);
  EXPECT_DOUBLE_EQ(health["last_round_age_seconds"].get<double>(), 0.1);
}

// Temperature, like power, is kept in the sampler's series: the charts' recent part needs no
// database (this daemon has none) and is there from the first rounds on.
TEST_F(Routes, TemperatureHistoryFromTheSeriesInMemory) {
  gpus_.gpus[0].temperature_celsius = 61.0;
  for (const TimeUs ago : {3'000'000, 2'000'000, 1'000'000})
    ASSERT_TRUE(sampler_.sample_once(kNow - ago).has_value());
  const auto [status, document] =
      get("/api/v1/history?gpu=0&metric=temperature_celsius&since=1m&step=1s");
  ASSERT_EQ(status, 200) << document.dump();
  EXPECT_EQ(document["unit"], "celsius");
  int filled = 0;
  for (const auto& value : document["avg"]) {
    if (value.is_null()) continue;
    EXPECT_DOUBLE_EQ(value.get<double>(), 61.0);
    ++filled;
  }
  EXPECT_EQ(filled, 3);
}

TEST_F(Routes, EachRoundIsRenderedAnew) {
  ASSERT_TRUE(sampler_.sample_once(kNow - 2'000'000).has_value());
  EXPECT_EQ(get("/api/v1/status").second["time_us"], kNow - 2'000'000);
  EXPECT_EQ(get("/api/v1/status").second["time_us"], kNow - 2'000'000);
  gpus_.gpus[0].processes = std::vector<GpuProcess>{};
  ASSERT_TRUE(sampler_.sample_once(kNow - 1'000'000).has_value());
  const auto [status, document] = get("/api/v1/status");
  EXPECT_EQ(document["time_us"], kNow - 1'000'000);
  EXPECT_EQ(document["gpus"][0]["processes"], nlohmann::json::array());
  EXPECT_EQ(get("/gpu_status").second["gpus"][0]["availability"], "free");
}

TEST_F(Routes, UsageWithoutADatabaseIsNotFound) {
  const auto [status, document] = get("/api/v1/usage");
  EXPECT_EQ(status, 404);
  EXPECT_EQ(document["error"], "this daemon keeps no history database");
}

TEST_F(Routes, NoTaskRouteWithoutTaskResults) {
  EXPECT_EQ(get("/api/v1/tasks").first, 404);
}

}  // namespace gpumeter::net::status_routes_test
