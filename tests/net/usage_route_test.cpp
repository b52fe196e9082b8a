// SPDX-License-Identifier: MIT
// GET /api/v1/usage in pages over real HTTP, from a real database: a report by process read a
// few rows at a time by following `next` holds every row of the whole report once, in order;
// the cursor pins the window of the first page, so rows recorded meanwhile do not shift the
// pages; a bad `limit` or `after` is refused.
#include "net/usage_route.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "net/http_server.h"
#include "net/store_pool.h"
#include "store/write.h"
#include "support/store_fixtures.h"

namespace gpumeter::net::usage_route_test {

using gpumeter::testing::TempDir;
using nlohmann::json;
using store::testing::interval;
using store::testing::kHour;
using store::testing::kMinute;
using store::testing::kT0;
using store::testing::process;

constexpr int kProcesses = 7;

class UsagePages : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      store::Store store = store::testing::open_store(dir_ / "h.db");
      store::Batch batch;
      for (Pid pid = 1; pid <= kProcesses; ++pid)
        batch.process_intervals.push_back(
            interval(process(pid, "ada", "GPU-a"), kT0, kT0 + kHour, 50));
      ASSERT_TRUE(store::write(store, batch));
    }
    pool_.emplace(dir_ / "h.db", "node1");
    HttpConfig config;
    config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
    auto opened = HttpServer::open(config);
    ASSERT_TRUE(opened.has_value());
    server_ = std::move(*opened);
    add_usage_route(*server_,
                    UsageSources{.store = &*pool_, .now_us = [this] { return now_us_.load(); }});
    server_->start();
  }

  std::pair<int, json> get(const std::string& path) {
    httplib::Client client("127.0.0.1", server_->port());
    const auto result = client.Get(path);
    if (!result) return {0, nullptr};
    return {result->status, json::parse(result->body, nullptr, false)};
  }

  // Every page of `path`, following `next`.
  std::vector<json> pages(const std::string& path) {
    std::vector<json> answers;
    std::string next_path = path;
    for (int page = 0; page < 100; ++page) {
      const auto [status, document] = get(next_path);
      EXPECT_EQ(status, 200) << next_path << ": " << document.dump();
      if (status != 200) break;
      answers.push_back(document);
      if (document["next"].is_null()) break;
      next_path = path + "&after=" + document["next"].get<std::string>();
    }
    return answers;
  }

  TempDir dir_;
  std::atomic<TimeUs> now_us_{kT0 + 2 * kHour};
  std::optional<StorePool> pool_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(UsagePages, FollowingNextGivesEveryRowOnceInOrder) {
  const auto [status, whole] = get("/api/v1/usage?by=process&since=3h");
  ASSERT_EQ(status, 200) << whole.dump();
  ASSERT_EQ(whole["rows"].size(), static_cast<std::size_t>(kProcesses));
  EXPECT_EQ(whole["truncated"], false);
  EXPECT_TRUE(whole["next"].is_null());

  const std::vector<json> answers = pages("/api/v1/usage?by=process&since=3h&limit=3");
  ASSERT_EQ(answers.size(), 3U);
  std::vector<json> rows;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    EXPECT_EQ(answers[i]["truncated"], i + 1 < answers.size()) << i;
    EXPECT_EQ(answers[i]["rows"].size(), i + 1 < answers.size() ? 3U : 1U) << i;
    // Every page carries the whole window's total and the window of the first page.
    EXPECT_DOUBLE_EQ(answers[i]["total"]["gpu_hours"].get<double>(), kProcesses);
    EXPECT_EQ(answers[i]["since_time_us"], whole["since_time_us"]);
    EXPECT_EQ(answers[i]["until_time_us"], whole["until_time_us"]);
    for (const json& row : answers[i]["rows"]) rows.push_back(row);
  }
  EXPECT_EQ(json(rows), whole["rows"]);
}

TEST_F(UsagePages, TheCursorPinsTheWindowOfTheFirstPage) {
  const auto [status, first] = get("/api/v1/usage?by=process&since=3h&limit=4");
  ASSERT_EQ(status, 200);
  ASSERT_EQ(first["truncated"], true);
  // An hour later a new process has used the GPU, and `since=3h` now means another window.
  {
    auto store = store::Store::open(dir_ / "h.db", {.host = "node1"});
    ASSERT_TRUE(store) << store.error().message;
    store::Batch batch;
    batch.process_intervals.push_back(
        interval(process(99, "bob", "GPU-a"), kT0 + 2 * kHour + kMinute, kT0 + 3 * kHour, 50));
    ASSERT_TRUE(store::write(*store, batch));
  }
  now_us_ = kT0 + 3 * kHour;
  const auto [next_status, second] =
      get("/api/v1/usage?by=process&since=3h&limit=4&after=" + first["next"].get<std::string>());
  ASSERT_EQ(next_status, 200) << second.dump();
  ASSERT_EQ(second["rows"].size(), 3U) << "the rest of the first window's seven";
  for (const json& row : second["rows"]) EXPECT_NE(row["pid"], 99);
  EXPECT_EQ(second["until_time_us"], first["until_time_us"]);
  EXPECT_EQ(second["truncated"], false);
}

TEST_F(UsagePages, ABadLimitOrCursorIsRefused) {
  for (const char* path :
       {"/api/v1/usage?limit=0", "/api/v1/usage?limit=1001", "/api/v1/usage?limit=ten",
        "/api/v1/usage?after=soon", "/api/v1/usage?after=5:3:0", "/api/v1/usage?after=1:2",
        "/api/v1/usage?after=1:2:3:4"}) {
    const auto [status, document] = get(path);
    EXPECT_EQ(status, 400) << path;
    EXPECT_TRUE(document.contains("error")) << path;
  }
  EXPECT_NE(get("/api/v1/usage?after=soon").second["error"].get<std::string>().find("after:"),
            std::string::npos);
}

}  // namespace gpumeter::net::usage_route_test
