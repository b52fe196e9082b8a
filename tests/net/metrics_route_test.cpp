// SPDX-License-Identifier: MIT
// GET /metrics over real HTTP on loopback, from a sampler on the simulated driver.
#include "net/metrics_route.h"

#include <gtest/gtest.h>

#include "exposition/prometheus_text.h"
#include "support/sampler_sim.h"
#include "support/text_reader.h"

namespace gpumeter::net::metrics_route_test {

class Route : public gpumeter::testing::SimulatedMachine {
 protected:
  void serve(std::optional<std::string> token = std::nullopt, MetricsExtras extras = {}) {
    open_example("dgx-8gpu");
    sampler_ = std::make_unique<Sampler>(gpus(), host(), SamplerConfig{});
    HttpConfig config;
    config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
    config.token = std::move(token);
    auto opened = HttpServer::open(config);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    server_ = std::move(*opened);
    register_metrics_route(*server_, *sampler_, {}, std::move(extras));
    server_->start();
  }

  httplib::Result get(const char* token = nullptr) {
    httplib::Client client("127.0.0.1", server_->port());
    httplib::Headers headers;
    if (token != nullptr) headers.emplace("Authorization", fmt::format("Bearer {}", token));
    return client.Get("/metrics", headers);
  }

  void TearDown() override {
    if (server_) server_->stop();
    SimulatedMachine::TearDown();
  }

  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(Route, NotReadyBeforeTheFirstRoundThenTheExposition) {
  serve();
  const auto early = get();
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 503);
  EXPECT_NE(early->body.find("\"error\""), std::string::npos);

  run(*sampler_, 0, 3);
  const auto scraped = get();
  ASSERT_TRUE(scraped);
  EXPECT_EQ(scraped->status, 200);
  EXPECT_EQ(scraped->get_header_value("Content-Type"), exposition::kExpositionContentType);
  const auto parsed = exposition::testing::parse_exposition(scraped->body);
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  EXPECT_EQ(parsed->find("gpumeter_gpu_info").size(), 8U);
  EXPECT_EQ(parsed->find("gpumeter_sampler_rounds_total").at(0).value, 4);
  // Responses sent before this one, by code: the early 503.
  EXPECT_EQ(parsed->types.at("gpumeter_http_requests_total"), "counter");
  const std::string host = sampler_->snapshot()->hostname;
  EXPECT_EQ(
      parsed->find("gpumeter_http_requests_total", {{"code", "503"}, {"host", host}}).at(0).value,
      1);
  EXPECT_TRUE(parsed->find("gpumeter_http_requests_total", {{"code", "200"}}).empty());

  const auto again = exposition::testing::parse_exposition(get()->body);
  ASSERT_TRUE(again.has_value()) << again.error();
  EXPECT_EQ(again->find("gpumeter_http_requests_total", {{"code", "200"}}).at(0).value, 1);
}

TEST_F(Route, ATokenIsRequiredWhenOneIsConfigured) {
  serve("s3cret-token");
  run(*sampler_, 0, 1);
  EXPECT_EQ(get()->status, 401);
  EXPECT_EQ(get("wrong")->status, 401);
  EXPECT_EQ(get("s3cret-token")->status, 200);
}

// The daemon's extras are read for every answer: its own cost under the conventional names,
// a figure it lacks left out, and the driver's state.
TEST_F(Route, TheProcessOwnFiguresAreReadForEveryAnswer) {
  int reads = 0;
  serve(std::nullopt, {.driver = [] { return DriverStatus{.up = false, .failed_opens = 3}; },
                       .self =
                           [&reads] {
                             ++reads;
                             return SelfUsage{.cpu_seconds = 1.5 * reads,
                                              .resident_bytes = 52'428'800,
                                              .start_time_s = 1'700'000'000.25,
                                              .open_descriptors = 31,
                                              .max_descriptors = 1024,
                                              .heap_in_use_bytes = 20'000'000,
                                              .heap_free_bytes = 1'000'000,
                                              .sqlite_memory_bytes = 2'500'000};
                           }});
  run(*sampler_, 0, 1);
  const auto first = exposition::testing::parse_exposition(get()->body);
  ASSERT_TRUE(first.has_value()) << first.error();
  const std::string host = sampler_->snapshot()->hostname;
  const auto value = [&](const exposition::testing::Exposition& e, const char* name) {
    const auto found = e.find(name, {{"host", host}});
    return found.size() == 1 ? found[0].value : -1.0;
  };
  EXPECT_EQ(first->types.at("process_cpu_seconds_total"), "counter");
  EXPECT_EQ(value(*first, "process_cpu_seconds_total"), 1.5);
  EXPECT_EQ(value(*first, "process_resident_memory_bytes"), 52'428'800);
  EXPECT_EQ(value(*first, "process_start_time_seconds"), 1'700'000'000.25);
  EXPECT_EQ(value(*first, "process_open_fds"), 31);
  EXPECT_EQ(value(*first, "process_max_fds"), 1024);
  EXPECT_EQ(value(*first, "gpumeter_heap_in_use_bytes"), 20'000'000);
  EXPECT_EQ(value(*first, "gpumeter_heap_free_bytes"), 1'000'000);
  EXPECT_EQ(value(*first, "gpumeter_sqlite_memory_bytes"), 2'500'000);
  EXPECT_EQ(value(*first, "gpumeter_driver_up"), 0);
  EXPECT_EQ(value(*first, "gpumeter_driver_open_failures_total"), 3);
  // Not known: no family at all, rather than a made-up zero.
  EXPECT_EQ(first->types.count("process_virtual_memory_bytes"), 0U);

  const auto second = exposition::testing::parse_exposition(get()->body);
  ASSERT_TRUE(second.has_value()) << second.error();
  EXPECT_EQ(value(*second, "process_cpu_seconds_total"), 3.0);
  EXPECT_EQ(reads, 2);
}

}  // namespace gpumeter::net::metrics_route_test
