// SPDX-License-Identifier: MIT
// The checks before routing, on parsed requests: RFC 9112's rejections, the size limits, the
// Host allow-list against DNS rebinding, and the methods served.
#include "net/request_screen.h"

#include <gtest/gtest.h>

#include "net/host_allow_list.h"

namespace gpumeter::net::request_screen_test {

httplib::Request get(std::string host = "127.0.0.1:9416") {
  httplib::Request request;
  request.method = "GET";
  request.path = "/api/v1/status";
  request.version = "HTTP/1.1";
  request.headers.emplace("Host", std::move(host));
  return request;
}

int status_of(const httplib::Request& request, const ScreenLimits& limits = {}) {
  const HostAllowList hosts("127.0.0.1", {"gpu01.example"});
  const auto refusal = screen(request, request.path.size(), limits, hosts);
  return refusal ? refusal->status : 200;
}

TEST(RequestScreen, AnOrdinaryGetPasses) {
  EXPECT_EQ(status_of(get()), 200);
  httplib::Request head = get("localhost");
  head.method = "HEAD";
  EXPECT_EQ(status_of(head), 200);
}

TEST(RequestScreen, Http11NeedsExactlyOneHost) {
  httplib::Request request = get();
  request.headers.clear();
  EXPECT_EQ(status_of(request), 400);
  request.version = "HTTP/1.0";
  EXPECT_EQ(status_of(request), 200);
  request = get();
  request.headers.emplace("Host", "localhost");
  EXPECT_EQ(status_of(request), 400);
}

TEST(RequestScreen, ContentLengthMustBeOneNumber) {
  httplib::Request request = get();
  request.headers.emplace("Content-Length", "5");
  request.headers.emplace("Content-Length", "6");
  EXPECT_EQ(status_of(request), 400);
  request = get();
  request.headers.emplace("Content-Length", "ten");
  EXPECT_EQ(status_of(request), 400);
  request = get();
  request.headers.emplace("Content-Length", "0");
  request.headers.emplace("Content-Length", "0");
  EXPECT_EQ(status_of(request), 200);
  request = get();
  request.headers.emplace("Content-Length", "3");
  request.headers.emplace("Transfer-Encoding", "chunked");
  EXPECT_EQ(status_of(request), 400);
}

TEST(RequestScreen, SizeLimits) {
  httplib::Request request = get();
  request.path = "/" + std::string(9000, 'a');
  EXPECT_EQ(status_of(request), 414);
  request = get();
  for (int i = 0; i < 100; ++i) request.headers.emplace("X-" + std::to_string(i), "1");
  EXPECT_EQ(status_of(request), 431);
  request = get();
  request.headers.emplace("X-Long", std::string(17000, 'a'));
  EXPECT_EQ(status_of(request), 431);
  request = get();
  request.headers.emplace("Content-Length", "70000");
  EXPECT_EQ(status_of(request), 413);
  request = get();
  request.headers.emplace("Transfer-Encoding", "chunked");
  EXPECT_EQ(status_of(request), 413);
}

TEST(RequestScreen, OnlyGetAndHead) {
  httplib::Request request = get();
  request.method = "DELETE";
  EXPECT_EQ(status_of(request), 405);
}

TEST(RequestScreen, ARebindingHostIsMisdirected) {
  EXPECT_EQ(status_of(get("attacker.example")), 421);
  EXPECT_EQ(status_of(get("attacker.example:9416")), 421);
  EXPECT_EQ(status_of(get("10.1.2.3")), 421);
  EXPECT_EQ(status_of(get("GPU01.example.:9416")), 200);
}

TEST(HostAllowList, LoopbackNamesAndAddressesAndTheListenHost) {
  const HostAllowList hosts("gpu01.lan", {});
  for (const char* host : {"localhost", "LOCALHOST:9416", "127.0.0.1", "127.3.4.5:80", "[::1]:9416",
                           "[::ffff:127.0.0.1]", "gpu01.lan", "gpu01.lan:9416"}) {
    EXPECT_TRUE(hosts.allows(host)) << host;
  }
  for (const char* host : {"", "evil.example", "gpu01.lan.evil.example", "localhost.evil", "[::1",
                           "::1", "192.168.1.5:9416", "[fe80::1]"}) {
    EXPECT_FALSE(hosts.allows(host)) << host;
  }
}

TEST(HostAllowList, AWildcardListenAddressAllowsEveryName) {
  EXPECT_TRUE(HostAllowList("0.0.0.0", {}).allows("gpu01.cluster.example:9416"));
  EXPECT_TRUE(HostAllowList("::", {}).allows("[2001:db8::1]:9416"));
  EXPECT_FALSE(HostAllowList("::", {}).allows(""));
}

}  // namespace gpumeter::net::request_screen_test
