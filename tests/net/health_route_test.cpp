// SPDX-License-Identifier: MIT
#include "net/health_route.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gpumeter::net::health_route_test {

constexpr TimeUs kNow = 1'700'000'000'000'000;

// A server with only /healthz, whose last round is whatever `last` holds (-1: none yet).
class Health : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpConfig config;
    config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
    config.token = "token";  // /healthz is open all the same
    auto opened = HttpServer::open(config);
    ASSERT_TRUE(opened.has_value());
    server_ = std::move(*opened);
    add_health_route(*server_, HealthSource{
                                   .last_round_us = [this]() -> std::optional<TimeUs> {
                                     const TimeUs value = last_;
                                     if (value < 0) return std::nullopt;
                                     return value;
                                   },
                                   .interval = std::chrono::seconds(1),
                                   .now_us = [] { return kNow; },
                                   .waiting_for_driver = [this]() -> std::optional<std::string> {
                                     const std::lock_guard lock(mutex_);
                                     return waiting_;
                                   },
                               });
    server_->start();
  }
  std::pair<int, nlohmann::json> get() {
    httplib::Client client("127.0.0.1", server_->port());
    const auto result = client.Get("/healthz");
    if (!result) return {0, nullptr};
    return {result->status, nlohmann::json::parse(result->body)};
  }
  std::atomic<TimeUs> last_{-1};
  std::mutex mutex_;
  std::optional<std::string> waiting_;  // the driver's last error while the daemon waits
  std::unique_ptr<HttpServer> server_;
};

TEST_F(Health, StartingBeforeTheFirstRound) {
  const auto [status, body] = get();
  EXPECT_EQ(status, 503);
  EXPECT_EQ(body, (nlohmann::json{{"status", "starting"}, {"last_round_age_seconds", nullptr}}));
}

TEST_F(Health, WaitingForTheDriverWithItsLastErrorThenOk) {
  last_ = kNow - 400'000;
  {
    const std::lock_guard lock(mutex_);
    waiting_ = "libnvidia-ml.so.1: cannot open shared object file";
  }
  const auto [status, body] = get();
  EXPECT_EQ(status, 503);
  EXPECT_EQ(body["status"], "waiting");
  EXPECT_EQ(body["message"], "waiting for the NVIDIA driver");
  EXPECT_EQ(body["last_error"], "libnvidia-ml.so.1: cannot open shared object file");
  {
    const std::lock_guard lock(mutex_);
    waiting_.reset();
  }
  EXPECT_EQ(get().first, 200);
}

TEST_F(Health, OkWhileRoundsAreRecent) {
  last_ = kNow - 400'000;
  const auto [status, body] = get();
  EXPECT_EQ(status, 200);
  EXPECT_EQ(body["status"], "ok");
  EXPECT_DOUBLE_EQ(body["last_round_age_seconds"].get<double>(), 0.4);
}

TEST_F(Health, StaleWhenRoundsStopped) {
  last_ = kNow - 11'000'000;
  const auto [status, body] = get();
  EXPECT_EQ(status, 503);
  EXPECT_EQ(body["status"], "stale");
  EXPECT_DOUBLE_EQ(body["last_round_age_seconds"].get<double>(), 11.0);
}

TEST(StaleAfter, FiveIntervalsAtLeastTenSeconds) {
  EXPECT_EQ(stale_after(std::chrono::seconds(1)), std::chrono::seconds(10));
  EXPECT_EQ(stale_after(std::chrono::seconds(5)), std::chrono::seconds(25));
}

}  // namespace gpumeter::net::health_route_test
