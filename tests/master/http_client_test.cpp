// SPDX-License-Identifier: MIT
// The master's HTTP client against raw sockets on loopback that answer the ways a broken or
// hostile agent can: every limit ends its request with a clear failure, requests run at once
// up to the connection cap, and a stop ends them all.
#include "master/http_client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_agent.h"
#include "support/raw_agent.h"

namespace gpumeter::master::http_client_test {

using namespace std::chrono_literals;
using testing::RawAgent;

constexpr auto kTimeout = 300ms;

HttpRequest request_to(const RawAgent& agent, ClientOptions options = {.timeout = kTimeout},
                       HttpLimits limits = {}) {
  return {.url = {.host = "127.0.0.1", .port = agent.port()},
          .target = "/api/v1/status",
          .options = std::move(options),
          .limits = limits};
}

// Answers "200 OK", then sends what `more(0)`, `more(1)`, ... return, `pause` apart, until the
// peer hangs up or `more` returns nothing (then it waits for the peer to hang up).
RawAgent::Behaviour after_status_line(std::function<std::string(int)> more,
                                      std::chrono::milliseconds pause = 0ms) {
  return [more = std::move(more), pause](int fd, const std::stop_token& stop) {
    if (!testing::read_request(fd, stop)) return;
    if (!testing::send_all(fd, "HTTP/1.1 200 OK\r\n", stop)) return;
    for (int n = 0;; ++n) {
      const std::string bytes = more(n);
      if (bytes.empty()) return testing::wait_for_close(fd, stop);
      if (!testing::send_all(fd, bytes, stop)) return;
      std::this_thread::sleep_for(pause);
    }
  };
}

std::string failure_of(const HttpResult& result) {
  return result ? "answered HTTP " + std::to_string(result->status) : result.error().message;
}

TEST(MasterHttpClient, HeadersStreamedForeverStopAtTheByteCap) {
  RawAgent agent(
      after_status_line([](int) { return "X-Filler: " + std::string(1000, 'a') + "\r\n"; }));
  HttpClient client;
  const HttpResult result = client.get(request_to(agent));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, HttpFailure::Kind::too_large);
  EXPECT_EQ(result.error().message, "headers over 65536 bytes");
}

TEST(MasterHttpClient, ManyShortHeaderLinesStopAtTheLineCap) {
  RawAgent agent(after_status_line([](int n) { return "X-" + std::to_string(n) + ": 1\r\n"; }));
  HttpClient client;
  const HttpResult result = client.get(request_to(agent));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, HttpFailure::Kind::too_large);
  EXPECT_EQ(result.error().message, "over 100 header lines");
}

TEST(MasterHttpClient, TrickledHeadersCountAgainstTheTimeout) {
  // A line every 20 ms never idles the connection long, but the whole answer never comes.
  RawAgent agent(
      after_status_line([](int n) { return "X-" + std::to_string(n) + ": 1\r\n"; }, 20ms));
  HttpClient client;
  const HttpResult result =
      client.get(request_to(agent, {.timeout = kTimeout}, {.max_header_lines = 1'000'000}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, HttpFailure::Kind::no_answer);
  EXPECT_TRUE(result.error().message.starts_with("no whole answer within 0.3s ("))
      << result.error().message;
}

TEST(MasterHttpClient, AnEndlessBodyStopsAtTheBodyCap) {
  RawAgent agent(after_status_line([](int n) {
    return n == 0 ? std::string("Content-Type: application/json\r\n\r\n[")
                  : std::string(65536, '0');
  }));
  HttpClient client;
  const HttpResult result =
      client.get(request_to(agent, {.timeout = 10s}, {.max_body_bytes = 1024 * 1024}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, HttpFailure::Kind::too_large);
  EXPECT_EQ(result.error().message, "an answer over 1048576 bytes");
}

TEST(MasterHttpClient, AnAnnouncedLengthOverTheCapIsRefusedBeforeTheBody) {
  RawAgent agent(after_status_line([](int n) {
    return n == 0 ? std::string("Content-Length: 99999999999\r\n\r\n") : std::string();
  }));
  HttpClient client;
  const HttpResult result = client.get(request_to(agent, {.timeout = 10s}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, HttpFailure::Kind::too_large);
  EXPECT_EQ(result.error().message, "an answer over 16777216 bytes");
}

TEST(MasterHttpClient, ASilentPeerTimesOut) {
  RawAgent agent([](int fd, const std::stop_token& stop) { testing::wait_for_close(fd, stop); });
  HttpClient client;
  EXPECT_EQ(failure_of(client.get(request_to(agent))), "no answer within 0.3s");
}

TEST(MasterHttpClient, ARefusedConnectionSaysSo) {
  const HttpRequest request{.url = {.host = "127.0.0.1", .port = testing::closed_port()},
                            .target = "/api/v1/status"};
  HttpClient client;
  EXPECT_EQ(failure_of(client.get(request)), "cannot connect (refused, or no route to the host)");
}

TEST(MasterHttpClient, SendsTheTokenAndFollowsNoRedirect) {
  std::string head;
  RawAgent agent([&head](int fd, const std::stop_token& stop) {
    if (!testing::read_request(fd, stop, &head)) return;
    testing::send_all(fd,
                      "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\n"
                      "Content-Length: 5\r\nConnection: close\r\n\r\nmoved",
                      stop);
  });
  HttpClient client;
  const HttpResult result = client.get(request_to(agent, {.timeout = 10s, .token = "s3cret"}));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->status, 302);
  EXPECT_EQ(result->body, "moved");
  EXPECT_NE(head.find("GET /api/v1/status HTTP/1.1\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nAuthorization: Bearer s3cret\r\n"), std::string::npos) << head;
  EXPECT_EQ(agent.accepted(), 1);
}

// A peer that answers nobody until released: the connections it accepted by then are the
// requests that the client ran together.
class HeldAgent {
 public:
  HeldAgent()
      : agent_([this](int fd, const std::stop_token& stop) {
          if (!testing::read_request(fd, stop)) return;
          while (!released_ && !stop.stop_requested()) std::this_thread::sleep_for(1ms);
          testing::send_all(fd, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", stop);
        }) {}

  // Waits until `count` connections came, gives a little more time to any beyond the count,
  // and releases them: returns how many had come.
  int release_after(int count) {
    while (agent_.accepted() < count) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(200ms);  // only lets a cap that does not hold show itself
    const int accepted = agent_.accepted();
    released_ = true;
    return accepted;
  }
  const RawAgent& agent() const { return agent_; }

 private:
  std::atomic<bool> released_{false};
  RawAgent agent_;
};

std::vector<HttpResult> run_held(std::size_t requests, std::size_t connections, int* came) {
  HeldAgent held;
  const std::vector<HttpRequest> batch(requests, request_to(held.agent(), {.timeout = 60s}));
  std::jthread releaser(
      [&] { *came = held.release_after(static_cast<int>(std::min(requests, connections))); });
  HttpClient client(connections);
  return client.get_all(batch);
}

TEST(MasterHttpClient, RunsEveryRequestAtOnce) {
  int came = 0;
  for (const HttpResult& result : run_held(12, 64, &came)) {
    EXPECT_EQ(result ? result->status : 0, 204) << failure_of(result);
  }
  EXPECT_EQ(came, 12);
}

TEST(MasterHttpClient, RunsNoMoreAtOnceThanTheConnectionCap) {
  int came = 0;
  for (const HttpResult& result : run_held(12, 4, &came)) {
    EXPECT_EQ(result ? result->status : 0, 204) << failure_of(result);
  }
  EXPECT_EQ(came, 4);
}

TEST(MasterHttpClient, AStopEndsEveryRequestInFlight) {
  RawAgent agent([](int fd, const std::stop_token& stop) { testing::wait_for_close(fd, stop); });
  const std::vector<HttpRequest> requests(3, request_to(agent, {.timeout = 60s}));
  std::stop_source stop;
  const std::jthread stopper([&] {
    while (agent.accepted() < 3) std::this_thread::sleep_for(1ms);
    stop.request_stop();
  });
  HttpClient client;
  for (const HttpResult& result : client.get_all(requests, stop.get_token())) {
    EXPECT_EQ(failure_of(result), "stopped before the answer came");
  }
}

}  // namespace gpumeter::master::http_client_test
