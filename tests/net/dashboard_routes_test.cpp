// SPDX-License-Identifier: MIT
// The dashboard's routes over real HTTP on loopback: public even when the server has a token,
// the embedded bytes with their type, ETag and caching headers, 304 for a matching
// If-None-Match, 404 for any other file.
#include "net/dashboard_routes.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "net/dashboard_assets.h"

namespace gpumeter::net::dashboard_routes_test {

class DashboardRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpConfig config;
    config.listen = ListenAddress{.host = "127.0.0.1", .port = 0};
    config.token = "a-token";  // the dashboard is served without it all the same
    auto opened = HttpServer::open(config);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    server_ = std::move(*opened);
    register_dashboard_routes(*server_);
    server_->start();
  }

  httplib::Result get(const std::string& path, const httplib::Headers& headers = {}) {
    httplib::Client client("127.0.0.1", server_->port());
    return client.Get(path, headers);
  }

  static DashboardAsset asset(const std::string& path) {
    const auto found = dashboard_asset(path);
    if (!found) ADD_FAILURE() << path << " is not embedded";
    return found.value_or(DashboardAsset{});
  }

  std::unique_ptr<HttpServer> server_;
};

TEST_F(DashboardRoutes, ThePageIsServedWithoutTheToken) {
  const auto result = get("/");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->body, asset("/").bytes);
  EXPECT_EQ(result->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(result->get_header_value("ETag"), asset("/").etag);
  EXPECT_EQ(result->get_header_value("Cache-Control"), "no-cache");
  EXPECT_EQ(result->get_header_value("X-Content-Type-Options"), "nosniff");
  const std::string policy = result->get_header_value("Content-Security-Policy");
  EXPECT_NE(policy.find("script-src 'self'"), std::string::npos) << policy;
  EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos) << policy;
}

TEST_F(DashboardRoutes, IndexHtmlIsThePage) {
  const auto result = get("/index.html");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->body, asset("/").bytes);
}

TEST_F(DashboardRoutes, AssetsComeWithTheirTypeAndEtag) {
  for (const std::string path : {"/assets/js/main.js", "/assets/dashboard.css",
                                 "/assets/uplot/uPlot.iife.min.js", "/assets/uplot/LICENSE"}) {
    const auto result = get(path);
    ASSERT_TRUE(result) << path;
    EXPECT_EQ(result->status, 200) << path;
    EXPECT_EQ(result->body, asset(path).bytes) << path;
    EXPECT_EQ(result->get_header_value("Content-Type"), asset(path).content_type) << path;
    EXPECT_EQ(result->get_header_value("ETag"), asset(path).etag) << path;
    EXPECT_FALSE(result->has_header("Content-Security-Policy")) << path;
  }
}

TEST_F(DashboardRoutes, AMatchingEtagGets304WithoutABody) {
  const std::string etag(asset("/assets/js/main.js").etag);
  for (const std::string& header : {etag, "W/" + etag, "\"other\", " + etag, std::string("*")}) {
    const auto result = get("/assets/js/main.js", {{"If-None-Match", header}});
    ASSERT_TRUE(result) << header;
    EXPECT_EQ(result->status, 304) << header;
    EXPECT_TRUE(result->body.empty()) << header;
    EXPECT_EQ(result->get_header_value("ETag"), etag) << header;
  }
}

TEST_F(DashboardRoutes, AnotherEtagGetsTheFile) {
  const auto result = get("/assets/js/main.js", {{"If-None-Match", std::string(asset("/").etag)}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(result->body, asset("/assets/js/main.js").bytes);
}

TEST_F(DashboardRoutes, OtherFilesAreNotFound) {
  for (const std::string path : {"/assets/js/none.js", "/assets/", "/assets/../CMakeLists.txt"}) {
    const auto result = get(path);
    ASSERT_TRUE(result) << path;
    EXPECT_EQ(result->status, 404) << path;
    EXPECT_TRUE(nlohmann::json::parse(result->body).contains("error")) << path;
  }
}

TEST_F(DashboardRoutes, HeadAnswersWithoutABody) {
  httplib::Client client("127.0.0.1", server_->port());
  const auto result = client.Head("/");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_TRUE(result->body.empty());
  EXPECT_EQ(result->get_header_value("ETag"), asset("/").etag);
}

}  // namespace gpumeter::net::dashboard_routes_test
