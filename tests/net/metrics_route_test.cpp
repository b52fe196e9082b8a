// GET /metrics over real HTTP on loopback, from a sampler on the simulated driver.
#include "net/metrics_route.h"

#include <gtest/gtest.h>

#include "core/sampler_sim.h"
#include "net/exposition.h"
#include "net/prometheus_text.h"

namespace gpumeter::net {
namespace {

class Route : public gpumeter::testing::SimulatedMachine {
 protected:
  void serve(std::optional<std::string> token = std::nullopt) {
    open_example("dgx-8gpu");
    sampler_ = std::make_unique<Sampler>(gpus(), host(), SamplerConfig{});
    HttpConfig config;
    config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
    config.token = std::move(token);
    auto opened = HttpServer::open(config);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    server_ = std::move(*opened);
    register_metrics_route(*server_, *sampler_, {});
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
  EXPECT_EQ(scraped->get_header_value("Content-Type"), kExpositionContentType);
  const auto parsed = testing::parse_exposition(scraped->body);
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

  const auto again = testing::parse_exposition(get()->body);
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

}  // namespace
}  // namespace gpumeter::net
